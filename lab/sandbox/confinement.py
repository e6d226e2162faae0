"""Where the lab's children run: inside bubblewrap where it works (their limits: lab/process.py).

Two kinds of sandbox, one inside the other:
- the *verdict sandbox* runs the checks (and their recorder) as user 65534, sees the lab's code,
  checks, reference, mutants and virtual environment read-only, starts in a private folder no
  learner process can see, and writes only size-limited memory folders of its own: its /tmp,
  its working folder and the scratch folder it shares with the learner processes (the databases). Its events
  go to the grading parent through an inherited pipe, never through a file;
- a *learner process* sees, read-only, the Python runtime and the learner server, and,
  read-write, only that scratch folder (or a size-limited folder of its own). It has no network,
  no view of the lab, of other submissions or of the host's /dev/shm, runs as user 65534 in PID
  and IPC namespaces of its own, and dies with the process that started it. Resource limits are
  set by the server itself, before any learner code runs, so that the code cannot raise them.

Without bubblewrap (a learner's own machine) the same children run in sessions of their own,
with the same resource limits: the learner can only fool themselves there.
"""

from __future__ import annotations

import compileall
import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from lab.model.course import LAB_ROOT
from lab.process import LEARNER, spawn

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import TypeAlias

    from lab.process import Child

    Folder: TypeAlias = str | os.PathLike[str]
    # A folder seen read-only: at the same path inside, or at another, (outside, inside).
    Readable: TypeAlias = Folder | tuple[Folder, Folder]

LEARNER_SIDE = Path(__file__).with_name("learner")  # the package the learner process runs (the server)
LEARNER_ROOT_INSIDE = "/run/lease-lab"  # the folder that holds it as lab/sandbox/learner inside a sandbox
LEARNER_SERVER = "lab.sandbox.learner.server"  # by name: the checker's digest follows it (checker_digest)
# How a learner process starts: the server's main, imported from the folder given first, given
# the learner's hard limits.
LEARNER_BOOT = "import json, sys; sys.path.insert(0, sys.argv[1]); __import__(sys.argv[2], fromlist=['main']).main(json.loads(sys.argv[3]))"
SCRATCH_INSIDE = "/run/lease-lab/scratch"  # the scratch folder, as the verdict sandbox and its learner processes see it
PLAN_INSIDE = "/run/lease-lab/plan.json"
HOME_INSIDE = "/run/lease-lab/home"  # a runner's child's working folder: pytest's and Hypothesis' files
SCRATCH_QUOTA = 256 << 20  # bytes all the files of one scratch folder may hold together (the kernel counts)
CHECKS_TMP = 64 << 20  # bytes of a sandbox's own /tmp


def python() -> str:
    """The real interpreter (not the virtual environment's link to it): the venv stays unseen."""
    return os.path.realpath(sys.executable)


# How the lab's children start: -I (no working folder, no PYTHON* variable on sys.path), then
# this lab's own folder first on sys.path, so that a copy of the lab runs its own code.
BOOT = "import runpy, sys; sys.path.insert(0, sys.argv[1]); name = sys.argv[2]; del sys.argv[1:3]; runpy.run_module(name, run_name='__main__', alter_sys=True)"


def lab_python(module: str) -> list[str]:
    """The command line that runs one of the lab's modules as a child, in this lab's code."""
    _compiled()
    return [sys.executable, "-I", "-B", "-c", BOOT, str(LAB_ROOT), module]


IMPORTED_BY_CHILDREN = ("lab", "checks")  # what the lab's children import of the lab's own folder


@cache
def _compiled() -> None:
    """The lab's modules and its checks as bytecode, where Python looks for it (__pycache__), made
    once per process before its first child. A child starts with -B and sees the lab read-only, so
    it would compile again, at every start, each module no process outside a sandbox imported:
    every check, and the modules only a child runs. Only missing or stale files are written; a
    read-only lab is left as it is, and its children compile as before."""
    for folder in IMPORTED_BY_CHILDREN:
        if os.access(LAB_ROOT / folder, os.W_OK):
            compileall.compile_dir(LAB_ROOT / folder, quiet=2)


@cache
def available() -> bool:
    """Whether bubblewrap is installed and can make a sandbox on this machine: a learner
    process's sandbox inside a verdict sandbox, as the checks start them."""
    if not shutil.which("bwrap"):
        return False
    inner = [*bwrap(), python(), "-I", "-S", "-c", "pass"]
    probe = subprocess.run([*bwrap(proc="host"), *inner], capture_output=True, timeout=30, check=False)
    return probe.returncode == 0


def command(scratch: Folder, confined: bool, private: bool = False) -> list[str]:
    """The command line that starts a learner server whose databases live in scratch.

    private: the scratch folder is one of its own, a size-limited memory folder that ends with it
    (the runner's probe, which shares no database with anybody)."""
    _compiled()
    server = [python(), "-I", "-S", "-X", "utf8", "-c", LEARNER_BOOT]
    settings = json.dumps(LEARNER.rlimits())
    if not confined:
        return [*server, str(LAB_ROOT), LEARNER_SERVER, settings]
    seen = [(LEARNER_SIDE, f"{LEARNER_ROOT_INSIDE}/lab/sandbox/learner")]
    sandbox = bwrap(quota=[scratch], readable=seen) if private else bwrap(writable=[scratch], readable=seen)
    return [*sandbox, *server, LEARNER_ROOT_INSIDE, LEARNER_SERVER, settings]


def verdict_sandbox(plan: Folder | None, readable: Iterable[Readable]) -> list[str]:
    """bubblewrap's arguments for a runner's child: the checks' own sandbox, or the host of a
    prediction run (the module docstring says what it sees).

    It keeps the host's /proc and PID namespace: a learner process's sandbox inside it can mount
    a /proc of its own only where a whole one is visible, and bubblewrap finds its own child there
    by its pid. No learner code runs where the host's /proc is seen; the runner ends the child's
    whole session, and each learner process dies with its parent.

    plan None: a child started before its run, which reads its plan from a pipe
    (lab/running/spare.py)."""
    planned = [(plan, PLAN_INSIDE)] if plan is not None else []
    return bwrap(readable=[*planned, *readable], quota=[SCRATCH_INSIDE, HOME_INSIDE], proc="host", working=HOME_INSIDE)


def bwrap(
    writable: Sequence[Folder] = (),
    readable: Iterable[Readable] = (),
    quota: Sequence[Folder] = (),
    proc: str = "own",
    working: Folder | None = None,
) -> list[str]:
    """bubblewrap's arguments for a sandbox that sees the Python runtime, the folders `readable`
    ((outside, inside) pairs, or paths seen at the same place) read-only, the folders `writable`
    read-write at the same paths as outside, and a size-limited memory folder at each path of
    `quota`; the working folder is `working`, or else the first writable or quota folder."""
    runtime = sys.base_prefix
    mounts = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            mounts += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            mounts += ["--ro-bind", top, top]
    real = python()
    for path in (runtime, real):
        if not path.startswith("/usr/"):
            mounts += ["--ro-bind", path, path]
    mounts += ["--proc", "/proc"] if proc == "own" else ["--bind", "/proc", "/proc"]
    mounts += ["--dev", "/dev", "--size", str(CHECKS_TMP), "--tmpfs", "/tmp", "--tmpfs", "/run"]
    for pair in readable:
        outside, inside = pair if isinstance(pair, tuple) else (pair, pair)
        mounts += ["--ro-bind", str(outside), str(inside)]
    for folder in writable:
        mounts += ["--bind", str(folder), str(folder)]
    for folder in quota:
        mounts += ["--size", str(SCRATCH_QUOTA), "--tmpfs", str(folder)]
    working = working or next(iter([*writable, *quota]), None)
    if working:
        mounts += ["--chdir", str(working), "--setenv", "TMPDIR", str(working)]
    namespaces = (
        ["--unshare-all"]
        if proc == "own"
        else ["--unshare-user", "--unshare-ipc", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
    )
    return [
        "bwrap",
        *namespaces,
        "--die-with-parent",
        "--new-session",
        "--uid",
        "65534",
        "--gid",
        "65534",
        *mounts,
        "--setenv",
        "MALLOC_ARENA_MAX",
        "2",
    ]


def start(scratch: Folder, confined: bool, private: bool = False) -> Child:
    """A running learner server, its channel on stdin and stdout (a process.Child). It sets its
    hard limits itself; confined, it runs in a pids cgroup of its own where the lab runs as root."""
    return spawn(
        command(scratch, confined, private),
        replace(LEARNER, group=confined),
        self_limited=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        bufsize=0,
        cwd="/" if private and confined else scratch,
        env={"PATH": "/usr/bin:/bin", "MALLOC_ARENA_MAX": "2", "TMPDIR": str(scratch)},
    )
