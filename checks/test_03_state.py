"""Step 3: state reads the stored row afresh, and says None for a job that is not there."""

import os
from contextlib import closing

import pytest
from sequences import model_check
from support import call, explain, open_db, seed, words


@pytest.mark.clause("C3.1")
def test_state_returns_the_stored_row_under_the_contract_keys(lease, db):
    seed(db, "job", owner="A", until=15.5, fence=2)
    got, called = call(lease, "state", db, "job")
    want = {"id": "job", "owner": "A", "until": 15.5, "fence": 2, "result": None, "done": 0}
    assert got == want, explain(
        called, got, en=f"{want}: each key holds its own column", ja=f"{want} (各キーに対応する列の値)", want=want
    )


@pytest.mark.clause("C3.1")
def test_state_returns_a_finished_jobs_result(lease, db):
    seed(db, "job", owner="B", until=20.0, fence=4, result="report.pdf", done=1)
    got, called = call(lease, "state", db, "job")
    want = {"id": "job", "owner": "B", "until": 20.0, "fence": 4, "result": "report.pdf", "done": 1}
    assert got == want, explain(called, got, en=str(want), ja=str(want), want=want)


@pytest.mark.clause("C3.2")
def test_state_of_a_missing_job_is_none(lease, db):
    seed(db, "other", owner="A", until=5.0, fence=1)
    got, called = call(lease, "state", db, "missing")
    assert got is None, explain(
        called,
        got,
        en="None: there is no row 'missing' (an empty dict is not None)",
        ja="None ('missing' の行はない。空の dict は None ではない)",
    )


@pytest.mark.clause("C3.2")
def test_state_matches_the_id_exactly(lease, db):
    seed(db, "job", owner="A", until=5.0, fence=1)
    got, called = call(lease, "state", db, "JOB")
    assert got is None, explain(
        called,
        got,
        en="None: ids are compared exactly, and 'JOB' is not 'job'",
        ja="None (id は完全一致で比べる。'JOB' と 'job' は別)",
    )


@pytest.mark.clause("C3.3")
def test_state_sees_a_change_committed_by_another_connection(lease, db):
    seed(db, "job")
    call(lease, "state", db, "job")
    with closing(open_db(db)) as conn, conn:
        conn.execute("UPDATE jobs SET owner='B', until=30, fence=5 WHERE id='job'")
    got, called = call(lease, "state", db, "job")
    want = {"id": "job", "owner": "B", "until": 30.0, "fence": 5, "result": None, "done": 0}
    assert got == want, explain(
        words(
            f"{called} again, after another connection committed owner='B', until=30, fence=5",
            f"別の接続が owner='B', until=30, fence=5 をコミットしたあとで、もう一度 {called}",
        ),
        got,
        en=f"{want}: the stored state now, not a copy from the first call",
        ja=f"{want} (最初の呼び出しのコピーではなく、今保存されている状態)",
        want=want,
    )


@pytest.mark.clause("C3.3")
def test_state_reads_the_file_now_at_its_path_after_the_file_was_replaced(lease, db, new_db):
    seed(db, "job", owner="A", until=10, fence=1)
    call(lease, "state", db, "job")
    replacement = new_db()
    seed(replacement, "job", owner="B", until=30, fence=5)
    os.replace(replacement, db)
    got, called = call(lease, "state", db, "job")
    want = {"id": "job", "owner": "B", "until": 30.0, "fence": 5, "result": None, "done": 0}
    assert got == want, explain(
        words(
            f"{called} again, after another file holding owner='B', until=30, fence=5 was moved onto that path",
            f"そのパスのファイルが owner='B', until=30, fence=5 を持つ別のファイルに置き換えられたあとで、もう一度 {called}",
        ),
        got,
        en=f"{want}: the file at the path now, not the one a kept connection still has open",
        ja=f"{want} (開いたままの接続が見ている古いファイルではなく、今そのパスにあるファイル)",
        want=want,
    )


# Generated: arbitrary tables and calls against the model of the contract (sequences.py, model.py).
test_step_3_random_calls_from_arbitrary_tables_keep_the_contract = model_check(3, "C3.1", "C3.2", "C3.3")
