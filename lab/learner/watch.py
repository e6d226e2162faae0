"""`make watch N`: check step N again whenever a file of the learner's steps changes.

watchfiles (maintained by the pydantic team, Rust-backed, on every platform) waits for the
changes; each run is `python -m lab check N` in a child process, so nothing the code under test
does can stop the watching, and the screen is cleared before each run; its first line says when it
ran and which save started it. Ctrl-C stops with one line:
the check runs in a session of its own, so the terminal's Ctrl-C reaches only the watcher, which
then interrupts the check and drops what the interrupted check wrote to stderr (its traceback).
"""

import os
import signal
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

from lab.model.course import LAB_ROOT
from lab.model.status import ExitStatus
from lab.process import spawn
from lab.store import shown
from lab.text.messages import words_of

CLEAR = "\033[2J\033[H"
WATCHED = (".py", ".md")
INTERRUPTED_CHECK_ENDS = 10  # seconds a check interrupted by Ctrl-C has to clean up before it is ended


def watch(step, check_arguments=(), lang="en", root=LAB_ROOT, changes=None, out=None):
    """Run the check now, then after every batch of changes; 0 after Ctrl-C.

    changes: an iterable of change sets (tests pass their own); default watchfiles.watch.
    """
    out = out or sys.stdout
    folder = root / "steps"
    try:
        if changes is None:
            import watchfiles  # imported only here: nothing else needs it

            changes = watchfiles.watch(
                folder, watch_filter=lambda _, path: path.endswith(WATCHED), raise_interrupt=True
            )
        _run(step, check_arguments, lang, folder, root, out, started_by=None)
        for batch in changes:
            _run(step, check_arguments, lang, folder, root, out, started_by=batch)
    except KeyboardInterrupt:
        out.write("\n" + words_of("learner", lang)("watch_stopped") + "\n")
    return ExitStatus.ALL_PASS


def _run(step, check_arguments, lang, folder, root, out, started_by):
    out.write(CLEAR + run_line(step, lang, root, started_by) + "\n")
    out.flush()
    command = [sys.executable, "-m", "lab", "check", str(step.number), "--lang", lang, *check_arguments]
    run_check(command, root)


def run_line(step, lang, root, started_by, now=None):
    """When this run began and what started it: the start of watching, or the files just saved."""
    words, time = words_of("learner", lang), (now or datetime.now()).strftime("%H:%M:%S")
    saved = sorted({shown(Path(path), root) for _, path in started_by or ()})
    if not saved:
        return words("watch_started", time=time, n=step.number)
    more = len(saved) - 2
    files = words("separator").join(saved[:2]) + (words("watch_more", count=more) if more > 0 else "")
    return words("watch_saved", time=time, n=step.number, files=files)


def run_check(command, root):
    """Run one check to its end, its stderr shown after it; on Ctrl-C, interrupt it quietly."""
    with tempfile.TemporaryFile() as stderr:
        child = spawn(command, cwd=root, stderr=stderr)
        try:
            child.wait()
        except KeyboardInterrupt:
            os.kill(child.pid, signal.SIGINT)  # its own clean-up runs: scratch folders are removed
            try:
                child.wait(timeout=INTERRUPTED_CHECK_ENDS)
            except subprocess.TimeoutExpired:
                child.end()
            raise
        stderr.seek(0)
        sys.stderr.write(stderr.read().decode(errors="replace"))
