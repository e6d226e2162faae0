"""The worker to copy (field/example/): its loop, its attempts and dead letter, its index, and the
folder copied out of the lab and run by a plain interpreter with the standard library alone.

In-process tests drive a fake clock; the copied folder runs under `python -I -S` (no site, so
neither the lab's venv nor its editable install can help), and its two processes meet at a
barrier made of their own pipes, never at a sleep."""

import select
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing

import pytest
from hang import HANGS_AFTER

from field.artifact import import_file, materialize
from field.example import fenced_store, jobs_db
from field.example.worker import Done, Worker
from lab import commands
from lab.model.course import LAB_ROOT

REFERENCE = LAB_ROOT / "solutions"
EXAMPLE = LAB_ROOT / "field" / "example"
TTL = 5.0
PLAIN = [sys.executable, "-I", "-S"]  # isolated and without site: the standard library alone


def row(db, job):
    """The job's row, read with plain sqlite3."""
    with closing(sqlite3.connect(db)) as conn:
        found = conn.execute("SELECT owner, until, fence, result, done FROM jobs WHERE id=?", (job,)).fetchone()
    return dict(zip(("owner", "until", "fence", "result", "done"), found))


def example_workers(tmp_path, jobs):
    lease = import_file(materialize(REFERENCE, "solutions", tmp_path))
    db, store = str(tmp_path / "jobs.db"), str(tmp_path / "effects.db")
    jobs_db.setup(lease, db)
    fenced_store.create(store)
    for job in jobs:
        lease.enqueue(db, job)
    clock = {"now": 0.0}

    def made(owner, max_attempts=3):
        send = lambda *effect: fenced_store.write(store, *effect)  # noqa: E731
        return Worker(lease, db, send, owner, ttl=TTL, clock=lambda: clock["now"], max_attempts=max_attempts)

    return lease, db, store, clock, made


def fails(job, keep_alive):
    raise RuntimeError("no mail server")


# The loop and its fenced side effect


def test_the_fenced_store_keeps_the_highest_fence_and_refuses_a_lower_one(tmp_path):
    store = str(tmp_path / "effects.db")
    fenced_store.create(store)
    assert fenced_store.write(store, "job-1", 2, "B's e-mail", "B") is True
    assert fenced_store.write(store, "job-1", 1, "A's e-mail", "A") is False
    assert fenced_store.write(store, "job-1", 2, "B's e-mail, again", "B") is True  # a retry of the same fence
    assert fenced_store.read(store, "job-1") == {"fence": 2, "value": "B's e-mail, again", "writer": "B"}
    assert fenced_store.read(store, "job-2") is None


def test_the_example_worker_picks_claims_renews_writes_its_effect_and_completes(tmp_path):
    lease, db, store, clock, made = example_workers(tmp_path, ["job-1", "job-2"])
    renewals = []

    def work(job, keep_alive):
        for _ in range(3):
            clock["now"] += 4.0  # each step takes most of a ttl: only the renewals keep the lease
            renewals.append(keep_alive())
        return f"sent for {job}"

    worker = made("host-a")
    assert worker.run_once(work) == Done("job-1", 1, 1, worked=True, effect=True, completed=True)
    assert worker.run_once(work) == Done("job-2", 1, 1, worked=True, effect=True, completed=True)
    assert worker.run_once(work) is None  # nothing left
    assert renewals == [True] * 6
    assert row(db, "job-1")["result"] == "sent for job-1" and fenced_store.read(store, "job-2")["fence"] == 1


def test_a_stalled_example_worker_is_refused_by_the_store_even_under_the_same_owner_name(tmp_path):
    lease, db, store, clock, made = example_workers(tmp_path, ["job-1"])
    stalled, fresh = made("host-a"), made("host-a")  # two processes of one host: one owner name
    job, fence, attempt = stalled.claim("job-1")
    clock["now"] = 6.0  # stalled past its ttl, between its last renewal and its side effect
    assert fresh.run_once(lambda job, keep_alive: "fresh e-mail") == Done("job-1", 2, 2, True, True, True)
    assert fenced_store.write(store, job, fence, "stale e-mail", "host-a") is False
    assert stalled.finish(job, fence, attempt, lambda job, keep_alive: "stale e-mail") == Done("job-1", 1, 1)
    assert fenced_store.read(store, "job-1")["value"] == "fresh e-mail" and row(db, "job-1")["fence"] == 2


# Attempts and the dead letter


def test_a_job_whose_work_always_fails_is_dead_after_exactly_max_attempts_claims_and_can_be_requeued(tmp_path):
    lease, db, store, clock, made = example_workers(tmp_path, ["job-1"])
    worker, error = made("host-a", max_attempts=3), "RuntimeError: no mail server"
    assert [worker.run_once(fails) for _ in range(4)] == [
        Done("job-1", 1, 1, error=error),  # released for the next claim, its fence kept
        Done("job-1", 2, 2, error=error),
        Done("job-1", 3, 3, error=error, dead=True),
        None,  # never handed out again
    ]
    assert row(db, "job-1") == {"owner": None, "until": float("inf"), "fence": 3, "result": None, "done": 0}
    assert lease.claim(db, "job-1", "host-b", 1e12, TTL) is None  # the artifact's own claim refuses it
    # the fence it died with opens nothing: no owner holds a dead job
    assert lease.complete(db, "job-1", "host-a", 3, 0.0, "late") is False
    assert lease.renew(db, "job-1", "host-a", 3, 0.0, TTL) is False
    assert jobs_db.dead_letters(db) == [{"id": "job-1", "attempts": 3, "fence": 3, "error": error}]

    assert jobs_db.requeue(db, "job-1") is True and jobs_db.requeue(db, "job-1") is False
    assert jobs_db.dead_letters(db) == []
    assert worker.run_once(lambda job, keep_alive: "sent at last") == Done("job-1", 4, 1, True, True, True)
    assert row(db, "job-1") == {"owner": "host-a", "until": TTL, "fence": 4, "result": "sent at last", "done": 1}


def test_claims_whose_leases_ran_out_are_attempts_and_the_next_worker_buries_the_job_without_claiming(tmp_path):
    lease, db, store, clock, made = example_workers(tmp_path, ["job-1"])
    crashed = []
    for n in range(3):  # three workers claim, then die without a word
        worker = made(f"host-{n}")
        crashed.append((worker, worker.claim("job-1")))
        clock["now"] += TTL
    assert [claimed for _, claimed in crashed] == [("job-1", 1, 1), ("job-1", 2, 2), ("job-1", 3, 3)]
    ran = []
    assert made("host-x").run_once(lambda job, keep_alive: ran.append(job)) == Done("job-1", 3, 3, dead=True)
    assert ran == [] and row(db, "job-1")["fence"] == 3 and row(db, "job-1")["until"] == float("inf")
    assert jobs_db.dead_letters(db) == [{"id": "job-1", "attempts": 3, "fence": 3, "error": None}]

    # re-queued by hand and done with fence 4; then the last crashed worker comes back
    assert jobs_db.requeue(db, "job-1") is True
    assert made("host-y").run_once(lambda job, keep_alive: "fresh e-mail") == Done("job-1", 4, 1, True, True, True)
    late, (job, fence, attempt) = crashed[-1]
    assert late.finish(job, fence, attempt, lambda job, keep_alive: "late e-mail") == Done("job-1", 3, 3)
    assert fenced_store.write(store, "job-1", 3, "late e-mail", "host-2") is False
    assert lease.complete(db, "job-1", "host-2", 3, clock["now"], "late e-mail") is False
    assert fenced_store.read(store, "job-1")["value"] == "fresh e-mail" and row(db, "job-1")["result"] == "fresh e-mail"


def test_a_claim_past_the_limit_from_a_stale_list_of_free_jobs_is_buried_unrun(tmp_path):
    """The one way past max_attempts: the list of free jobs was read, another worker took the last
    attempt and its lease ran out, then this worker's claim won. It never runs the work."""
    lease, db, store, clock, made = example_workers(tmp_path, ["job-1"])
    assert made("host-a", max_attempts=1).claim("job-1") == ("job-1", 1, 1)
    clock["now"] = TTL
    assert made("host-b", max_attempts=1).claim("job-1") is None  # as if picked from a list read before
    assert row(db, "job-1") == {"owner": None, "until": float("inf"), "fence": 2, "result": None, "done": 0}


def test_max_attempts_below_one_is_refused():
    with pytest.raises(ValueError, match="max_attempts must be at least 1, got 0"):
        Worker(None, "jobs.db", None, "host-a", TTL, max_attempts=0)


# The index


def plan(db):
    with closing(sqlite3.connect(db)) as conn:
        return [step[3] for step in conn.execute("EXPLAIN QUERY PLAN " + jobs_db.FREE, (100.0, 8))]


def test_picking_the_next_job_searches_the_partial_index_instead_of_scanning_and_sorting_every_job(tmp_path):
    lease = import_file(materialize(REFERENCE, "solutions", tmp_path))
    db = str(tmp_path / "jobs.db")
    jobs_db.setup(lease, db)
    with closing(sqlite3.connect(db)) as conn, conn:  # a queue long in service: mostly done jobs
        conn.executemany(
            "INSERT INTO jobs (id, until, fence, done) VALUES (?, 1, 1, 1)", [(f"d{n}",) for n in range(2000)]
        )
        conn.executemany("INSERT INTO jobs (id, until) VALUES (?, ?)", [("late", 50.0), ("new", 0.0), ("busy", 500.0)])
        conn.execute("ANALYZE")
    assert plan(db) == [
        "SEARCH j USING INDEX jobs_free (until<?)",
        "SEARCH a USING INDEX sqlite_autoindex_attempts_1 (id=?) LEFT-JOIN",
    ]
    assert jobs_db.free(db, 100.0, 8) == [("new", 0, 0), ("late", 0, 0)]  # the longest free first
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("DROP INDEX jobs_free")
    assert plan(db)[0] == "SCAN j" and "USE TEMP B-TREE FOR ORDER BY" in plan(db)


# The folder copied out of the lab

# The test's work.py: the shipped work() once per job, and a log line for each time the work runs.
# Each process holds its first job until the test has seen both processes hold one.
BARRIER_WORK = """\
import sys
from pathlib import Path

from shipped_work import work as shipped

held = []


def work(job, keep_alive):
    with open(Path(__file__).with_name("worked.log"), "a") as log:
        log.write(job + "\\n")
    if not held:
        held.append(job)
        print("holding", job, flush=True)
        sys.stdin.readline()
    return shipped(job, keep_alive)
"""


@pytest.fixture
def copied(tmp_path):
    """field/example/ copied out of the lab, with the reference as its lease.py, as docs/field.md says."""
    folder = tmp_path / "myworker"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    assert commands.main(["artifact", "--impl", "solutions", "--out", str(folder / "lease.py")]) == 0
    return folder


def plain(folder, *arguments):
    return subprocess.run(
        [*PLAIN, folder.name, *arguments], cwd=folder.parent, capture_output=True, text=True, timeout=HANGS_AFTER
    )


def test_the_copied_folder_runs_two_worker_processes_with_the_standard_library_alone(copied):
    bare = subprocess.run(
        [*PLAIN, "-c", "import lab"], cwd=copied.parent, capture_output=True, text=True, timeout=HANGS_AFTER
    )
    assert "No module named 'lab'" in bare.stderr  # the interpreter as these tests run it cannot reach the lab
    (copied / "work.py").rename(copied / "shipped_work.py")
    (copied / "work.py").write_text(BARRIER_WORK, encoding="utf-8")
    jobs = [f"job-{n:02}" for n in range(16)]
    assert plain(copied, "init").returncode == 0 and plain(copied, "enqueue", *jobs).returncode == 0

    workers = {
        name: subprocess.Popen(
            [*PLAIN, copied.name, "run", "--owner", name, "--drain"],
            cwd=copied.parent,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,  # unbuffered: reading the first line leaves the rest in the pipe for communicate
        )
        for name in ("A", "B")
    }
    try:
        held = {name: first_line(process) for name, process in workers.items()}
        for process in workers.values():
            process.stdin.write(b"go\n")
        finished = {name: process.communicate(timeout=HANGS_AFTER) for name, process in workers.items()}
    finally:
        for process in workers.values():
            process.kill()
    assert held["A"].startswith("holding job-") and held["B"].startswith("holding job-") and held["A"] != held["B"]
    assert [(process.returncode, finished[name][1]) for name, process in workers.items()] == [(0, b""), (0, b"")]

    did = {name: finished[name][0].decode().splitlines() for name in workers}
    by = {line.split()[1]: name for name, lines in did.items() for line in lines}
    assert all(line == f"{name}: {line.split()[1]} done (attempt 1, fence 1)" for name in did for line in did[name])
    assert sorted(by) == jobs and sum(map(len, did.values())) == len(jobs) and all(did.values())
    assert sorted((copied / "worked.log").read_text().split()) == jobs  # each job's work ran once
    for job in jobs:
        stored = row(str(copied.parent / "jobs.db"), job)
        del stored["until"]  # the wall clock's
        assert stored == {"owner": by[job], "fence": 1, "result": f"e-mail for {job}", "done": 1}
        assert fenced_store.read(str(copied.parent / "effects.db"), job) == {
            "fence": 1,
            "value": f"e-mail for {job}",
            "writer": by[job],
        }


def first_line(process, seconds=30):
    """The process's first line of output, or a failed test if none comes within seconds."""
    ready, _, _ = select.select([process.stdout], [], [], seconds)
    assert ready, f"no line from the worker within {seconds} s"
    return process.stdout.readline().decode().strip()


def test_the_copied_worker_lists_a_failing_job_in_the_dead_letter_and_requeues_it(copied):
    shipped = (copied / "work.py").read_text(encoding="utf-8")
    (copied / "work.py").write_text('def work(job, keep_alive):\n    raise RuntimeError("no mail server")\n')
    assert plain(copied, "init").returncode == 0 and plain(copied, "enqueue", "job-1").returncode == 0
    ran = plain(copied, "run", "--owner", "A", "--drain", "--max-attempts", "2")
    assert ran.stdout.splitlines() == [
        "A: job-1 failed (attempt 1 of 2, fence 1): RuntimeError: no mail server",
        "A: job-1 failed (attempt 2 of 2, fence 2): RuntimeError: no mail server, moved to the dead letter",
    ]
    assert plain(copied, "dead").stdout == "job-1: 2 attempts, fence 2, last error: RuntimeError: no mail server\n"

    (copied / "work.py").write_text(shipped, encoding="utf-8")  # the cause fixed
    assert plain(copied, "requeue", "job-1").returncode == 0
    again = plain(copied, "requeue", "job-1")
    assert (again.returncode, again.stderr) == (1, "job-1 is not in the dead letter\n")
    assert plain(copied, "dead").stdout == ""
    assert plain(copied, "run", "--owner", "B", "--drain").stdout == "B: job-1 done (attempt 1, fence 3)\n"


def test_inside_the_lab_the_same_command_runs_as_a_package(copied):
    assert plain(copied, "init").returncode == 0 and plain(copied, "enqueue", "job-1").returncode == 0
    arguments = ["--lease", str(copied / "lease.py"), "--db", str(copied.parent / "jobs.db"), "--store", "effects.db"]
    ran = subprocess.run(
        [sys.executable, "-m", "field.example", *arguments, "run", "--owner", "L", "--drain"],
        cwd=copied.parent,
        capture_output=True,
        text=True,
        timeout=HANGS_AFTER,
    )
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "L: job-1 done (attempt 1, fence 1)\n", "")
