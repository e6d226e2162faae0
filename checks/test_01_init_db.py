"""Step 1: init_db creates the jobs table, and running it again keeps every row."""

import sqlite3
from contextlib import closing

import pytest
from sequences import model_check
from support import DEFAULT_ROW, call, changes, explain, open_db, row, seed, then, words

# (name, declared type, NOT NULL, default, primary key) as PRAGMA table_info reports them.
EXPECTED_COLUMNS = [
    ("id", "TEXT", 0, None, 1),
    ("owner", "TEXT", 0, None, 0),
    ("until", "REAL", 1, "0", 0),
    ("fence", "INTEGER", 1, "0", 0),
    ("result", "TEXT", 0, None, 0),
    ("done", "INTEGER", 1, "0", 0),
]


def columns(db):
    with closing(open_db(db)) as conn:
        return [(c[1], c[2].upper(), c[3], c[4], c[5]) for c in conn.execute("PRAGMA table_info(jobs)")]


@pytest.mark.clause("C1.1")
def test_init_db_creates_the_jobs_table_with_the_contract_columns(lease, new_db):
    db = new_db(with_table=False)
    _, called = call(lease, "init_db", db)
    got = columns(db)
    assert got == EXPECTED_COLUMNS, explain(
        called,
        got,
        en=f"table jobs with columns (name, type, not null, default, primary key) = {EXPECTED_COLUMNS}",
        ja=f"jobs テーブルの列 (名前, 型, NOT NULL, 既定値, 主キー) が {EXPECTED_COLUMNS} であること",
        want=EXPECTED_COLUMNS,
    )


@pytest.mark.clause("C1.1")
def test_a_row_inserted_with_only_an_id_gets_the_default_state(lease, new_db):
    db = new_db(with_table=False)
    _, called = call(lease, "init_db", db)
    seed(db, "job")
    got = row(db, "job")
    assert got == {"id": "job", **DEFAULT_ROW}, explain(
        then(called, "INSERT INTO jobs (id) VALUES ('job')"),
        got,
        en="owner NULL, until 0, fence 0, result NULL, done 0: a fresh job that nobody holds",
        ja="owner NULL、until 0、fence 0、result NULL、done 0 (まだ誰も持っていない新しいジョブ)",
    )


@pytest.mark.clause("C1.2")
def test_the_database_refuses_a_second_row_with_the_same_id(lease, new_db):
    db = new_db(with_table=False)
    _, called = call(lease, "init_db", db)
    seed(db, "job")
    try:
        seed(db, "job")
    except sqlite3.IntegrityError:
        return
    raise AssertionError(
        explain(
            then(
                called,
                words("INSERT INTO jobs (id) VALUES ('job') twice", "INSERT INTO jobs (id) VALUES ('job') を 2 回"),
            ),
            "two rows with id 'job'",
            en="id is the PRIMARY KEY, so the second insert raises sqlite3.IntegrityError",
            ja="id は PRIMARY KEY なので、2 回目の INSERT は sqlite3.IntegrityError になる",
        )
    )


@pytest.mark.clause("C1.3")
def test_a_second_init_db_raises_nothing_and_keeps_every_row(lease, new_db):
    db = new_db(with_table=False)
    call(lease, "init_db", db)
    seed(db, "leased", owner="A", until=15.0, fence=3)
    seed(db, "finished", owner="B", until=9.0, fence=7, result="ok", done=1)
    before = {job: row(db, job) for job in ("leased", "finished")}
    _, called = call(lease, "init_db", db)
    for job, was in before.items():
        now = row(db, job)
        assert now == was, explain(
            words(f"{called} on a database that already holds rows", f"行がすでにあるデータベースで {called}"),
            changes(was, now),
            en=f"row {job!r} exactly as before: a restart must not reset owners or fences",
            ja=f"行 {job!r} がそのまま残ること (再起動で owner や fence を初期化しない)",
        )


@pytest.mark.clause("C1.1")
def test_init_db_creates_the_table_named_exactly_jobs(lease, new_db):
    # SQLite finds JOBS for "jobs" in every query, but stores and lists the name as written.
    db = new_db(with_table=False)
    _, called = call(lease, "init_db", db)
    with closing(open_db(db)) as conn:
        names = [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
    assert names == ["jobs"], explain(
        called,
        names,
        en="exactly one table, named 'jobs' in lower case as the contract writes it",
        ja="テーブルは 1 つだけで、契約どおり小文字の 'jobs' という名前であること",
    )


# Generated: arbitrary inserts against the model of the contract (sequences.py, model.py).
test_step_1_random_inserts_and_restarts_keep_the_contract = model_check(1, "C1.1", "C1.2", "C1.3")
