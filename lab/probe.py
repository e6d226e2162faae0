"""Run a learner's files once, in a throwaway process, to find the ones that never come back.

A file whose top level loops forever, waits on a lock or ends the process (``os._exit``, a
crash) would otherwise cost every check of every later step its whole time limit or a new
child process. The probe finds such files before the checks start; the checks' loader then
reports them once per check without running them again.

``python -m lab.probe IMPL EVENTS SKIP``: runs every file in course order, except the steps in
SKIP (comma-separated), and appends a JSON line to EVENTS before and after each file.
"""

import json
import os
import subprocess
import sys
import time
import types

from lab.course import LAB_ROOT
from lab.implementation import SHOWN_FROM, display_path, execute, read
from lab.messages import say


def find_problems(impl, time_limit, workdir, lang="en"):
    """(step, message) for every file of impl that hangs or ends the process when it runs."""
    problems = {}
    for attempt in range(1, 100):
        events = workdir / f"probe-{attempt}.jsonl"
        skip = ",".join(str(step) for step in problems)
        child = subprocess.Popen(
            [sys.executable, "-m", "lab.probe", str(impl), str(events), skip],
            cwd=workdir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=child_environment(workdir), start_new_session=True,
        )
        hung = _wait(child, events, time_limit)
        running = _unfinished(events)
        if running is None:
            break
        steps, shown = running
        key, values = ("load_hung", {"limit": time_limit}) if hung else ("load_died", {"code": child.returncode})
        for step in steps:
            problems[step] = say(key, lang, file=shown, **values)
    return tuple(problems.items())


def child_environment(workdir):
    """A child's environment: the lab importable, temporary files in workdir, paths shown as
    the learner typed them though the child's working folder is the scratch folder workdir."""
    # No pytest plugins from the environment's entry points: only the lab's own take part (and
    # the start is a tenth of a second faster).
    env = {**os.environ, "TMPDIR": str(workdir), "PYTHONDONTWRITEBYTECODE": "1", SHOWN_FROM: os.getcwd(), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(LAB_ROOT), env.get("PYTHONPATH")]))
    return env


def _wait(child, events, time_limit):
    """Wait for the probe; kill it when one file runs longer than the time limit."""
    last_progress, seen = time.monotonic(), 0
    while child.poll() is None:
        time.sleep(0.02)
        size = events.stat().st_size if events.exists() else 0
        if size != seen:
            last_progress, seen = time.monotonic(), size
        elif time.monotonic() - last_progress > time_limit:
            os.killpg(child.pid, 9)
            child.wait()
            return True
    return False


def _unfinished(events):
    """(steps, shown path) of the file that started and never finished, or None."""
    running = None
    lines = events.read_text(encoding="utf-8").splitlines() if events.exists() else []
    for event in (json.loads(line) for line in lines if line.endswith("}")):
        running = (event["steps"], event["file"]) if event["event"] == "start" else None
    return running


def main(impl, events_path, skip):
    skipped = {int(step) for step in skip.split(",") if step}
    module = types.ModuleType("lease")
    devnull = open(os.devnull, "w")  # noqa: SIM115 - the learner's output goes nowhere
    sys.stdout = sys.stderr = devnull
    with open(events_path, "a", encoding="utf-8") as events:
        for file in read(impl).files:
            if file.text is None or skipped & set(file.steps):
                continue
            shown = display_path(file.path)
            events.write(json.dumps({"event": "start", "steps": list(file.steps), "file": shown}) + "\n")
            events.flush()
            execute(file.text, str(file.path), shown, module)
            events.write(json.dumps({"event": "done"}) + "\n")
            events.flush()
    os._exit(0)  # threads the learner's files started must not keep the probe alive


if __name__ == "__main__":
    main(*sys.argv[1:4])
