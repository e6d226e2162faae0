"""Step 6: complete stores a result only for the current lease; a late worker is refused."""

import pytest
from interleavings import check_interleavings
from sequences import model_check
from support import assert_unchanged, call, count_rows, counted_rows, explain, row, seed


@pytest.mark.clause("C6.1")
def test_complete_stores_the_result_of_the_current_lease(lease, db):
    seed(db, "job", owner="A", until=15.0, fence=1)
    got, called = call(lease, "complete", db, "job", "A", 1, 12.0, "report.pdf")
    assert got is True, explain(
        called,
        got,
        en="True: A holds fence 1 until 15 > now=12",
        ja="True (A は fence 1 を until=15 > now=12 まで保持)",
    )
    stored = row(db, "job")
    want = {"id": "job", "owner": "A", "until": 15.0, "fence": 1, "result": "report.pdf", "done": 1}
    assert stored == want, explain(
        called, stored, en=f"{want}: result stored, done = 1", ja=f"{want} (result を保存し done = 1)", want=want
    )


@pytest.mark.clause("C6.2")
def test_complete_refuses_a_lease_at_the_moment_it_expires(lease, db):
    seed(db, "job", owner="A", until=15.0, fence=1)
    before = row(db, "job")
    got, called = call(lease, "complete", db, "job", "A", 1, 15.0, "late")
    assert got is False, explain(
        called,
        got,
        en="False: at now == until=15 the lease has expired",
        ja="False (now == until=15 でリースは期限切れ)",
    )
    assert_unchanged(
        db, "job", before, called, en="no result stored, done still 0", ja="result は保存されず、done は 0 のまま"
    )


@pytest.mark.clause("C6.3")
def test_a_worker_that_comes_back_late_cannot_complete(lease, db):
    # A held fence 1, stalled; its lease expired and B claimed fence 2, still working.
    seed(db, "job", owner="B", until=30.0, fence=2)
    before = row(db, "job")
    got, called = call(lease, "complete", db, "job", "A", 1, 20.0, "A's stale result")
    assert got is False, explain(
        called, got, en="False: B holds the job with fence 2", ja="False (ジョブは fence 2 の B が保持している)"
    )
    assert_unchanged(
        db,
        "job",
        before,
        called,
        en="B's lease untouched, no result stored",
        ja="B のリースはそのまま、result は保存されない",
    )


@pytest.mark.clause("C6.3")
def test_complete_refuses_a_stale_fence_of_the_same_owner(lease, db):
    seed(db, "job", owner="A", until=30.0, fence=2)
    before = row(db, "job")
    got, called = call(lease, "complete", db, "job", "A", 1, 20.0, "old generation")
    assert got is False, explain(
        called,
        got,
        en="False: fence 1 is A's old generation, the current one is fence 2",
        ja="False (fence 1 は A の古い世代、現在は fence 2)",
    )
    assert_unchanged(db, "job", before, called, en="no result stored", ja="result は保存されない")


@pytest.mark.clause("C6.3")
def test_complete_refuses_another_owner_with_the_same_fence_number(lease, db):
    seed(db, "job", owner="B", until=30.0, fence=2)
    before = row(db, "job")
    got, called = call(lease, "complete", db, "job", "A", 2, 20.0, "not mine")
    assert got is False, explain(
        called, got, en="False: fence 2 belongs to B, not A", ja="False (fence 2 は A ではなく B のもの)"
    )
    assert_unchanged(db, "job", before, called, en="no result stored", ja="result は保存されない")


@pytest.mark.clause("C6.4")
def test_a_finished_job_keeps_its_result_even_against_its_own_lease(lease, db):
    seed(db, "job", owner="A", until=30.0, fence=1, result="first", done=1)
    before = row(db, "job")
    got, called = call(lease, "complete", db, "job", "A", 1, 20.0, "second")
    assert got is False, explain(
        called, got, en="False: the job is already done", ja="False (ジョブはすでに完了している)"
    )
    assert_unchanged(db, "job", before, called, en="result 'first' kept", ja="result 'first' が残る")


@pytest.mark.clause("C6.4")
def test_complete_of_a_missing_job_is_false(lease, db):
    got, called = call(lease, "complete", db, "missing", "A", 1, 20.0, "x")
    assert got is False, explain(called, got, en="False: there is no such job", ja="False (そのジョブはない)")
    assert count_rows(db) == 0, explain(called, counted_rows(db), en="no row created", ja="行は作られない")


@pytest.mark.clause("C6.5")
@pytest.mark.race
def test_a_claim_from_another_process_between_any_two_statements_of_complete_comes_wholly_before_or_after_it(
    lease, new_db, another_worker
):
    # Held before each of its statements in turn while B claims in another process (interleavings.py).
    check_interleavings(lease, new_db, "complete", "C6.5", another_worker)


# Generated: arbitrary tables and calls against the model of the contract (sequences.py, model.py).
test_step_6_random_calls_from_arbitrary_tables_keep_the_contract = model_check(6, "C6.1", "C6.2", "C6.3", "C6.4")
