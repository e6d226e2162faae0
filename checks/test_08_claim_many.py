"""Step 8: claim_many runs the claims at the same time; exactly one wins, results in input order."""

import pytest
from sequences import model_check
from support import call, explain, first_difference, one_winner, raised, row, seed, slowed, words

from lab.api import ClauseBroken

OWNERS = ["w1", "w2", "w3", "w4"]
NOT_A_DATABASE = b"these bytes are not an SQLite database file\n" * 64


@pytest.mark.clause("C8.1")
def test_claim_many_with_one_owner_on_a_new_job(lease, db):
    seed(db, "job")
    got, called = call(lease, "claim_many", db, "job", ["A"], 10.0, 5.0)
    assert got == [1], explain(
        called, got, en="[1]: the only owner claims fence 1", ja="[1] (ただ 1 人の owner が fence 1 を得る)", want=[1]
    )


@pytest.mark.clause("C8.1")
def test_claim_many_of_no_owners_is_an_empty_list(lease, db):
    seed(db, "job")
    got, called = call(lease, "claim_many", db, "job", [], 10.0, 5.0)
    assert got == [], explain(
        called, got, en="[]: no owners, no claims", ja="[] (owner がいなければ claim もない)", want=[]
    )


@pytest.mark.clause("C8.1")
def test_claim_many_answers_every_owner_of_a_live_lease_with_none(lease, db):
    seed(db, "job", owner="A", until=15.0, fence=1)
    got, called = call(lease, "claim_many", db, "job", OWNERS, 10.0, 5.0)
    assert got == [None] * len(OWNERS), explain(
        called,
        got,
        en=f"{[None] * len(OWNERS)}: one result per owner, and A's lease runs until 15",
        ja=f"{[None] * len(OWNERS)} (owner ごとに 1 つの結果。A のリースは 15 まで有効)",
        want=[None] * len(OWNERS),
    )


@pytest.mark.clause("C8.1", "C8.2")
@pytest.mark.race
def test_claim_many_has_one_winner_and_stores_one_of_its_owners(lease, new_db, slow_writes):
    # Which owner wins is the race's; the winner's index is held by the watched check below.
    for attempt in range(3):
        db = new_db()
        seed(db, "job", owner="old", until=10.0, fence=6)
        got, called = call(lease, "claim_many", db, "job", OWNERS, 10.0, 5.0)
        called = slowed(called, attempt)
        assert isinstance(got, list) and len(got) == len(OWNERS) and sorted(got, key=str) == [7, None, None, None], (
            explain(
                called,
                got,
                en="one 7 and three None, one result per owner",
                ja="7 が 1 つと None が 3 つ (owner ごとに 1 つの結果)",
            )
            + first_difference(got, one_winner(got, 7, len(OWNERS)))
        )
        stored = row(db, "job")
        assert stored["owner"] in OWNERS and (stored["fence"], stored["until"]) == (7, 15.0), explain(
            called,
            stored,
            en=f"an owner of {OWNERS} (the one that won), fence 7, until 15",
            ja=f"{OWNERS} のどれか (勝った owner)、fence 7、until 15",
        )


def watched_claim_many(lease, db, owners, patience):
    """claim_many on a new job with `claim` watched (lab/sandbox/meeting.py counts the claims);
    returns (its answer, the call, what the watcher recorded: each claim's arguments in the order
    of claim's parameters, path, job_id, owner, now, ttl, and its answer).

    The second owner's claim leads (lab/sandbox/meeting.py): when claims overlap, the others wait
    until it has ended, and it returns only after every other has. So the second owner wins; an
    order by return (as_completed) puts its fence last, and a fence moved to the front puts it at
    index 0: neither is the index of its owner, on any run."""
    seed(db, "job")
    leader = tuple(owners[1:2])
    lease.watch("claim", patience, lead=lambda arguments: tuple(arguments[2:3]) == leader)
    got, called = call(lease, "claim_many", db, "job", owners, 10.0, 5.0)
    return got, called, lease.watched()


@pytest.mark.clause("C8.3")
@pytest.mark.race
def test_claim_many_runs_the_claims_at_the_same_time(lease, db):
    _, called, watcher = watched_claim_many(lease, db, OWNERS, patience=0.3)
    assert watcher.peak >= 2 and not watcher.alone, explain(
        called,
        ran_alone(watcher),
        en="claims that overlap from the first on: claim_many calls claim from a ThreadPoolExecutor of two or more threads",
        ja="claim どうしが最初から同時に動くこと (2 つ以上のスレッドを持つ ThreadPoolExecutor から claim を呼ぶ)",
    )


@pytest.mark.clause("C8.1", "C8.2", "C8.3")
@pytest.mark.race
def test_claim_many_calls_claim_once_per_owner_and_returns_each_answer_at_its_owners_index(lease, db):
    # More owners than a pool has threads (a default pool has at most 32): any pool size works,
    # as long as every owner's claim is made once, with the given now and ttl. Two owners are
    # named twice, the leading one among them: each name is a claim of its own.
    owners = [f"w{i:02}" for i in range(40)]
    owners[20:20] = ["w01", "w11"]
    got, called, watcher = watched_claim_many(lease, db, owners, patience=0.3)
    made = sorted(tuple(arguments[2:5]) for arguments, _ in watcher.calls)
    expect(
        made == sorted((owner, 10.0, 5.0) for owner in owners),
        "C8.3",
        explain(
            called,
            words(f"claim called {len(made)} times: {made[:3]}…", f"claim の呼び出しは {len(made)} 回: {made[:3]}…"),
            en="claim called once for each of the 42 owners (w01 and w11 twice), each with now=10.0 and ttl=5.0",
            ja="42 人の owner それぞれについて claim を 1 回 (w01 と w11 は 2 回)、now=10.0, ttl=5.0 で呼ぶ",
        ),
    )
    # An owner named twice made two claims: its indexes hold their two answers, in either order.
    answers = {
        owner: sorted((a for arguments, a in watcher.calls if arguments[2:3] == (owner,)), key=repr) for owner in owners
    }
    expect(
        isinstance(got, list)
        and len(got) == len(owners)
        and all(
            sorted((got[i] for i, o in enumerate(owners) if o == owner), key=repr) == answers[owner] for owner in owners
        ),
        "C8.1",
        explain(
            called,
            got,
            en="at index i, what the claim by owners[i] returned (exactly one fence 1, the others None)",
            ja="i 番目は owners[i] の claim が返した値 (fence 1 がちょうど 1 つ、ほかは None)",
        )
        + first_difference(got, [answers[owner] for owner in owners]),
    )
    stored = row(db, "job")
    winner = owners[got.index(1)] if isinstance(got, list) and 1 in got else None
    expect(
        stored["owner"] == winner and stored["fence"] == 1,
        "C8.2",
        explain(
            called,
            stored,
            en=f"owner {winner!r} (the owner at the index of fence 1), fence 1",
            ja=f"owner {winner!r} (fence 1 の位置の owner)、fence 1",
        ),
    )
    expect(
        watcher.peak >= 2 and not watcher.alone,
        "C8.3",
        explain(
            called,
            ran_alone(watcher),
            en="claims that overlap from the first on, in a ThreadPoolExecutor of two or more threads",
            ja="claim どうしが最初から、2 つ以上のスレッドの ThreadPoolExecutor の中で同時に動くこと",
        ),
    )


def ran_alone(watcher):
    """How many of the watched claims ran with no other claim running, in the learner's language."""
    alone, count = watcher.alone, len(watcher.calls)
    return words(
        f"{alone} of {count} claims ran while no other claim was running",
        f"claim {count} 回のうち {alone} 回は、ほかの claim が動いていない間に動いた",
    )


def expect(holds, clause, message):
    """A check of several clauses names the one a failure breaks."""
    if not holds:
        raise ClauseBroken(clause, message)


@pytest.mark.clause("C8.3")
def test_claim_many_lets_a_value_error_of_claim_through(lease, db):
    seed(db, "job")
    error, called = raised(lease, "claim_many", db, "job", OWNERS, 10.0, 0)
    assert isinstance(error, ValueError), explain(
        called,
        error,
        en="ValueError from claim (ttl=0), passed on to the caller",
        ja="claim の ValueError (ttl=0) が呼び出し側に届く",
    )


@pytest.mark.clause("C8.3")
def test_claim_many_lets_a_database_error_of_claim_through(lease, new_db):
    """A file that is not a database: what claim raises on it (sqlite3.DatabaseError, unless the
    learner's claim answers such a file otherwise), claim_many raises too."""
    path = new_db(with_table=False)
    with open(path, "wb") as damaged:
        damaged.write(NOT_A_DATABASE)
    from_claim, _ = raised(lease, "claim", path, "job", OWNERS[0], 10.0, 5)
    if not isinstance(from_claim, Exception):
        return  # claim raised nothing: there is no error for claim_many to pass on
    error, called = raised(lease, "claim_many", path, "job", OWNERS, 10.0, 5)
    assert isinstance(error, type(from_claim)), explain(
        called,
        error,
        en=f"{type(from_claim).__name__} from claim (the file is not a database), passed on to the caller",
        ja=f"claim の {type(from_claim).__name__} (ファイルがデータベースではない) が呼び出し側に届く",
    )


# Generated: arbitrary tables and calls against the model of the contract (sequences.py, model.py).
test_step_8_random_calls_from_arbitrary_tables_keep_the_contract = model_check(8, "C8.1", "C8.2")
