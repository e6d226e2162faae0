"""Step 2: enqueue registers a new id once and never touches an existing row."""

from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sequences import model_check
from support import DEFAULT_ROW, call, changes, explain, in_processes, racing, row, seed, then, words, write_lock_held


@pytest.mark.clause("C2.1")
def test_enqueue_returns_true_for_a_new_id(lease, db):
    got, called = call(lease, "enqueue", db, "job")
    assert got is True, explain(
        called, got, en="True: the id was not in the table", ja="True (id はまだテーブルにない)"
    )


@pytest.mark.clause("C2.1")
def test_enqueue_stores_a_new_id_with_the_default_state(lease, db):
    _, called = call(lease, "enqueue", db, "job")
    got = row(db, "job")
    assert got == {"id": "job", **DEFAULT_ROW}, explain(
        then(called, words("read the row through another connection", "別の接続で行を読む")),
        got,
        en="a committed row with owner NULL, until 0, fence 0, result NULL, done 0",
        ja="コミット済みの行: owner NULL、until 0、fence 0、result NULL、done 0",
    )


@pytest.mark.clause("C2.2")
def test_enqueue_returns_false_for_an_existing_id(lease, db):
    seed(db, "job")
    got, called = call(lease, "enqueue", db, "job")
    assert got is False, explain(
        called, got, en="False: 'job' is already in the table", ja="False ('job' はすでにテーブルにある)"
    )


RACERS = ["A", "B", "C", "D"]
ONE_WINNER = {
    "en": "exactly one True and False for the rest, nothing raised: the id is new to one of them only",
    "ja": "True がちょうど 1 つ、残りは False、例外なし (新しい id だったのは 1 つの呼び出しにとってだけ)",
}


@pytest.mark.clause("C2.2")
@pytest.mark.race
def test_enqueues_of_one_new_id_racing_in_threads_have_exactly_one_true(lease, new_db, slow_writes):
    for attempt in range(3):
        db, start = new_db(), Barrier(len(RACERS), timeout=5)

        def enqueue_together(_, start=start, db=db):  # this round's barrier and database
            start.wait()
            try:
                return lease.enqueue(db, "job")
            except NotImplementedError:
                raise
            except Exception as error:  # noqa: BLE001 - a racer that raises is reported below
                return error

        with ThreadPoolExecutor(len(RACERS)) as pool:
            got = list(pool.map(enqueue_together, RACERS))
        called = racing("enqueue(db, job_id='job')", RACERS, attempt)
        assert sorted(got, key=repr) == [False, False, False, True], explain(called, got, **ONE_WINNER)


@pytest.mark.clause("C2.2")
@pytest.mark.race
def test_enqueues_of_one_new_id_racing_from_separate_processes_have_exactly_one_true(lease, new_db, slow_writes):
    # Each racer may read "not there" while another connection holds the write lock; their
    # inserts then queue up behind it, and only the first finds the id new. Two rounds: a lock
    # of the learner's process cannot keep processes apart, so one that does not shows in both.
    for attempt in range(2):
        db = new_db()
        called = racing("enqueue(db, job_id='job')", RACERS, attempt, across="processes")
        with write_lock_held(db, seconds=0.1):
            got = in_processes(lease, "enqueue", [(db, "job")] * len(RACERS), called)
        assert sorted(got, key=repr) == [False, False, False, True], explain(called, got, **ONE_WINNER)


@pytest.mark.clause("C2.3")
def test_enqueue_leaves_a_live_lease_exactly_as_it_was(lease, db):
    seed(db, "job", owner="A", until=50.0, fence=3)
    before = row(db, "job")
    _, called = call(lease, "enqueue", db, "job")
    after = row(db, "job")
    assert after == before, explain(
        words(
            f"{called} while worker A holds fence 3 until 50",
            f"ワーカー A が fence 3 を 50 まで持っている間に {called}",
        ),
        changes(before, after),
        en="the row unchanged: re-registering must not reset a lease in progress",
        ja="行は変わらない (再登録で進行中のリースを初期化しない)",
    )


@pytest.mark.clause("C2.3")
@given(
    owner=st.sampled_from([None, "A", "B"]),
    until=st.sampled_from([0.0, 9.5, 100.0]),
    fence=st.integers(0, 50),
    result=st.sampled_from([None, "", "done"]),
    done=st.integers(0, 1),
)
def test_enqueue_leaves_any_existing_row_exactly_as_it_was(lease, new_db, owner, until, fence, result, done):
    db = new_db()
    seed(db, "job", owner=owner, until=until, fence=fence, result=result, done=done)
    before = row(db, "job")
    got, called = call(lease, "enqueue", db, "job")
    after = row(db, "job")
    assert (got, after) == (False, before), explain(
        words(f"{called} on the stored row {before}", f"保存された行 {before} に対して {called}"),
        (got, changes(before, after) or words("row unchanged", "行は変わらない")),
        en="False, and every column exactly as it was",
        ja="False で、すべての列がそのまま",
    )


# Generated: arbitrary tables and calls against the model of the contract (sequences.py, model.py).
test_step_2_random_calls_from_arbitrary_tables_keep_the_contract = model_check(2, "C2.1", "C2.2", "C2.3")
