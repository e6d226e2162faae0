"""The learner process and its channel (lab/sandbox/): what learner code can see, do and send back.

Each test starts a learner process the way the checks do, loads a small file into it and calls
it; the assertions read real return values, exceptions and the machine's process table.
"""

import os
import resource
import sqlite3
import time
import uuid
from types import SimpleNamespace

import pytest

from lab.model.course import LAB_ROOT
from lab.model.implementation import Implementation, SourceFile
from lab.model.outcomes import LearnerProcessLost
from lab.process import LEARNER
from lab.sandbox import confinement
from lab.sandbox.channel import LearnerProcess
from lab.sandbox.loading import load
from lab.sandbox.remote import RemoteModule
from lab.sandbox.values import Opaque

CONFINED = confinement.available()


def start(tmp_path, text, confined=CONFINED):
    """A learner process with `text` loaded as the only file; its module as the checks see it."""
    settings = SimpleNamespace(scratch=str(tmp_path), confined=confined, time_limit=5.0, lang="en")
    process = LearnerProcess(str(tmp_path), confined)
    source = tmp_path / "learner.py"
    implementation = Implementation("learner", (SourceFile((1,), source, text),))
    loaded, functions, _ = load(process, implementation, {}, settings)
    return process, RemoteModule(process, functions, loaded, settings)


@pytest.fixture
def scratch(tmp_path):
    folder = tmp_path / "scratch"
    folder.mkdir()
    return folder


def test_bubblewrap_confines_learner_processes_on_this_machine():
    # The grading machines (CI included) install bubblewrap: without it check-class refuses.
    assert CONFINED, "bubblewrap is missing or cannot make a sandbox: apt-get install bubblewrap"


def test_the_confined_process_sees_no_lab_no_host_shm_and_runs_as_an_unprivileged_user(scratch):
    process, lease = start(
        scratch,
        f"""
import os, resource
def look():
    return (os.path.exists({str(LAB_ROOT)!r}), os.listdir("/dev/shm"), os.getuid(),
            resource.getrlimit(resource.RLIMIT_AS), resource.getrlimit(resource.RLIMIT_FSIZE), os.getcwd())
""",
    )
    try:
        lab_seen, shm, uid, memory, file_size, cwd = lease.look()
    finally:
        process.kill()
    assert (lab_seen, shm, uid) == (False, [], 65534)
    assert memory == (LEARNER.memory, LEARNER.memory)
    assert file_size == (LEARNER.file_size, LEARNER.file_size)
    assert cwd == str(scratch)


def test_the_confined_process_has_no_network_and_cannot_write_outside_its_scratch_folder(scratch):
    process, lease = start(
        scratch,
        """
import socket
def reach(path):
    outcomes = []
    try:
        socket.create_connection(("127.0.0.1", 22), timeout=1)
        outcomes.append("connected")
    except OSError as error:
        outcomes.append(type(error).__name__)
    try:
        open(path, "w").write("x")
        outcomes.append("written")
    except OSError as error:
        outcomes.append(type(error).__name__)
    return outcomes
""",
    )
    target = LAB_ROOT / "build" / f"sandbox-{uuid.uuid4().hex}"
    try:
        network, write = lease.reach(str(target))
    finally:
        process.kill()
    assert network != "connected" and write != "written"
    assert not target.exists()


def test_an_object_that_equals_everything_comes_back_equal_to_nothing(scratch):
    process, lease = start(
        scratch,
        """
class Yes:
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
def claim(path, job_id, owner, now, ttl):
    return Yes()
def state(path, job_id):
    return (1, "A", Yes(), [True, b"x"], {"k": 2.5})
""",
    )
    try:
        answer, stored = lease.claim("db", "job", "A", 10.0, 5.0), lease.state("db", "job")
    finally:
        process.kill()
    assert isinstance(answer, Opaque) and answer != 1 and answer != answer.text
    assert stored[:2] == (1, "A") and isinstance(stored[2], Opaque)
    assert stored[3:] == ([True, b"x"], {"k": 2.5})


def test_exceptions_come_back_as_their_nearest_built_in_or_sqlite3_class_with_the_learners_line(scratch):
    process, lease = start(
        scratch,
        """
import sqlite3
class BadTtl(ValueError):
    pass
def claim(path, job_id, owner, now, ttl):
    raise BadTtl("ttl must be positive")
def enqueue(path, job_id):
    raise sqlite3.IntegrityError("UNIQUE constraint failed: jobs.id")
def release(path, job_id, owner, fence):
    raise SystemExit(3)
""",
    )
    try:
        with pytest.raises(ValueError, match="ttl must be positive") as bad_ttl:
            lease.claim("db", "job", "A", 10.0, 0)
        with pytest.raises(sqlite3.IntegrityError):
            lease.enqueue("db", "job")
        with pytest.raises(Exception) as exited:
            lease.release("db", "job", "A", 1)
    finally:
        process.kill()
    assert type(bad_ttl.value).__name__ == "BadTtl" and bad_ttl.value.lab_where[1] == 6
    assert type(exited.value).__name__ == "SystemExit" and not isinstance(exited.value, SystemExit)


def test_an_answer_larger_than_the_cap_ends_the_process_not_the_grader(scratch):
    process, lease = start(scratch, "def state(path, job_id):\n    return 'x' * (3 << 20)\n")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(LearnerProcessLost, match="more than 1 MB"):
        lease.state("db", "job")
    assert not process.alive
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 64 * 1024  # KiB


def test_a_process_that_ends_itself_is_reported_with_its_exit_status(scratch):
    process, lease = start(scratch, "import os\ndef state(path, job_id):\n    os._exit(7)\n")
    with pytest.raises(LearnerProcessLost, match="exit status 7"):
        lease.state("db", "job")


def test_everything_the_learner_process_started_ends_with_it(scratch):
    marker = f"LEASE-LAB-SANDBOX-{uuid.uuid4().hex}"
    process, lease = start(
        scratch,
        f"""
import os, subprocess, sys
def claim(path, job_id, owner, now, ttl):
    for _ in range(3):
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", {marker!r}])
            os._exit(0)
    return 1
""",
    )
    assert lease.claim("db", "job", "A", 10.0, 5.0) == 1
    assert _waited_for(lambda: len(_running(marker)) == 3), "the daemons did not start: the test would prove nothing"
    process.kill()
    assert _waited_for(lambda: not _running(marker))


def test_the_number_of_processes_and_threads_is_capped(scratch):
    process, lease = start(
        scratch,
        """
import threading, time
def claim(path, job_id, owner, now, ttl):
    started = 0
    try:
        for _ in range(2000):
            threading.Thread(target=time.sleep, args=(5,), daemon=True).start()
            started += 1
    except RuntimeError:
        pass
    return started
""",
    )
    try:
        started = lease.claim("db", "job", "A", 10.0, 5.0)
    finally:
        process.kill()
    assert started < LEARNER.processes


def test_unconfined_learner_processes_work_the_same_way(scratch):
    process, lease = start(scratch, "def state(path, job_id):\n    return (path, job_id)\n", confined=False)
    try:
        assert lease.state("db", "job") == ("db", "job")
    finally:
        process.kill()


def _waited_for(condition, seconds=3.0):
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    return condition()


def _running(marker):
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if marker.encode() in handle.read():
                    found.append(pid)
        except OSError:
            pass
    return found


def test_check_class_refuses_to_grade_without_confinement_and_says_what_to_install(tmp_path, monkeypatch, capsys):
    from lab import commands

    monkeypatch.setattr(confinement, "available", lambda: False)
    (tmp_path / "learner").mkdir()
    assert commands.main(["class", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert "apt-get install bubblewrap" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_learners_own_check_runs_unconfined_without_bubblewrap_and_says_so_in_one_line(monkeypatch, capsys):
    from lab import commands

    monkeypatch.setattr(confinement, "available", lambda: False)
    assert commands.main(["check", "1", "--impl", "solutions", "--no-mutants"]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "bubblewrap" in line]
    assert notes == [
        "note: bubblewrap is not installed, so your code runs unconfined (fine on your own machine; graders use it)"
    ]
