"""How a learner process is started: inside bubblewrap where it works, with hard resource limits.

Inside the sandbox the process sees, read-only, the Python runtime and the learner server, and,
read-write, one scratch folder it shares with the checks (the databases live there). It has no
network, no view of the lab, of other submissions or of the host's /dev/shm, runs as user
65534 in PID and IPC namespaces of its own, and dies with the grader: when the sandbox's first
process ends, the kernel ends everything it started. Resource limits are set by the server
itself, before any learner code runs, so that the code cannot raise them again.

Without bubblewrap (a learner's own machine) the same server runs in a session of its own,
with the same resource limits: the learner can only fool themselves there.
"""

import itertools
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from functools import cache
from pathlib import Path

SERVER = Path(__file__).with_name("server.py")
SERVER_INSIDE = "/run/lease-lab/server.py"
MEMORY = 1 << 30  # bytes of address space a learner process may map
FILE_SIZE = 64 << 20  # bytes any one file it writes may grow to
PROCESSES = 256  # processes and threads of its user (counted per sandbox where the kernel can)
OPEN_FILES = 256
CPU_SECONDS = 600  # a backstop: the checks' own time limits end a stalled call much sooner


def limits(cpu_seconds=CPU_SECONDS):
    return {"RLIMIT_AS": MEMORY, "RLIMIT_FSIZE": FILE_SIZE, "RLIMIT_NPROC": PROCESSES, "RLIMIT_NOFILE": OPEN_FILES, "RLIMIT_CPU": int(cpu_seconds), "RLIMIT_CORE": 0}


def python():
    """The real interpreter (not the virtual environment's link to it): the venv stays unseen."""
    return os.path.realpath(sys.executable)


@cache
def available():
    """Whether bubblewrap is installed and can make a sandbox on this machine."""
    if not shutil.which("bwrap"):
        return False
    probe = subprocess.run([*bwrap(), python(), "-I", "-S", "-c", "pass"], capture_output=True, timeout=30, check=False)
    return probe.returncode == 0


def command(scratch, confined, cpu_seconds=CPU_SECONDS):
    """The command line that starts a learner server whose databases live in scratch."""
    server = [python(), "-I", "-S", "-X", "utf8"]
    settings = json.dumps(limits(cpu_seconds))
    if not confined:
        return [*server, str(SERVER), settings]
    return [*bwrap(writable=[scratch], readable=[(SERVER, SERVER_INSIDE)]), *server, SERVER_INSIDE, settings]


def bwrap(writable=(), readable=()):
    """bubblewrap's arguments for a sandbox that sees the Python runtime, the folders `readable`
    ((outside, inside) pairs, or paths seen at the same place) read-only and the folders
    `writable` read-write, at the same paths as outside; the first writable one is the working folder."""
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
    mounts += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/run"]
    for pair in readable:
        outside, inside = pair if isinstance(pair, tuple) else (pair, pair)
        mounts += ["--ro-bind", str(outside), str(inside)]
    for folder in writable:
        mounts += ["--bind", str(folder), str(folder)]
    if writable:
        mounts += ["--chdir", str(writable[0]), "--setenv", "TMPDIR", str(writable[0])]
    return [
        "bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--uid", "65534", "--gid", "65534",
        *mounts, "--setenv", "MALLOC_ARENA_MAX", "2",
    ]


def start(scratch, confined, cpu_seconds=CPU_SECONDS):
    """A running learner server, its channel on stdin and stdout, and its pids cgroup (or None)."""
    group = _pids_group() if confined else None
    popen = subprocess.Popen(
        command(scratch, confined, cpu_seconds), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        cwd=scratch, env={"PATH": "/usr/bin:/bin", "MALLOC_ARENA_MAX": "2", "TMPDIR": str(scratch)},
        start_new_session=True, bufsize=0, preexec_fn=(lambda: _join(group)) if group else None,
    )
    return popen, group


TEST_MEMORY = 4 << 30  # learner tests run inside pytest, Hypothesis and the lab's checks


@contextmanager
def limited():
    """A preexec function for a sandboxed run of learner tests (the predictions): the same hard
    limits, more memory, and a pids cgroup where the grader runs as root; removed afterwards."""
    group = _pids_group()
    settings = {**limits(), "RLIMIT_AS": TEST_MEMORY}

    def preexec():
        if group:
            _join(group)
        for name, value in settings.items():
            resource.setrlimit(getattr(resource, name), (value, value))

    try:
        yield preexec
    finally:
        if group:
            remove_group(group)


# The kernel never applies RLIMIT_NPROC to root, and a sandbox started by root is root outside
# its user namespace. There, a pids cgroup of its own holds the learner process to PROCESSES.
PIDS_HIERARCHY = Path("/sys/fs/cgroup/pids")
_groups = itertools.count()


def _pids_group():
    if os.geteuid() != 0 or not os.access(PIDS_HIERARCHY / "cgroup.procs", os.W_OK):
        return None
    group = PIDS_HIERARCHY / f"lease-lab-{os.getpid()}-{next(_groups)}"
    try:
        group.mkdir()
        (group / "pids.max").write_text(str(PROCESSES))
    except OSError:
        return None
    return group


def _join(group):
    """In the new process, before bubblewrap starts: join the group (its children follow)."""
    with open(group / "cgroup.procs", "w") as procs:
        procs.write(str(os.getpid()))


def remove_groups_of(pid):
    """Remove the pids cgroups a process made and could not remove itself (it was killed)."""
    for group in PIDS_HIERARCHY.glob(f"lease-lab-{pid}-*") if PIDS_HIERARCHY.is_dir() else ():
        remove_group(group)


def remove_group(group):
    """Remove a learner process's pids cgroup once everything in it has ended."""
    for _ in range(50):
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:  # still busy: the namespace's last processes are being reaped
            time.sleep(0.01)
