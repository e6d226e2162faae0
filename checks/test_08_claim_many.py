"""Step 8: claim_many runs the claims at the same time; exactly one wins, results in input order."""

import sqlite3
import threading

import pytest
from support import call, explain, raised, row, seed

OWNERS = ["w1", "w2", "w3", "w4"]


@pytest.mark.clause("C8.1")
def test_claim_many_with_one_owner_on_a_new_job(lease, db):
    seed(db, "job")
    got, called = call(lease, "claim_many", db, "job", ["A"], 10.0, 5.0)
    assert got == [1], explain(called, got, en="[1]: the only owner claims fence 1", ja="[1] (ただ 1 人の owner が fence 1 を得る)")


@pytest.mark.clause("C8.1")
def test_claim_many_of_no_owners_is_an_empty_list(lease, db):
    seed(db, "job")
    got, called = call(lease, "claim_many", db, "job", [], 10.0, 5.0)
    assert got == [], explain(called, got, en="[]: no owners, no claims", ja="[] (owner がいなければ claim もない)")


@pytest.mark.clause("C8.1")
def test_claim_many_answers_every_owner_of_a_live_lease_with_none(lease, db):
    seed(db, "job", owner="A", until=15.0, fence=1)
    got, called = call(lease, "claim_many", db, "job", OWNERS, 10.0, 5.0)
    assert got == [None] * len(OWNERS), explain(
        called, got, en=f"{[None] * len(OWNERS)}: one result per owner, and A's lease runs until 15", ja=f"{[None] * len(OWNERS)} (owner ごとに 1 つの結果。A のリースは 15 まで有効)"
    )


@pytest.mark.clause("C8.1", "C8.2")
def test_claim_many_has_one_winner_and_its_index_names_the_stored_owner(lease, new_db, slow_writes):
    for attempt in range(3):
        db = new_db()
        seed(db, "job", owner="old", until=10.0, fence=6)
        got, called = call(lease, "claim_many", db, "job", OWNERS, 10.0, 5.0)
        called += f" (round {attempt + 1}, writes slowed down)"
        assert isinstance(got, list) and len(got) == len(OWNERS) and sorted(got, key=str) == [7, None, None, None], explain(
            called, got, en="one 7 and three None, one result per owner", ja="7 が 1 つと None が 3 つ (owner ごとに 1 つの結果)"
        )
        stored = row(db, "job")
        winner = OWNERS[got.index(7)]
        assert (stored["owner"], stored["fence"], stored["until"]) == (winner, 7, 15.0), explain(
            called, stored,
            en=f"owner {winner!r} (the owner at the index of fence 7), fence 7, until 15",
            ja=f"owner {winner!r} (fence 7 の位置の owner)、fence 7、until 15",
        )


def claims_that_ran_apart(lease, db, owners, monkeypatch, patience):
    """Run claim_many with every claim's first connection waiting for all the others.

    Only claims that really run at the same time all arrive; returns (the call, how many claims
    gave up waiting after `patience` seconds because the others had not started).
    """
    seed(db, "job")
    together = threading.Barrier(len(owners), timeout=patience)
    apart = []
    arrived = threading.local()
    real_connect = sqlite3.connect

    def connect(*args, **kwargs):
        if not getattr(arrived, "done", False):
            arrived.done = True
            try:
                together.wait()
            except threading.BrokenBarrierError:
                apart.append(threading.current_thread().name)
        return real_connect(*args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", connect)
    _, called = call(lease, "claim_many", db, "job", owners, 10.0, 5.0)
    return called, len(apart)


@pytest.mark.clause("C8.3")
def test_claim_many_runs_the_claims_at_the_same_time(lease, db, monkeypatch):
    called, apart = claims_that_ran_apart(lease, db, OWNERS, monkeypatch, patience=0.5)
    assert not apart, explain(
        called,
        f"{apart} of {len(OWNERS)} claims opened their connection while no other claim was running",
        en="all four claims running at the same time, in a ThreadPoolExecutor",
        ja="4 つの claim が ThreadPoolExecutor の中で同時に動くこと",
    )


@pytest.mark.clause("C8.3")
def test_claim_many_lets_a_value_error_of_claim_through(lease, db):
    seed(db, "job")
    error, called = raised(lease, "claim_many", db, "job", OWNERS, 10.0, 0)
    assert isinstance(error, ValueError), explain(
        called, error, en="ValueError from claim (ttl=0), passed on to the caller", ja="claim の ValueError (ttl=0) が呼び出し側に届く"
    )


@pytest.mark.clause("C8.3")
def test_claim_many_runs_every_claim_at_once_even_for_more_owners_than_cpus(lease, db, monkeypatch):
    # More owners than a default ThreadPoolExecutor has threads (at most 32): a pool without
    # max_workers=len(owners) runs the claims in waves, not at the same time.
    owners = [f"w{i}" for i in range(40)]
    called, apart = claims_that_ran_apart(lease, db, owners, monkeypatch, patience=1.0)
    assert not apart, explain(
        called,
        f"{apart} of {len(owners)} claims gave up waiting: the others had not started",
        en="all 40 claims running at the same time: one thread per owner (max_workers=len(owners))",
        ja="40 個の claim がすべて同時に動くこと (owner ごとに 1 スレッド、max_workers=len(owners))",
    )
