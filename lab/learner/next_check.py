"""`make watch`'s next check, started before the save it checks, as the watcher holds it.

The process (lab/commands/waiting_check.py) imports the lab, starts the checks' child of its run
(lab/running/spare.py), says READY, and waits for one line on its stdin: GO, written at a save,
runs ``python -m lab check N ARGS…`` there as that command runs (the learner's files, settings
and cached verdicts are read only then); the end of stdin ends it with nothing read. Each is
used once; the watcher starts the next when a run ends, and replaces one that waited longer
than WAITS_AT_MOST.
"""

import contextlib
import os
import select
import signal
import subprocess
import sys
import tempfile
import time

from lab.process import remove_groups_of, spawn

GO = b"go\n"
READY = b"ready\n"
WAITS_AT_MOST = 600.0  # seconds a next check waits for its save before the watcher replaces it
ENDS_WITHIN = 10  # seconds an interrupted or unneeded next check has to clean up before it is ended
PROCESS = "lab.commands.waiting_check"  # the module the process runs: READY_FD N ARGS…


class NextCheck:
    """The watcher's handle on one next check, started at once."""

    def __init__(self, arguments, root, stdout=None):
        """arguments: those of `python -m lab check` after the verb; stdout: where its report
        goes (None: the watcher's own)."""
        self.born = time.monotonic()
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed when it ends)
        self.ready, writing = os.pipe()
        try:
            self.process = spawn(
                [sys.executable, "-m", PROCESS, str(writing), *arguments],
                cwd=root,
                stdin=subprocess.PIPE,
                stdout=stdout,
                stderr=self.stderr,
                pass_fds=(writing,),
            )
        finally:
            os.close(writing)

    def wait_until_ready(self, timeout=60.0):
        """Whether it is ready for its save: imported, its checks' child waiting for its plan."""
        return bool(select.select([self.ready], [], [], timeout)[0]) and os.read(self.ready, len(READY)) == READY

    def waiting(self):
        """Whether it still waits, and not longer than WAITS_AT_MOST."""
        return self.process.poll() is None and time.monotonic() - self.born < WAITS_AT_MOST

    def run(self):
        """Check the files as saved now, to the end; its stderr is shown after it. On Ctrl-C,
        interrupt it quietly: its own clean-up runs (scratch folders, its child)."""
        try:
            self._tell(GO)
            self.process.wait()
        except KeyboardInterrupt:
            with contextlib.suppress(ProcessLookupError):  # it had just ended
                os.kill(self.process.pid, signal.SIGINT)
            self._end_within()
            raise
        self.stderr.seek(0)
        sys.stderr.write(self.stderr.read().decode(errors="replace"))
        self._release()

    def end(self):
        """End it unused: its stdin closes, and it ends its child and itself."""
        self._tell(b"")
        self._end_within()

    def _tell(self, line):
        try:
            with self.process.stdin as stdin:
                stdin.write(line)
        except (BrokenPipeError, ValueError):  # it has ended, or was told already
            pass

    def _end_within(self):
        try:
            self.process.wait(timeout=ENDS_WITHIN)
        except subprocess.TimeoutExpired:
            self.process.end()
        remove_groups_of(self.process.pid)  # those of its children, when it could not remove them
        self._release()

    def _release(self):
        self.stderr.close()
        if self.ready is not None:
            os.close(self.ready)
            self.ready = None
