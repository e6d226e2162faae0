"""Step 7: release frees the lease for its holder and keeps the fence."""

import pytest
from interleavings import check_interleavings
from sequences import model_check
from support import assert_unchanged, call, count_rows, counted_rows, explain, row, seed, then


@pytest.mark.clause("C7.1")
def test_release_frees_the_lease_of_its_holder(lease, db):
    seed(db, "job", owner="A", until=15.0, fence=3)
    got, called = call(lease, "release", db, "job", "A", 3)
    assert got is True, explain(called, got, en="True: A holds fence 3", ja="True (A が fence 3 を保持)")
    stored = row(db, "job")
    want = {"id": "job", "owner": None, "until": 0.0, "fence": 3, "result": None, "done": 0}
    assert stored == want, explain(
        called,
        stored,
        en=f"{want}: owner NULL, until 0, fence kept",
        ja=f"{want} (owner NULL、until 0、fence はそのまま)",
        want=want,
    )


@pytest.mark.clause("C7.2")
def test_after_a_release_the_next_claim_gets_the_next_fence(lease, db):
    seed(db, "job", owner="A", until=15.0, fence=3)
    call(lease, "release", db, "job", "A", 3)
    got, called = call(lease, "claim", db, "job", "B", 12.0, 5.0)
    assert got == 4, explain(
        then("release(db, job_id='job', owner='A', fence=3)", called),
        got,
        en="4: the released job can be claimed at once, and the fence goes on from 3, never back to 1",
        ja="4 (返却されたジョブはすぐに取得でき、fence は 3 から続く。1 には戻らない)",
    )


@pytest.mark.clause("C7.3")
def test_release_refuses_a_stale_fence_of_the_same_owner(lease, db):
    seed(db, "job", owner="A", until=30.0, fence=2)
    before = row(db, "job")
    got, called = call(lease, "release", db, "job", "A", 1)
    assert got is False, explain(
        called,
        got,
        en="False: fence 1 is an old generation, the current one is 2",
        ja="False (fence 1 は古い世代、現在は 2)",
    )
    assert_unchanged(db, "job", before, called, en="the current lease unchanged", ja="現在のリースは変わらない")


@pytest.mark.clause("C7.3")
def test_release_refuses_another_owner(lease, db):
    seed(db, "job", owner="B", until=30.0, fence=2)
    before = row(db, "job")
    got, called = call(lease, "release", db, "job", "A", 2)
    assert got is False, explain(
        called, got, en="False: B holds the lease, not A", ja="False (リースを持つのは A ではなく B)"
    )
    assert_unchanged(db, "job", before, called, en="B's lease unchanged", ja="B のリースは変わらない")


@pytest.mark.clause("C7.4")
def test_release_refuses_a_finished_job(lease, db):
    seed(db, "job", owner="A", until=30.0, fence=1, result="ok", done=1)
    before = row(db, "job")
    got, called = call(lease, "release", db, "job", "A", 1)
    assert got is False, explain(called, got, en="False: the job is done", ja="False (ジョブは完了している)")
    assert_unchanged(db, "job", before, called, en="the finished row unchanged", ja="完了した行は変わらない")


@pytest.mark.clause("C7.4")
def test_release_of_a_missing_job_is_false(lease, db):
    got, called = call(lease, "release", db, "missing", "A", 1)
    assert got is False, explain(called, got, en="False: there is no such job", ja="False (そのジョブはない)")
    assert count_rows(db) == 0, explain(called, counted_rows(db), en="no row created", ja="行は作られない")


@pytest.mark.clause("C7.5")
@pytest.mark.race
def test_a_claim_from_another_process_between_any_two_statements_of_release_comes_wholly_before_or_after_it(
    lease, new_db, another_worker
):
    # Held before each of its statements in turn while B claims in another process (interleavings.py).
    check_interleavings(lease, new_db, "release", "C7.5", another_worker)


# Generated: arbitrary tables and calls against the model of the contract (sequences.py, model.py).
test_step_7_random_calls_from_arbitrary_tables_keep_the_contract = model_check(7, "C7.1", "C7.2", "C7.3", "C7.4")
