"""`make watch` keeps its next check ready (lab/learner/next_check.py, lab/running/spare.py):
the same report as `make check-step`, the files as saved at the save, nothing reachable by the
learner's code, and nothing left behind.

Each test works on a checkout of its own in tmp_path (root/steps), never on this lab's steps/.
"""

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lab.learner import next_check
from lab.learner.next_check import NextCheck
from lab.model.course import LAB_ROOT, load_course
from lab.model.implementation import STEP_FILE
from lab.model.pristine import stub_text, write_stubs
from lab.process import PIDS_HIERARCHY
from lab.running import runner, spare
from lab.sandbox import confinement

pytestmark = pytest.mark.e2e
COURSE = load_course()
STEP1 = COURSE[0]
PASSES = "All checks of step(s) 1-3 pass."


@pytest.fixture
def checkout(tmp_path):
    """A learner's checkout: steps 1-3 done with the reference, 4-8 still stubs."""
    write_stubs(tmp_path / "steps")
    for step in COURSE[:3]:
        reference(tmp_path, step)
    return tmp_path


def reference(root, step):
    shutil.copy(LAB_ROOT / "solutions" / step.dir / STEP_FILE, root / "steps" / step.dir / STEP_FILE)


def ready_check(root, report, arguments=("3", "--no-mutants")):
    """A next check of `arguments`, ready (its checks' child waiting for its plan); its report goes to `report`."""
    upcoming = NextCheck(list(arguments), root, stdout=report.open("w"))
    assert upcoming.wait_until_ready(), "the next check did not get ready"
    return upcoming


def descendants(pid):
    """Every living process below pid (from /proc's children lists), zombies included."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
            found += children
            todo += children
    return found


def alive(pid):
    """Whether pid is a process that has not ended (a zombie has ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def commands_of(pids):
    return [Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode() for pid in pids if alive(pid)]


def test_bubblewrap_confines_the_checks_here():
    assert confinement.available(), "bubblewrap is missing or cannot make a sandbox: apt-get install bubblewrap"


def test_the_watch_shows_the_report_make_check_step_shows_for_the_same_code(checkout, tmp_path):
    # Both check every check (--fresh): the second would otherwise reuse the first's verdicts, and say so.
    cold = subprocess.run(
        [sys.executable, "-m", "lab", "check", "3", "--no-mutants", "--fresh"],
        cwd=checkout,
        capture_output=True,
        text=True,
    )
    upcoming = ready_check(checkout, tmp_path / "warm.txt", ("3", "--no-mutants", "--fresh"))
    upcoming.run()
    assert upcoming.process.returncode == cold.returncode == 0
    assert (tmp_path / "warm.txt").read_text() == cold.stdout and PASSES in cold.stdout


def test_a_run_checks_the_files_as_saved_at_the_save_not_at_the_start_of_its_process(checkout, tmp_path):
    step_file = checkout / "steps" / STEP1.dir / STEP_FILE
    step_file.write_text(stub_text(STEP1))  # when the next check starts, step 1 is a stub
    upcoming = ready_check(checkout, tmp_path / "report.txt")
    reference(checkout, STEP1)  # the save
    upcoming.run()
    assert upcoming.process.returncode == 0 and PASSES in (tmp_path / "report.txt").read_text()
    # and the other way: ready while step 1 passes, a stub saved
    upcoming = ready_check(checkout, tmp_path / "report.txt")
    step_file.write_text(stub_text(STEP1))
    upcoming.run()
    assert upcoming.process.returncode == 1 and PASSES not in (tmp_path / "report.txt").read_text()


# A step 1 that, in every learner process it runs in (at its import and at every call), signals
# every process it can see or name and writes into every /proc/<pid>/ it finds, and then creates
# no table: the next run's ready check must not notice.
ATTACK = """
import os, signal

def _everything():
    seen = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    for pid in seen:
        for name in ("oom_score_adj", "comm", "attr/current"):
            try:
                with open(f"/proc/{pid}/{name}", "w") as proc:
                    proc.write("1000")
            except OSError:
                pass
    for pid in range(2, 1 << 16):
        if pid != os.getpid():
            for sig in (signal.SIGSTOP, signal.SIGKILL):
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass

_everything()


def init_db(path):
    _everything()
"""


def test_learner_code_cannot_reach_the_next_runs_ready_check(checkout, tmp_path):
    step_file = checkout / "steps" / STEP1.dir / STEP_FILE
    reference_text = step_file.read_text()
    step_file.write_text(reference_text + ATTACK)
    # Its learner processes stop one another, so its checks end only at their time limit: a short
    # one, as the point here is what the attack reaches, not how long it takes.
    attacked = ready_check(checkout, tmp_path / "attacked.txt", ("1", "--no-mutants", "--time-limit", "2"))
    following = ready_check(checkout, tmp_path / "following.txt")
    waiting = [following.process.pid, *descendants(following.process.pid)]
    assert any("bwrap" in command for command in commands_of(waiting))  # its checks' child, in its sandbox
    attacked.run()
    # The attack ran: its init_db, which creates no table, fails its checks.
    assert attacked.process.returncode == 1 and "C1.1" in (tmp_path / "attacked.txt").read_text()
    assert all(alive(pid) for pid in waiting), commands_of(waiting)
    assert all(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "T" for pid in waiting)
    step_file.write_text(reference_text)
    following.run()
    assert following.process.returncode == 0 and PASSES in (tmp_path / "following.txt").read_text()


# The watcher, which writes where each of its threads is to argv[2] on SIGUSR1: a watcher that does
# not stop after Ctrl-C shows where it waits. It takes Ctrl-C as it does in a terminal, whatever this
# test was started from: a shell starts a command put in the background (`make test &` in a script)
# with SIGINT ignored, its children inherit that, and Python then leaves SIGINT ignored.
WATCHING = """
import faulthandler, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
faulthandler.register(signal.SIGUSR1, file=open(sys.argv[2], "w"), all_threads=True)
from pathlib import Path
from lab.learner.watch import watch
from lab.model.course import load_course
watch(load_course()[0], ["--no-mutants"], "en", Path(sys.argv[1]))
"""


def test_ctrl_c_ends_the_waiting_check_and_its_sandbox_with_nothing_left(checkout, tmp_path):
    stacks = tmp_path / "stacks.txt"
    watcher = subprocess.Popen(
        [sys.executable, "-c", WATCHING, str(checkout), str(stacks)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        first = _waiting_checks(watcher.pid)  # the next check of the first run, started at once
        lines = iter(watcher.stdout.readline, "")
        assert any("All checks of step(s) 1 pass." in line for line in lines)  # the first run ended
        waiting = _ready_descendants(watcher.pid, first)
        os.kill(watcher.pid, signal.SIGINT)  # as the terminal sends Ctrl-C
        try:
            stopped = watcher.wait(timeout=30)
        except subprocess.TimeoutExpired:
            signals = [line for line in Path(f"/proc/{watcher.pid}/status").read_text().splitlines() if "Sig" in line]
            os.kill(watcher.pid, signal.SIGUSR1)
            time.sleep(1)
            raise AssertionError(f"still watching 30 s after Ctrl-C, {signals}, at:\n{stacks.read_text()}") from None
        assert stopped == 0
        assert "Stopped watching." in watcher.stdout.read()
    finally:
        if watcher.poll() is None:
            os.killpg(watcher.pid, signal.SIGKILL)
            watcher.wait()
    assert [pid for pid in waiting if alive(pid)] == []  # no orphan, no zombie
    assert [g for pid in waiting for g in PIDS_HIERARCHY.glob(f"lease-lab-{pid}-*")] == []


def _waiting_checks(pid, within=60):
    """The pids of the watcher's next checks (lab/commands/waiting_check.py) once there is one."""
    ends = time.monotonic() + within
    while time.monotonic() < ends:
        found = [p for p in descendants(pid) if next_check.PROCESS in "".join(commands_of([p]))]
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("the watcher started no next check")


def _ready_descendants(pid, earlier, within=60):
    """The processes below the watcher once the next check started after the `earlier` ones waits,
    its checks' child ready in its sandbox: Ctrl-C then reaches the watcher as it waits for a save,
    never while the first run's process still ends (its own spare child waits too)."""
    ends = time.monotonic() + within
    while time.monotonic() < ends:
        later = [p for p in _waiting_checks(pid) if p not in earlier]
        if later and any("--wait" in command for command in commands_of(descendants(later[0]))):
            return descendants(pid)
        time.sleep(0.1)
    raise AssertionError("no next check got ready")


def test_a_next_check_that_waited_too_long_is_no_longer_waiting_and_ends_cleanly(checkout, monkeypatch):
    upcoming = NextCheck(["1"], checkout, stdout=subprocess.DEVNULL)
    assert upcoming.waiting()
    monkeypatch.setattr(next_check, "WAITS_AT_MOST", 0.0)
    assert not upcoming.waiting()  # the watcher replaces it
    upcoming.end()
    assert upcoming.process.returncode == 0  # it ended itself: its stdin closed before any save


def test_a_run_of_another_kind_leaves_the_spares_to_their_runs_and_discard_ends_them(tmp_path):
    runner.prestart(children=2)
    assert spare.wait_until_ready()
    waiting = [ready.started.process for ready in spare._spares]
    other = runner._Child(confinement.available(), (str(tmp_path),), "lab.running.child")
    assert spare.take(other) is None and len(spare._spares) == 2  # a prediction's run, say, starts its own
    mine = spare._spares[0].kind
    taken = spare.take(mine)
    assert taken is not None and taken.started.process is waiting[0] and len(spare._spares) == 1
    taken.end()
    spare.discard()
    assert all(w.returncode is not None for w in waiting) and not spare._spares
