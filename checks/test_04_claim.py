"""Step 4: claim takes an expired lease under one write lock and hands out the next fence."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from interleavings import check_interleavings
from sequences import model_check
from support import (
    NON_POSITIVE_TTLS,
    assert_unchanged,
    call,
    count_rows,
    counted_rows,
    explain,
    first_difference,
    in_processes,
    on,
    one_winner,
    racing,
    raised,
    row,
    seed,
    write_lock_held,
)


@pytest.mark.clause("C4.1")
@given(ttl=NON_POSITIVE_TTLS)
@example(ttl=0).via("the boundary itself")
@example(ttl=-1e-9).via("just below it")
@settings(max_examples=30)
def test_claim_rejects_every_non_positive_ttl(lease, new_db, ttl):
    db = new_db()
    seed(db, "job", owner="A", until=5.0, fence=1)
    before = row(db, "job")
    error, called = raised(lease, "claim", db, "job", "B", 10.0, ttl)
    assert isinstance(error, ValueError), explain(
        called, error, en="ValueError: ttl must be > 0", ja="ValueError (ttl は 0 より大きくなければならない)"
    )
    assert_unchanged(
        db, "job", before, called, en="the row unchanged after the ValueError", ja="ValueError のあと、行は変わらない"
    )


@pytest.mark.clause("C4.1")
def test_claim_rejects_a_zero_ttl_even_for_a_missing_job(lease, db):
    error, called = raised(lease, "claim", db, "missing", "A", 10.0, 0)
    assert isinstance(error, ValueError), explain(
        called,
        error,
        en="ValueError: ttl is checked before the job is looked up",
        ja="ValueError (ttl はジョブを探す前に検査する)",
    )


@pytest.mark.clause("C4.2")
def test_claim_of_a_missing_job_is_none_and_creates_no_row(lease, db):
    got, called = call(lease, "claim", db, "missing", "A", 10.0, 5.0)
    assert got is None, explain(called, got, en="None: there is no such job", ja="None (そのジョブはない)")
    assert count_rows(db) == 0, explain(called, counted_rows(db), en="no row created", ja="行は作られない")


@pytest.mark.clause("C4.3")
def test_claim_of_a_finished_job_is_none_and_keeps_its_row(lease, db):
    seed(db, "job", owner="A", until=5.0, fence=1, result="ok", done=1)
    before = row(db, "job")
    got, called = call(lease, "claim", db, "job", "B", 10.0, 5.0)
    assert got is None, explain(
        called,
        got,
        en="None: the job is done (done=1), even though its lease expired at 5",
        ja="None (done=1 のジョブ。リースが 5 で切れていても取得できない)",
    )
    assert_unchanged(db, "job", before, called, en="the finished row unchanged", ja="完了した行は変わらない")


@pytest.mark.clause("C4.4")
def test_claim_of_a_live_lease_is_none_and_keeps_the_row(lease, db):
    seed(db, "job", owner="A", until=15.0, fence=1)
    before = row(db, "job")
    got, called = call(lease, "claim", db, "job", "B", 14.5, 5.0)
    assert got is None, explain(
        called,
        got,
        en="None: A's lease runs until 15 > now=14.5",
        ja="None (A のリースは until=15 > now=14.5 でまだ有効)",
    )
    assert_unchanged(db, "job", before, called, en="A's lease unchanged", ja="A のリースは変わらない")


@pytest.mark.clause("C4.5")
def test_claim_of_a_new_job_wins_fence_1(lease, db):
    seed(db, "job")
    got, called = call(lease, "claim", db, "job", "A", 10.0, 5.0)
    assert got == 1, explain(
        called,
        got,
        en="1: the first claim of a new job (fence 0) gets fence 1",
        ja="1 (新しいジョブ (fence 0) の最初の claim は fence 1)",
    )
    stored = row(db, "job")
    want = {"id": "job", "owner": "A", "until": 15.0, "fence": 1, "result": None, "done": 0}
    assert stored == want, explain(
        called, stored, en=f"stored {want}: until = now + ttl", ja=f"保存される行 {want} (until = now + ttl)", want=want
    )


@pytest.mark.clause("C4.5")
def test_claim_wins_at_the_moment_the_lease_expires(lease, db):
    seed(db, "job", owner="A", until=10.0, fence=1)
    got, called = call(lease, "claim", db, "job", "B", 10.0, 5.0)
    assert got == 2, explain(
        called,
        got,
        en="2: the lease expired at until=10 == now, so B takes it with the next fence",
        ja="2 (until=10 == now でリースは期限切れ。B が次の fence で取得する)",
    )
    stored = row(db, "job")
    assert (stored["owner"], stored["until"], stored["fence"]) == ("B", 15.0, 2), explain(
        called, stored, en="owner 'B', until 15, fence 2 stored", ja="owner 'B'、until 15、fence 2 が保存される"
    )


@pytest.mark.clause("C4.2", "C4.3", "C4.4", "C4.5")
@given(
    exists=st.booleans(),
    done=st.integers(0, 1),
    until=st.sampled_from([0.0, 4.0, 7.5, 10.0, 12.0]),
    fence=st.integers(0, 20),
    now=st.sampled_from([0.0, 7.5, 10.0, 11.0]),
    ttl=st.sampled_from([0.5, 3.0, 60.0]),
)
def test_claim_succeeds_exactly_when_the_job_exists_is_not_done_and_until_le_now(
    lease, new_db, exists, done, until, fence, now, ttl
):
    db = new_db()
    if exists:
        seed(db, "job", owner="A", until=until, fence=fence, done=done)
    before = row(db, "job")
    got, called = call(lease, "claim", db, "job", "B", now, ttl)
    if exists and not done and until <= now:
        want_row = {**before, "owner": "B", "until": now + ttl, "fence": fence + 1}
        assert (got, row(db, "job")) == (fence + 1, want_row), explain(
            on(called, before),
            (got, row(db, "job")),
            en=f"({fence + 1}, {want_row}): until={until} <= now={now}, so the claim wins the next fence",
            ja=f"({fence + 1}, {want_row}) (until={until} <= now={now} なので次の fence で取得できる)",
            want=(fence + 1, want_row),
        )
    else:
        assert (got, row(db, "job")) == (None, before), explain(
            on(called, before),
            (got, row(db, "job")),
            en="(None, the row unchanged): the job is missing, done, or still leased",
            ja="(None, 行は変わらない) (ジョブがない、完了済み、またはリースが有効)",
        )


@pytest.mark.clause("C4.6")
@pytest.mark.race
def test_racing_claims_have_exactly_one_winner(lease, new_db, slow_writes):
    racers = ["A", "B", "C", "D", "E", "F", "G", "H"]
    for attempt in range(3):
        db = new_db()
        seed(db, "job")
        start = threading.Barrier(len(racers), timeout=5)

        def claim_together(owner, start=start, db=db):  # this round's barrier and database
            start.wait()
            try:
                return lease.claim(db, "job", owner, 10.0, 5.0)
            except NotImplementedError:
                raise
            except Exception as error:  # noqa: BLE001 - a racer that raises is reported below
                return error

        with ThreadPoolExecutor(len(racers)) as pool:
            got = list(pool.map(claim_together, racers))
        called = racing("claim(db, job_id='job', owner=X, now=10, ttl=5)", racers, attempt)
        winners = [r for r in got if r is not None]
        assert winners == [1] and not any(isinstance(r, Exception) for r in got), explain(
            called,
            got,
            en="exactly one 1 and None for the rest, nothing raised: read and update inside one BEGIN IMMEDIATE",
            ja="1 がちょうど 1 つ、残りは None、例外なし (読み取りと書き込みを 1 つの BEGIN IMMEDIATE の中で行う)",
        ) + first_difference(got, one_winner(got, 1, len(racers)))
        stored = row(db, "job")
        winner = racers[got.index(1)]
        assert (stored["owner"], stored["fence"]) == (winner, 1), explain(
            called,
            stored,
            en=f"owner {winner!r} (the winner) with fence 1 stored",
            ja=f"勝者 {winner!r} と fence 1 が保存される",
        )


@pytest.mark.clause("C4.6")
@pytest.mark.race
def test_claims_racing_from_separate_processes_have_exactly_one_winner(lease, new_db, slow_writes):
    # Worker processes share no lock of Python's: a threading.Lock around the read and the
    # write keeps threads apart, never processes. Only the database's write lock does.
    racers = ["A", "B", "C", "D"]
    for attempt in range(3):
        db = new_db()
        seed(db, "job")
        called = racing("claim(db, job_id='job', owner=X, now=10, ttl=5)", racers, attempt, across="processes")
        with write_lock_held(db, seconds=0.1):
            got = in_processes(lease, "claim", [(db, "job", owner, 10.0, 5.0) for owner in racers], called)
        assert sorted(got, key=repr) == [1, None, None, None], explain(
            called,
            got,
            en="exactly one 1 and None for the rest, nothing raised: only BEGIN IMMEDIATE keeps processes apart",
            ja="1 がちょうど 1 つ、残りは None、例外なし (プロセスどうしを分けられるのは BEGIN IMMEDIATE だけ)",
        ) + first_difference(got, one_winner(got, 1, len(racers)))
        stored = row(db, "job")
        winner = racers[got.index(1)]
        assert (stored["owner"], stored["fence"]) == (winner, 1), explain(
            called,
            stored,
            en=f"owner {winner!r} (the winner) with fence 1 stored",
            ja=f"勝者 {winner!r} と fence 1 が保存される",
        )


@pytest.mark.clause("C4.6", "C4.7")
@pytest.mark.race
def test_a_claim_from_another_process_between_any_two_statements_of_a_claim_leaves_each_its_own_fence(
    lease, new_db, another_worker
):
    # Held before each of its statements in turn while B claims in another process (interleavings.py):
    # a claim that raises or both winning one generation break C4.6, returning another's fence C4.7.
    check_interleavings(lease, new_db, "claim", "C4.7", another_worker, collision="C4.6")


# Generated: arbitrary tables and calls against the model of the contract (sequences.py, model.py).
test_step_4_random_calls_from_arbitrary_tables_keep_the_contract = model_check(
    4, "C4.1", "C4.2", "C4.3", "C4.4", "C4.5"
)
