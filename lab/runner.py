"""Run the checks against targets in child processes, and collect one result per check and target.

A child runs pytest with the recorder plugin and appends JSON lines as it goes. The parent
watches: when a child dies in the middle of a check (``os._exit``, a crash) or hangs past the
time limit where the in-process alarm cannot reach (a deadlock in C code), the parent records
that check as crashed or timed out and starts a new child for the checks still to run.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from lab.course import LAB_ROOT
from lab.targets import Plan

CHECKS_DIR = LAB_ROOT / "checks"
GRACE = 5.0  # seconds past the time limit before the parent kills a hung child


class LabBroken(Exception):
    """The checks themselves could not run: a bug in the lab, not in the code under test."""


@dataclass
class Result:
    nodeid: str
    check: str
    target: str
    step: int
    clauses: list
    status: str  # passed, failed, error, not_implemented, timeout, crashed
    message: str
    duration: float


def run(targets, time_limit=10.0, lang="en"):
    """Every check of every target, in collection order."""
    workdir = Path(tempfile.mkdtemp(prefix="lease-lab-", dir=_fast_tmp()))
    try:
        return _run_until_settled(targets, time_limit, lang, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _fast_tmp():
    """Databases go to memory-backed /dev/shm where there is one: commits there cost no fsync."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def _run_until_settled(targets, time_limit, lang, workdir):
    results, checks, skip = {}, {}, []
    for attempt in range(1, 1000):
        events = workdir / f"events-{attempt}.jsonl"
        plan = Plan([asdict(t) for t in targets], str(events), skip, time_limit, lang)
        plan_path = workdir / f"plan-{attempt}.json"
        plan.dump(plan_path)
        outcome = _run_child(plan_path, events, workdir, time_limit)
        started = None
        for event in _read(events):
            if event["event"] == "collected" and not checks:
                checks = {item["nodeid"]: item for item in event["items"]}
            elif event["event"] == "start":
                started = event["nodeid"]
            elif event["event"] == "result":
                results[event["nodeid"]] = Result(**{k: v for k, v in event.items() if k != "event"})
                started = None
        if not checks and outcome.returncode not in (0, 1):
            raise LabBroken(f"the checks could not start (pytest exit {outcome.returncode}):\n{outcome.stderr}")
        if started is None or started in results:
            break
        results[started] = _lost(checks[started], outcome, time_limit)
        skip = list(results)
    return [results[nodeid] for nodeid in checks if nodeid in results]


@dataclass
class ChildOutcome:
    returncode: int
    hung: bool
    stderr: str


def _run_child(plan_path, events, workdir, time_limit):
    """Run one child until it ends, or kill it when one check runs far past the time limit."""
    stderr_path = workdir / "stderr.txt"
    env = {**os.environ, "TMPDIR": str(workdir), "PYTHONDONTWRITEBYTECODE": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(LAB_ROOT), env.get("PYTHONPATH")]))
    with open(stderr_path, "w") as stderr:
        child = subprocess.Popen(
            [sys.executable, "-m", "lab.child", str(plan_path), str(CHECKS_DIR)],
            cwd=LAB_ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
            env=env, start_new_session=True,
        )
        hung = _watch(child, events, time_limit)
    return ChildOutcome(child.returncode, hung, stderr_path.read_text(errors="replace")[-4000:])


def _watch(child, events, time_limit):
    """Wait for the child; kill its whole process group if one check outlives limit + grace."""
    last_progress, seen = time.monotonic(), 0
    while child.poll() is None:
        time.sleep(0.05)
        size = events.stat().st_size if events.exists() else 0
        if size != seen:
            last_progress, seen = time.monotonic(), size
        elif time.monotonic() - last_progress > time_limit + GRACE:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            return True
    return False


def _read(events):
    if not events.exists():
        return []
    lines = events.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.endswith("}")]


def _lost(check, outcome, time_limit):
    """The result of a check during which the child process died or hung."""
    if outcome.hung:
        status, message = "timeout", f"did not finish within {time_limit:g} s and could not be interrupted (a deadlock?)"
    else:
        status = "crashed"
        message = (
            f"the process running this check ended (exit status {outcome.returncode}): "
            "sys.exit(), os._exit() or a crash in the code under test?"
        )
    return Result(**check, status=status, message=message, duration=0.0)
