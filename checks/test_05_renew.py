"""Step 5: renew extends only the current lease of the current generation."""

import pytest
from hypothesis import example, given, settings
from interleavings import check_interleavings
from sequences import model_check
from support import NON_POSITIVE_TTLS, assert_unchanged, call, count_rows, counted_rows, explain, raised, row, seed


@pytest.mark.clause("C5.1")
@given(ttl=NON_POSITIVE_TTLS)
@example(ttl=0).via("the boundary itself")
@example(ttl=-1e-9).via("just below it")
@settings(max_examples=30)
def test_renew_rejects_every_non_positive_ttl(lease, new_db, ttl):
    db = new_db()
    seed(db, "job", owner="A", until=15.0, fence=1)
    before = row(db, "job")
    error, called = raised(lease, "renew", db, "job", "A", 1, 12.0, ttl)
    assert isinstance(error, ValueError), explain(
        called, error, en="ValueError: ttl must be > 0", ja="ValueError (ttl は 0 より大きくなければならない)"
    )
    assert_unchanged(
        db,
        "job",
        before,
        called,
        en="the lease unchanged after the ValueError",
        ja="ValueError のあと、リースは変わらない",
    )


@pytest.mark.clause("C5.1")
def test_renew_rejects_a_zero_ttl_even_for_a_missing_job(lease, db):
    error, called = raised(lease, "renew", db, "missing", "A", 1, 12.0, 0)
    assert isinstance(error, ValueError), explain(
        called,
        error,
        en="ValueError: ttl is checked before the job is looked up",
        ja="ValueError (ttl はジョブを探す前に検査する)",
    )


@pytest.mark.clause("C5.2")
def test_renew_extends_a_current_lease_to_now_plus_ttl(lease, db):
    seed(db, "job", owner="A", until=15.0, fence=1)
    got, called = call(lease, "renew", db, "job", "A", 1, 12.0, 10.0)
    assert got is True, explain(
        called,
        got,
        en="True: A holds fence 1 until 15 > now=12",
        ja="True (A は fence 1 を until=15 > now=12 まで保持)",
    )
    stored = row(db, "job")
    want = {"id": "job", "owner": "A", "until": 22.0, "fence": 1, "result": None, "done": 0}
    assert stored == want, explain(
        called,
        stored,
        en=f"{want}: until = now + ttl, the rest unchanged",
        ja=f"{want} (until = now + ttl、他は変わらない)",
        want=want,
    )


@pytest.mark.clause("C5.2")
def test_renew_with_a_short_ttl_shortens_the_lease_to_now_plus_ttl(lease, db):
    seed(db, "job", owner="A", until=30.0, fence=1)
    got, called = call(lease, "renew", db, "job", "A", 1, 12.0, 5.0)
    assert got is True, explain(
        called,
        got,
        en="True: A holds fence 1 until 30 > now=12",
        ja="True (A は fence 1 を until=30 > now=12 まで保持)",
    )
    stored = row(db, "job")
    assert stored["until"] == 17.0, explain(
        called,
        stored,
        en="until 17 = now + ttl, below the stored 30: a renewal sets until, it never keeps the later one",
        ja="until は now + ttl = 17 (保存されていた 30 より前)。延長は until を設定し直し、遅い方を残すのではない",
    )


@pytest.mark.clause("C5.3")
def test_renew_refuses_a_lease_at_the_moment_it_expires(lease, db):
    seed(db, "job", owner="A", until=15.0, fence=1)
    before = row(db, "job")
    got, called = call(lease, "renew", db, "job", "A", 1, 15.0, 10.0)
    assert got is False, explain(
        called,
        got,
        en="False: at now == until=15 the lease has expired",
        ja="False (now == until=15 でリースは期限切れ)",
    )
    assert_unchanged(
        db, "job", before, called, en="the expired lease is not revived", ja="期限切れのリースを復活させない"
    )


@pytest.mark.clause("C5.3")
def test_renew_refuses_a_lease_that_expired_long_ago(lease, db):
    seed(db, "job", owner="A", until=15.0, fence=1)
    before = row(db, "job")
    got, called = call(lease, "renew", db, "job", "A", 1, 40.0, 10.0)
    assert got is False, explain(
        called, got, en="False: the lease expired at 15", ja="False (リースは 15 で切れている)"
    )
    assert_unchanged(db, "job", before, called, en="the row unchanged", ja="行は変わらない")


@pytest.mark.clause("C5.4")
def test_renew_refuses_a_stale_fence_of_the_same_owner(lease, db):
    seed(db, "job", owner="A", until=30.0, fence=2)
    before = row(db, "job")
    got, called = call(lease, "renew", db, "job", "A", 1, 20.0, 10.0)
    assert got is False, explain(
        called,
        got,
        en="False: A's old token is fence 1, the current generation is fence 2",
        ja="False (A の古い fence は 1、現在の世代は fence 2)",
    )
    assert_unchanged(db, "job", before, called, en="the current lease unchanged", ja="現在のリースは変わらない")


@pytest.mark.clause("C5.4")
def test_renew_refuses_another_owner_with_the_same_fence_number(lease, db):
    seed(db, "job", owner="B", until=30.0, fence=2)
    before = row(db, "job")
    got, called = call(lease, "renew", db, "job", "A", 2, 20.0, 10.0)
    assert got is False, explain(
        called, got, en="False: fence 2 belongs to B, not A", ja="False (fence 2 は A ではなく B のもの)"
    )
    assert_unchanged(db, "job", before, called, en="B's lease unchanged", ja="B のリースは変わらない")


@pytest.mark.clause("C5.5")
def test_renew_refuses_a_finished_job(lease, db):
    seed(db, "job", owner="A", until=30.0, fence=1, result="ok", done=1)
    before = row(db, "job")
    got, called = call(lease, "renew", db, "job", "A", 1, 20.0, 10.0)
    assert got is False, explain(called, got, en="False: the job is done", ja="False (ジョブは完了している)")
    assert_unchanged(db, "job", before, called, en="the finished row unchanged", ja="完了した行は変わらない")


@pytest.mark.clause("C5.5")
def test_renew_of_a_missing_job_is_false(lease, db):
    got, called = call(lease, "renew", db, "missing", "A", 1, 20.0, 10.0)
    assert got is False, explain(called, got, en="False: there is no such job", ja="False (そのジョブはない)")
    assert count_rows(db) == 0, explain(called, counted_rows(db), en="no row created", ja="行は作られない")


@pytest.mark.clause("C5.6")
@pytest.mark.race
def test_a_claim_from_another_process_between_any_two_statements_of_renew_comes_wholly_before_or_after_it(
    lease, new_db, another_worker
):
    # Held before each of its statements in turn while B claims in another process (interleavings.py).
    check_interleavings(lease, new_db, "renew", "C5.6", another_worker)


# Generated: arbitrary tables and calls against the model of the contract (sequences.py, model.py).
test_step_5_random_calls_from_arbitrary_tables_keep_the_contract = model_check(
    5, "C5.1", "C5.2", "C5.3", "C5.4", "C5.5"
)
