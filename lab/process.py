"""Every child process the lab starts as a command: started one way, bounded by a Limits value,
ended with everything it started.

A child runs in a session of its own, so that ending it ends its whole process group. Its hard
resource limits (soft and hard alike, so that it cannot raise them) are set in the child before
its command runs; where the lab runs as root, the kernel never applies RLIMIT_NPROC to it, and
a pids cgroup of the child's own holds it to its count of processes instead; and a child whose
Limits give tree_memory is put in a memory cgroup of its own, which bounds the memory of the child
and of everything it starts, together (a learner who forks four processes of 800 MB holds 3.2 GB
under four address-space limits of 1 GiB, and not under this). Both groups are removed when the
child is ended; where no cgroup can be made (not root, cgroup v2 only), only the per-process limits
hold, and tree_memory_bounded() says so.

Started here: the runner's child, the learner processes, the prediction child, the check that
`make watch` runs, and mutmut. Not commands, and so not started here: the workers of the field's demo, stress run and benchmark (functions of the
learner's own artifact, on their own machine, sharing a clock, barriers and pipes with the
parent through multiprocessing) and the races of the lab's own code inside a check (forks,
lab/sandbox/local.py); the lab's one-question tools (git, the bubblewrap probe) run with
subprocess.run and a timeout.

The timeouts of the lab's waits are named for what they bound, beside the code that waits:
lab/running/child_process.py (a check's process), lab/sandbox/channel.py (a learner process's
reply), lab/learner/watch.py (an interrupted check), lab/mutation/stage.py (mutmut) and
field/fleet.py (the stress run's workers).
"""

from __future__ import annotations

import itertools
import os
import resource
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    Popen = subprocess.Popen[Any]  # of bytes or of text, as spawn's popen arguments choose
else:
    Popen = subprocess.Popen


@dataclass(frozen=True)
class Limits:
    memory: int = 1 << 30  # bytes of address space the child may map
    file_size: int = 64 << 20  # bytes any one file it writes may grow to
    open_files: int = 256
    cpu_seconds: int = 600  # a backstop: the checks' own time limits end a stalled call much sooner
    processes: int = 256  # processes and threads: a pids cgroup (group) and RLIMIT_NPROC (per_user)
    per_user: bool = True  # RLIMIT_NPROC too, which the kernel counts per user, not per child
    group: bool = True  # a pids cgroup of `processes`, where the lab runs as root
    tree_memory: int | None = None  # bytes of memory the child and all it starts hold together (a memory cgroup)

    def rlimits(self) -> dict[str, int]:
        """The hard limits by the names of the resource module, in the order they are set."""
        found = {"RLIMIT_AS": self.memory, "RLIMIT_FSIZE": self.file_size}
        if self.per_user:
            found["RLIMIT_NPROC"] = self.processes
        return {**found, "RLIMIT_NOFILE": self.open_files, "RLIMIT_CPU": int(self.cpu_seconds), "RLIMIT_CORE": 0}

    def apply(self) -> None:
        """Set the hard limits on this process (a child's, before its command runs)."""
        for name, value in self.rlimits().items():
            resource.setrlimit(getattr(resource, name), (value, value))


LEARNER = Limits()  # a learner process: the learner's code and nothing else
TESTS = Limits(memory=4 << 30, group=False)  # a prediction child: pytest and Hypothesis run there too
# A runner's child: its checks and the learner processes they start, counted together by its
# group; never per user, which would count every process of the user who runs the lab.
# The tree's memory: the checks (about 150 MB) and every learner process and race they start.
CHECKS = Limits(memory=4 << 30, processes=1024, per_user=False, tree_memory=2 << 30)


class Child(Popen):
    """A started child: a Popen, with the cgroups it was put in."""

    groups: Sequence[Path] = ()
    session = True  # it leads a session, and so a process group, of its own

    def end(self) -> None:
        """End the child and everything it started; then remove its group."""
        if self.returncode is None:  # never signal a group whose leader was reaped
            ends: tuple[Callable[[], None], ...]
            ends = (lambda: os.killpg(self.pid, signal.SIGKILL), self.kill) if self.session else (self.kill,)
            for end in ends:
                try:
                    end()
                except (ProcessLookupError, PermissionError):
                    pass
            self.wait()
        for group in self.groups:
            remove_group(group)
        self.groups = ()


def spawn(
    command: Sequence[str], limits: Limits | None = None, self_limited: bool = False, session: bool = True, **popen: Any
) -> Child:
    """Start command as a child in a session of its own, bounded by limits (None: unbounded, the
    lab's own tools and commands). self_limited: the command sets limits.rlimits() on itself,
    given on its command line (the learner server: inside its sandbox, before any learner code
    runs); then only its group is made here. session=False: the child stays in this process's
    group, which ends it with this process (the prediction child, whose host the runner ends
    with its whole group). popen: subprocess.Popen's other arguments."""
    groups = _groups(limits) if limits else []
    set_here = None if limits is None or self_limited else limits  # the limits preexec sets

    def preexec() -> None:
        for group in groups:
            _join(group)
        if set_here:
            set_here.apply()

    try:
        child = Child(command, start_new_session=session, preexec_fn=preexec if groups or set_here else None, **popen)
    except BaseException:
        for group in groups:
            remove_group(group)
        raise
    child.groups, child.session = groups, session
    return child


PIDS_HIERARCHY = Path("/sys/fs/cgroup/pids")
MEMORY_HIERARCHY = Path("/sys/fs/cgroup/memory")
_names = itertools.count()


def _groups(limits: Limits) -> list[Path]:
    """The cgroups a child with these limits joins: its pids group and its memory group, each
    where it can be made."""
    wanted: list[tuple[Path, dict[str, int]]] = []
    if limits.group:
        wanted.append((PIDS_HIERARCHY, {"pids.max": limits.processes}))
    if limits.tree_memory:  # memory and swap together, where the kernel counts swap (memsw)
        bound = {"memory.limit_in_bytes": limits.tree_memory, "memory.memsw.limit_in_bytes": limits.tree_memory}
        wanted.append((MEMORY_HIERARCHY, bound))
    made = [_group(*want) for want in wanted]
    return [group for group in made if group]


def _group(hierarchy: Path, settings: dict[str, int]) -> Path | None:
    """A new cgroup in hierarchy with settings (name -> value, in order; a name the kernel does not
    offer is skipped), or None."""
    if not _can_make_groups(hierarchy):
        return None
    if hierarchy not in _swept:
        _swept.add(hierarchy)
        remove_stale_groups(hierarchy)
    group = hierarchy / f"lease-lab-{os.getpid()}-{next(_names)}"
    try:
        group.mkdir()
        for name, value in settings.items():
            if (group / name).exists():
                (group / name).write_text(str(value))
    except OSError:
        remove_group(group)
        return None
    return group


def _can_make_groups(hierarchy: Path) -> bool:
    return os.geteuid() == 0 and os.access(hierarchy / "cgroup.procs", os.W_OK)


def tree_memory_bounded() -> bool:
    """True when a child's tree_memory is enforced here (a memory cgroup can be made)."""
    return _can_make_groups(MEMORY_HIERARCHY)


def _join(group: Path) -> None:
    """In the new process, before its command starts: join the group (its children follow)."""
    with open(group / "cgroup.procs", "w") as procs:
        procs.write(str(os.getpid()))


def remove_groups_of(pid: int) -> None:
    """Remove the cgroups a process made and could not remove itself (it was killed)."""
    for hierarchy in (PIDS_HIERARCHY, MEMORY_HIERARCHY):
        for group in hierarchy.glob(f"lease-lab-{pid}-*") if hierarchy.is_dir() else ():
            remove_group(group)


_swept: set[Path] = set()  # the hierarchies this process has swept of stale groups


def remove_stale_groups(hierarchy: Path) -> None:
    """Remove the empty groups that processes of the lab made and left when they ended without
    removing them (a process killed by its test runner, a group still busy when its child was
    ended): those named for a process that no longer runs. Swept once per process, before its
    first group in the hierarchy; a group that still holds a process stays."""
    for group in hierarchy.glob("lease-lab-*-*"):
        maker = group.name.split("-")[2]
        if not maker.isdigit() or _runs(int(maker)):
            continue
        try:
            group.rmdir()
        except OSError:  # not empty, or removed by another process meanwhile
            pass


def _runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, as another user
        pass
    return True


def remove_group(group: Path) -> None:
    """Remove a cgroup once everything in it has ended."""
    for _ in range(50):
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:  # still busy: the namespace's last processes are being reaped
            time.sleep(0.01)
