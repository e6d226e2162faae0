"""Keeping the children a process forks inside its sandbox apart from each other, one after another.

The prediction child forks one child per target (lab/running/prediction_launcher.py); each runs
learner code that must learn nothing from the children before it. Its sandbox is read-only but
for a few folders (lab/running/prediction_host.py: the scratch folder it shares with the targets'
learner processes, its working folder and /dev/shm). Each child first takes a user namespace and,
in it, an IPC namespace of its own (``separate``): no System V or POSIX queue, semaphore or
shared memory outlives it. Between two children, the forking process ends every other process of
its PID namespace (``end_the_others``) and empties the writable folders, each one's mode, times
and extended attributes put back (``Folder.wipe``). And it is not dumpable (``keep_to_myself``):
a child of the same user can neither take a descriptor from it (through /proc or pidfd_getfd)
nor trace it.

A mount namespace per child, with fresh memory folders, would keep them apart as well, at about
2 ms more of CPU per child (measured), 60 times for a learner who predicted every step; emptying
a folder that holds nothing costs a listing of it.

What is left is what no file holds: timing, the numbers the kernel hands out (process ids, inode
numbers) and the times of a writable folder's last change.
"""

import ctypes
import os
import signal
import stat
import time

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36
CLONE_NEWIPC, CLONE_NEWUSER = 0x08000000, 0x10000000
ENDING = 5.0  # seconds the other processes may take to be gone once killed


class NotApart(Exception):
    """A child could not be kept apart: it must not run."""


def _checked(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise NotApart(f"{what}: {os.strerror(error)}")


def keep_to_myself() -> None:
    """Once, in the forking process before its first child: no process of its user may open its
    descriptors or trace it, and every process its children leave becomes its own to reap."""
    _checked(_libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "prctl")
    _checked(_libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "prctl")


def separate() -> None:
    """In a child just forked, before any learner code: a user namespace, and in it an IPC
    namespace, of its own (no System V or POSIX queue, semaphore or shared memory outlives it).
    Its ids stay unmapped there: it writes files as before, and owns nothing else."""
    _checked(_libc.unshare(CLONE_NEWUSER | CLONE_NEWIPC), "unshare")


def end_the_others() -> None:
    """Kill every process of this PID namespace but its init and this one, and reap them all (this
    one is their subreaper: keep_to_myself). Only where this process is bubblewrap's first child
    (pid 2 of a namespace of its own): anywhere else, kill(-1) would reach every process of the user."""
    if os.getpid() != 2 or os.getppid() != 1:
        raise NotApart("not the first process of a PID namespace of its own")
    given = time.monotonic() + ENDING
    while True:
        try:
            os.kill(-1, signal.SIGKILL)  # again while any is left: one may have forked meanwhile
        except ProcessLookupError:
            pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:  # none left, alive or not
            return
        if time.monotonic() > given:
            raise NotApart("processes outlived SIGKILL")
        time.sleep(0.0005)


class Folder:
    """A folder the children may write, emptied before the first and after each: its mode and
    times as they were then."""

    def __init__(self, path: str) -> None:
        self.path = path
        status = os.stat(path)
        self.mode, self.times = stat.S_IMODE(status.st_mode), (status.st_atime_ns, status.st_mtime_ns)

    def wipe(self) -> None:
        """Everything in it deleted, and its mode, times and extended attributes put back."""
        os.chmod(self.path, 0o700)
        for entry in os.scandir(self.path):
            _remove(entry.path)
        for name in os.listxattr(self.path):
            os.removexattr(self.path, name)
        os.chmod(self.path, self.mode)
        os.utime(self.path, ns=self.times)


def _remove(path: str) -> None:
    """Delete path and, a folder, all in it, whatever modes a child gave them (never following a link)."""
    if stat.S_ISDIR(os.lstat(path).st_mode):
        os.chmod(path, 0o700)
        for entry in os.scandir(path):
            _remove(entry.path)
        os.rmdir(path)
    else:
        os.unlink(path)
