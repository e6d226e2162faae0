"""`make watch N`: check step N again whenever a file of the learner's steps changes.

watchfiles (maintained by the pydantic team, Rust-backed, on every platform) waits for the
changes; each run is `python -m lab check N` in a process of its own, so nothing the code under
test does can stop the watching, and the screen is cleared before each run; its first line says
when it ran and which save started it. That process is started before the save, with the lab
imported and its checks' child ready, and reads the learner's files only at the save
(lab/learner/next_check.py); each is used once, the next one started when a run ends.
Ctrl-C stops with one line: the checks run in sessions of their own, so the terminal's Ctrl-C
reaches only the watcher, which then interrupts the running check, ends the waiting one (one that
was starting too: Ctrl-C then waits until the watcher holds it) and drops what the interrupted check
wrote to stderr (its traceback).
"""

import queue
import signal
import sys
import threading
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from lab.learner.next_check import WAITS_AT_MOST, NextCheck
from lab.model.course import LAB_ROOT
from lab.model.status import ExitStatus
from lab.store import shown
from lab.text.messages import words_of

CLEAR = "\033[2J\033[H"
WATCHED = (".py", ".md")
# Milliseconds without a new change before a save's changes are handed over (watchfiles' step, 50
# by default): an editor writes a save within a few; the run starts that much after the save.
SAVE_SETTLES_MS = 20
WAKE_EVERY = 0.2  # seconds between two looks for Ctrl-C while the watcher waits for a save


def watch(step, check_arguments=(), lang="en", root=LAB_ROOT, changes=None, out=None):
    """Run the check now, then after every batch of changes; 0 after Ctrl-C.

    changes: an iterable of change sets (tests pass their own); default watchfiles.watch. An
    empty set (no change for a while) only replaces a next check that waited too long.
    """
    out = out or sys.stdout
    folder = root / "steps"
    arguments = [str(step.number), "--lang", lang, *check_arguments]
    upcoming = None
    try:
        with _ctrl_c_once_held():
            upcoming = NextCheck(arguments, root)
        if changes is None:
            import watchfiles  # imported only here: nothing else needs it

            changes = _read_ahead(
                watchfiles.watch(
                    folder,
                    watch_filter=lambda _, path: path.endswith(WATCHED),
                    raise_interrupt=True,
                    rust_timeout=int(WAITS_AT_MOST * 1000 / 10),
                    yield_on_timeout=True,
                    step=SAVE_SETTLES_MS,
                )
            )
        for batch in _with_start(changes):
            if not upcoming.waiting():
                upcoming.end()
                with _ctrl_c_once_held():
                    upcoming = NextCheck(arguments, root)
            if batch is None or batch:
                out.write(CLEAR + run_line(step, lang, root, batch) + "\n")
                out.flush()
                running, upcoming = upcoming, None
                running.run()
                with _ctrl_c_once_held():
                    upcoming = NextCheck(arguments, root)
    except KeyboardInterrupt:
        out.write("\n" + words_of("learner", lang)("watch_stopped") + "\n")
    finally:
        if upcoming:
            upcoming.end()
    return ExitStatus.ALL_PASS


@contextmanager
def _ctrl_c_once_held():
    """Ctrl-C while a next check starts is raised once the watcher holds it (the assignment in the
    block is done), so that the watcher ends it: raised in the middle of its start, it would leave
    a process nobody ends. Only where Ctrl-C is handled, in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed = []
    previous = signal.signal(signal.SIGINT, lambda *_: pressed.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
    if pressed:
        raise KeyboardInterrupt


def _with_start(changes):
    """None (the start of watching), then each batch of changes."""
    yield None
    yield from changes


_ENDED = object()


def _read_ahead(changes):
    """The batches of changes, read in a thread of their own from now on; those that came
    during a run are given as one.

    watchfiles watches only while it is asked for changes: asked only after the first run, it
    would never see a save made during that run. Read ahead, it watches from before the first
    run; Ctrl-C still reaches the watcher, which waits here."""
    arrived = queue.SimpleQueue()

    def read():
        try:
            for batch in changes:
                arrived.put(batch)
        except BaseException as error:  # noqa: BLE001 - handed to the watcher, which raises it
            arrived.put(error)
        arrived.put(_ENDED)

    threading.Thread(target=read, daemon=True).start()
    return _batches(arrived)


def _batches(arrived):
    """What _read_ahead's thread read, as it comes: each batch and those that came with it, as one."""
    while True:
        items = [_next(arrived)]
        while not arrived.empty():
            items.append(arrived.get())
        yield set().union(*(item for item in items if isinstance(item, set)))
        for item in items:
            if isinstance(item, BaseException):
                raise item
            if item is _ENDED:
                return


def _next(arrived):
    """The next item, waited for in short spells: a signal (Ctrl-C) is handled between two."""
    while True:
        try:
            return arrived.get(timeout=WAKE_EVERY)
        except queue.Empty:
            continue


def run_line(step, lang, root, started_by, now=None):
    """When this run began and what started it: the start of watching, or the files just saved."""
    words, time = words_of("learner", lang), (now or datetime.now()).strftime("%H:%M:%S")
    saved = sorted({shown(Path(path), root) for _, path in started_by or ()})
    if not saved:
        return words("watch_started", time=time, n=step.number)
    more = len(saved) - 2
    files = words("separator").join(saved[:2]) + (words("watch_more", count=more) if more > 0 else "")
    return words("watch_saved", time=time, n=step.number, files=files)
