"""A dishonest class against ``python -m lab class``: attacks on the grader, graded together with
controls in one run, must change no verdict, leave no process and no file behind, and stay in
their budget.

The submissions are built by tests/attack_submissions.py. By default a representative subset
runs (fast); ``pytest tests/test_grader_attacks.py --all-attacks`` (``make test-attacks``) runs
every kind. Where bubblewrap cannot make a sandbox, the class must be refused (exit 2, naming
the package): there only the controls are handed in, never an attack.
"""

import csv
import ctypes
import hashlib
import json
import os
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import attack_submissions as attacks
import pytest

from lab.clock import MIN_PACE
from lab.model.course import LAB_ROOT, load_course
from lab.model.status import ExitStatus
from lab.sandbox import confinement
from lab.sandbox.channel import REPLY_GRACE

TIME_LIMIT = 3.0
BUDGET = 40.0
GRADER_RSS_LIMIT = 600 << 20  # bytes: the class process and the checks' processes
LEARNER_RSS_LIMIT = (1 << 30) + (100 << 20)  # bytes: any process of the run (the sandbox maps at most 1 GiB)
# Seconds one check may report: its limit on the check's clock, which a busy machine slows to
# MIN_PACE of the wall clock at most (lab/clock.py), and the grace for a stalled reply.
CHECK_LIMIT = TIME_LIMIT / MIN_PACE + REPLY_GRACE + 1
SURVIVOR_WAIT = 2.0  # seconds the run's processes may take to go after it ended
LAB_PARTS = ("checks", "lab", "solutions", "mutants", "mutation", "course.toml", "Makefile", "pyproject.toml")
STEPS = [step.number for step in load_course()]
PR_SET_CHILD_SUBREAPER = 36

# The class process, wrapped only to report its own peak memory and its descendants' when it ends.
WRAPPER = """
import json, os, resource, runpy, sys
sys.argv[0] = "lab"
try:
    runpy.run_module("lab", run_name="__main__", alter_sys=True)
finally:
    with open(os.environ["LEASE_LAB_ATTACK_RUSAGE"], "w") as handle:
        json.dump({"self": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                   "children": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}, handle)
"""


# ---------------------------------------------------------------------------------------------
# Processes


def _read(path, limit=1 << 16):
    try:
        with open(path, "rb") as handle:
            return handle.read(limit)
    except OSError:
        return None


def _stat(pid):
    """(ppid, state, start time) of pid, or None once it is gone."""
    text = _read(f"/proc/{pid}/stat")
    if not text:
        return None
    fields = text.decode(errors="replace").rsplit(")", 1)[-1].split()
    return int(fields[1]), fields[0], int(fields[19])


def _processes():
    """{pid: (ppid, state, start time)} of every process on the machine."""
    found = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            stat = _stat(int(name))
            if stat:
                found[int(name)] = stat
    return found


def _descendants(root, table=None):
    table = table if table is not None else _processes()
    children = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def _tree(root):
    """root and its descendants as the kernel lists each task's children, without a pass over
    every process of the machine: the watcher samples the tree ten times a second for minutes.
    Where the kernel has no children lists (built without CONFIG_PROC_CHILDREN), the full pass."""
    if not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children"):
        return [root, *_descendants(root)]
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            todo += [int(child) for child in (_read(f"/proc/{pid}/task/{task}/children") or b"").split()]
    return found


def _cmdline(pid):
    raw = _read(f"/proc/{pid}/cmdline") or b""
    return raw.replace(b"\0", b" ").decode(errors="replace").strip()


def _hwm(pid):
    """The peak resident size of pid so far, in bytes (VmHWM)."""
    for line in (_read(f"/proc/{pid}/status") or b"").decode(errors="replace").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) << 10
    return 0


def _subreaper(on):
    """Orphans of the run become this process's children instead of init's: a survivor that
    double-forked out of the run's process tree is still found below this process."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1 if on else 0, 0, 0, 0)


class Watcher(threading.Thread):
    """Samples the run's process tree: every process seen, and the peak memory of each kind."""

    def __init__(self, root):
        super().__init__(daemon=True)
        self.root, self.stop = root, threading.Event()
        self.seen = {}  # pid -> (start time, command line)
        self.peak_grader = self.peak_other = 0
        self.peak_other_cmd = ""

    def run(self):
        while not self.stop.is_set():
            for pid in _tree(self.root):
                stat = _stat(pid)
                if not stat:
                    continue
                cmd = _cmdline(pid)  # read again each time: a fork of the grader may exec into learner code
                self.seen[pid] = (stat[2], cmd)
                hwm = _hwm(pid)
                if pid == self.root or "lab.running.child" in cmd:
                    self.peak_grader = max(self.peak_grader, hwm)
                elif hwm > self.peak_other:
                    self.peak_other, self.peak_other_cmd = hwm, cmd[:200]
            self.stop.wait(0.1)


def _survivors(seen, token, earlier=frozenset()):
    """The processes the run started that are still alive (zombies are reaped, not counted);
    `earlier`: this process's descendants from before the run."""
    table = _processes()
    me = os.getpid()
    suspects = {pid for pid, (start, _) in seen.items() if pid in table and table[pid][2] == start}
    suspects |= set(_descendants(me, table)) - set(earlier)
    suspects |= {pid for pid in table if token in _cmdline(pid) and pid != me}
    alive = []
    for pid in sorted(suspects):
        stat = table.get(pid)
        if stat and stat[1] == "Z":
            if stat[0] == me:
                _reap(pid)
            continue
        if stat:
            alive.append((pid, _cmdline(pid)[:300]))
    return alive


def _reap(pid):
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def _end(survivors):
    """End what the run left behind, by pid: the machine stays clean even when a test fails."""
    for pid, _ in survivors:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    time.sleep(0.2)
    for pid, _ in survivors:
        _reap(pid)


# ---------------------------------------------------------------------------------------------
# Files


def _files(root):
    root = Path(root)
    if root.is_file() or root.is_symlink():
        return [root]
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*") if (p.is_file() or p.is_symlink()) and "__pycache__" not in p.parts)


def _site_packages():
    sites = {Path(sysconfig.get_paths()[k]) for k in ("purelib", "platlib")}
    sites |= set((LAB_ROOT / ".venv" / "lib").glob("python3*/site-packages"))
    return sorted(sites)


def lab_tree():
    """Every file of the lab hashed; the file lists of the installed packages with their sizes.

    Python's own bytecode caches (__pycache__) are left out: any import of a file that someone
    edits rewrites them."""
    found = {}
    for name in LAB_PARTS:
        for path in _files(LAB_ROOT / name):
            found[str(path)] = (
                "link:" + os.readlink(path) if path.is_symlink() else hashlib.sha256(path.read_bytes()).hexdigest()
            )
    for site in _site_packages():
        for path in _files(site):
            found[str(path)] = f"size:{path.lstat().st_size}"
    return found


def folder_tree(root):
    """Every file, link and folder under root (links not followed), with its bytes' digest and mode."""
    root = Path(root)
    found = {}
    for path in sorted(root.rglob("*")):
        name = str(path.relative_to(root))
        if path.is_symlink():
            found[name] = "link:" + os.readlink(path)
        elif path.is_dir():
            found[name + "/"] = "dir"
        else:
            found[name] = (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mode)
    return found


def _differences(before, after):
    return sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))


def _named_with(token):
    """Files and folders whose name holds the token, wherever an attack might have put them."""
    found = []
    for folder, deep in (
        ("/tmp", False),
        ("/var/tmp", False),
        ("/dev/shm", True),
        (LAB_ROOT, False),
        (LAB_ROOT / "build", True),
        (LAB_ROOT / "reports", True),
        *((site, False) for site in _site_packages()),
    ):
        folder = Path(folder)
        try:
            entries = folder.rglob("*") if deep else folder.iterdir()
            found += [str(p) for p in entries if token in p.name]
        except OSError:
            continue
    found += [str(p) for p in attacks.places_attacks_write(token) if p.exists() or p.is_symlink()]
    return sorted(set(found))


def _holding(token, paths):
    return sorted(str(p) for p in paths if Path(p).is_file() and token.encode() in (_read(p, 64 << 20) or b""))


# ---------------------------------------------------------------------------------------------
# The run


@dataclass
class Graded:
    confined: bool
    kinds: list
    token: str
    class_dir: Path
    out_dir: Path
    returncode: int = None
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    cells: dict = field(default_factory=dict)  # learner -> {step: cell}
    checks: dict = field(default_factory=dict)  # learner -> [check results]
    waits: dict = field(default_factory=dict)  # learner -> seconds its budgets were moved later (busy CPU)
    survivors: list = field(default_factory=list)
    lab_changed: list = field(default_factory=list)
    lab_changed_by_attack: list = field(default_factory=list)  # changed and holding the token, or gone
    class_changed: list = field(default_factory=list)
    left_behind: list = field(default_factory=list)
    forged_outputs: list = field(default_factory=list)
    out_changed_later: bool = False
    rusage: dict = field(default_factory=dict)
    peak_grader: int = 0
    peak_other: int = 0
    peak_other_cmd: str = ""
    restored: list = field(default_factory=list)

    def show(self):
        return f"exit {self.returncode}, {self.seconds:.1f} s\nstdout:\n{self.stdout[-3000:]}\nstderr:\n{self.stderr[-3000:]}"


def run_class(class_dir, out_dir, rusage_file, env=None, timeout=None):
    """python -m lab class, as an instructor types it, watched; returns (process, seconds, watcher)."""
    arguments = [
        str(class_dir),
        "--out",
        str(out_dir),
        "--time-limit",
        f"{TIME_LIMIT:g}",
        "--budget",
        f"{BUDGET:g}",
        "--no-mutants",
    ]
    env = {**(env or os.environ), "LEASE_LAB_ATTACK_RUSAGE": str(rusage_file), "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-c", WRAPPER, "class", *arguments],
        cwd=class_dir.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watcher = Watcher(process.pid)
    watcher.start()
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
    seconds = time.monotonic() - started
    watcher.stop.set()
    watcher.join()
    return process.returncode, stdout, stderr, seconds, watcher


def _read_outputs(graded):
    table = graded.out_dir / "class.csv"
    if table.is_file():
        rows = list(csv.reader(table.read_text(encoding="utf-8").splitlines()))
        for row in rows[1:]:
            if len(row) > len(STEPS):
                graded.cells[row[0]] = dict(zip(STEPS, row[1 : 1 + len(STEPS)]))
    book = graded.out_dir / "grades.csv"
    if book.is_file():
        for line in csv.DictReader(book.read_text(encoding="utf-8-sig").splitlines()):
            graded.waits[line["learner"]] = float(line["cpu_waits_left_out"] or 0)  # never below 0: no "'-" cell
    for kind in graded.kinds:
        path = graded.out_dir / "learners" / f"{kind.name}.json"
        if path.is_file():
            try:
                graded.checks[kind.name] = json.loads(path.read_text(encoding="utf-8"))["checks"]
            except (ValueError, KeyError, TypeError):
                graded.checks[kind.name] = None


def _without_bwrap_path(folder):
    """A PATH holding every program of this one but bwrap: a machine without bubblewrap."""
    folder.mkdir(parents=True, exist_ok=True)
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            if name != "bwrap" and not (folder / name).exists():
                try:
                    (folder / name).symlink_to(Path(directory) / name)
                except OSError:
                    pass
    return str(folder)


@pytest.fixture(scope="module")
def graded(request, tmp_path_factory):
    """One class run: every chosen attack with the controls, graded together."""
    confined = confinement.available()
    kinds = attacks.KINDS if request.config.getoption("--all-attacks") else attacks.FAST
    if not confined:  # an attack never runs outside the sandbox: only the controls, to be refused
        kinds = [kind for kind in kinds if kind.control]
    base = tmp_path_factory.mktemp("grader-attacks")
    class_dir, out_dir = base / "class", base / "out"
    token = attacks.make_class(class_dir, kinds)
    graded = Graded(confined, kinds, token, class_dir, out_dir)

    lab_before, class_before = lab_tree(), folder_tree(class_dir)
    checks_before = {path: path.read_bytes() for path in _files(LAB_ROOT / "checks")}
    assert not _named_with(token), "the token is new: nothing may hold it before the run"
    # Processes of this pytest process from earlier tests (multiprocessing's resource tracker)
    # are not the run's.
    earlier = set(_descendants(os.getpid(), _processes()))
    _subreaper(True)
    try:
        rusage_file = base / "rusage.json"
        graded.returncode, graded.stdout, graded.stderr, graded.seconds, watcher = run_class(
            class_dir, out_dir, rusage_file, timeout=len(kinds) * BUDGET + 300
        )
        deadline = time.monotonic() + SURVIVOR_WAIT
        while True:
            survivors = _survivors(watcher.seen, token, earlier)
            if not survivors or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        graded.survivors = survivors
        _end(survivors)
    finally:
        _subreaper(False)
    graded.rusage = json.loads(rusage_file.read_text()) if rusage_file.is_file() else {}
    graded.peak_grader, graded.peak_other, graded.peak_other_cmd = (
        watcher.peak_grader,
        watcher.peak_other,
        watcher.peak_other_cmd,
    )

    snapshot = folder_tree(out_dir) if out_dir.is_dir() else {}
    _read_outputs(graded)
    time.sleep(1.0)  # a daemon that outlived the run would rewrite the outputs now
    graded.out_changed_later = (folder_tree(out_dir) if out_dir.is_dir() else {}) != snapshot
    graded.forged_outputs = _holding(token, _files(out_dir)) + _holding(token, _files(LAB_ROOT / "reports" / "class"))
    graded.lab_changed = _differences(lab_before, lab_tree())
    graded.lab_changed_by_attack = [p for p in graded.lab_changed if not Path(p).exists() or _holding(token, [p])]
    graded.class_changed = _differences(class_before, folder_tree(class_dir))
    graded.left_behind = _named_with(token)
    # Repair what an escaped attack did to the checks (the lab is shared), after recording it.
    for path, data in checks_before.items():
        if not path.exists() or (token.encode() in path.read_bytes()):
            path.write_bytes(data)
            graded.restored.append(str(path))
    for name in graded.left_behind:
        if Path(name).is_file():
            Path(name).unlink()
    print(_summary(graded))  # shown as the setup's output when a test fails
    (base / "summary.txt").write_text(_summary(graded), encoding="utf-8")
    return graded


def _summary(graded):
    lines = [
        f"class run: exit {graded.returncode}, {graded.seconds:.1f} s, {len(graded.kinds)} learners; "
        f"class process {graded.rusage.get('self', 0) >> 10} MiB, checks' processes {graded.peak_grader >> 20} MiB, "
        f"largest other process {graded.peak_other >> 20} MiB ({graded.peak_other_cmd[:80]})"
    ]
    for kind in graded.kinds:
        cells = graded.cells.get(kind.name, {})
        lines.append(f"{kind.name}: " + " | ".join(cells.get(step, "(none)")[:60] for step in STEPS))
    return "\n".join(lines)


def _refused(graded):
    """Without bubblewrap the class is not graded at all: exit 2, a message naming the package."""
    assert graded.returncode == ExitStatus.USAGE, graded.show()
    assert "bubblewrap" in graded.stderr + graded.stdout, graded.show()
    assert not (graded.out_dir / "class.csv").exists(), "a refused class has no table"


def _verdicts(graded, kind):
    return graded.cells.get(kind.name, {}), graded.checks.get(kind.name)


def _step_checks(checks, step):
    return [c for c in checks or [] if c.get("step") == step]


# ---------------------------------------------------------------------------------------------
# The assertions


def test_every_learner_is_graded_and_the_run_ends_as_graded(graded):
    if not graded.confined:
        return _refused(graded)
    assert graded.returncode == ExitStatus.ALL_PASS, graded.show()  # graded, whatever the verdicts
    missing = [
        kind.name for kind in graded.kinds if kind.name not in graded.cells or graded.checks.get(kind.name) is None
    ]
    assert not missing, f"no row or no results JSON for {missing}\n{graded.show()}"


def test_every_control_gets_its_honest_verdict(graded):
    if not graded.confined:
        return _refused(graded)
    wrong = []
    for kind in (k for k in graded.kinds if k.control):
        cells, checks = _verdicts(graded, kind)
        for step, want in kind.control.items():
            cell, mine = cells.get(step, "(no cell)"), _step_checks(checks, step)
            statuses = sorted({c["status"] for c in mine})
            if want == "passed":
                ok = cell == "passed" and mine and statuses == ["passed"]
            elif want == "not implemented":
                ok = cell == "not implemented" and mine and statuses == ["not_implemented"]
            else:
                ok = cell.startswith("failed at") and "failed" in statuses
            if not ok:
                first = next((c for c in mine if c["status"] != "passed"), {})
                wrong.append(
                    f"{kind.name} step {step}: want {want!r}, got {cell!r} {statuses} {first.get('check', '')}: {first.get('message', '')[:300]}"
                )
    assert not wrong, "\n".join(wrong)


def test_no_attack_passes_a_step_it_does_not_honestly_implement(graded):
    if not graded.confined:
        return _refused(graded)
    passed = []
    for kind in (k for k in graded.kinds if not k.control):
        cells, checks = _verdicts(graded, kind)
        for step in STEPS:
            if step in kind.may_pass:
                continue
            mine = _step_checks(checks, step)
            if cells.get(step) == "passed" or (mine and all(c["status"] == "passed" for c in mine)):
                passed.append(
                    f"{kind.name} ({kind.what}) passes step {step}: {cells.get(step)!r}, {len(mine)} checks passed"
                )
    assert not passed, "\n".join(passed)


def test_no_process_of_the_run_survives_it(graded):
    if not graded.confined:
        return _refused(graded)
    assert not graded.survivors, "still running after the class run ended (now killed):\n" + "\n".join(
        f"{pid}: {cmd}" for pid, cmd in graded.survivors
    )


def test_the_lab_and_everything_outside_the_class_and_out_dir_are_unchanged(graded):
    if not graded.confined:
        return _refused(graded)
    assert not graded.lab_changed, (
        f"the lab's files changed during the run: {graded.lab_changed[:20]}; of them, these hold the attacks' token: "
        f"{graded.lab_changed_by_attack} (restored: {graded.restored})"
    )
    assert not graded.left_behind, f"files an attack wrote outside the class folder: {graded.left_behind}"
    assert not graded.class_changed, (
        f"the class folder changed (a classmate's folder, or the lab wrote into it): {graded.class_changed[:20]}"
    )
    assert not graded.forged_outputs, f"outputs that hold an attack's token: {graded.forged_outputs}"
    assert not graded.out_changed_later, "the outputs changed after the class run had ended"


def test_the_run_stays_within_its_budget_and_bounded_memory(graded):
    if not graded.confined:
        return _refused(graded)
    # Two learners at a time, each held to its budget for its own code and a budget's worth of shares
    # for the credit of its failing steps, moved later by the waits for a busy CPU its grades.csv
    # row states, and past it to the check it is running then (CHECK_LIMIT: what one check may
    # report); a minute for the class's own work.
    waits = sum(graded.waits.values())
    limit = (len(graded.kinds) * (2 * BUDGET + CHECK_LIMIT) + waits) / 2 + 60
    assert graded.seconds < limit, f"the class run took {graded.seconds:.1f} s, over {limit:.0f} s"
    over = []
    for kind in graded.kinds:
        checks = graded.checks.get(kind.name) or []  # its own code's checks: in its budget
        total, allowed = sum(c.get("duration", 0.0) for c in checks), BUDGET + graded.waits.get(kind.name, 0.0)
        if total > allowed:
            over.append(f"{kind.name}: its checks ran {total:.1f} s in all, over its budget of {allowed:g} s")
        over += [
            f"{kind.name}: {c['check']} ran {c['duration']:.1f} s"
            for c in checks
            if c.get("duration", 0.0) > CHECK_LIMIT
        ]
    assert not over, "\n".join(over)
    assert graded.rusage, "the class process did not report its memory"
    grader = max(graded.rusage["self"] << 10, graded.peak_grader)
    assert grader < GRADER_RSS_LIMIT, (
        f"the grading processes peaked at {grader >> 20} MiB (class process {graded.rusage['self'] >> 10} MiB)"
    )
    everything = max(graded.rusage["children"] << 10, graded.peak_other)
    assert everything < LEARNER_RSS_LIMIT, (
        f"a process of the run peaked at {everything >> 20} MiB: {graded.peak_other_cmd}"
    )


def test_a_class_is_refused_where_bubblewrap_is_missing(tmp_path):
    """Simulated by a PATH without bwrap; only the controls are handed in."""
    class_dir = tmp_path / "class"
    attacks.make_class(class_dir, ["honest", "stubs"])
    env = {**os.environ, "PATH": _without_bwrap_path(tmp_path / "bin")}
    returncode, stdout, stderr, seconds, watcher = run_class(
        class_dir, tmp_path / "out", tmp_path / "rusage.json", env=env, timeout=300
    )
    shown = f"exit {returncode}, {seconds:.1f} s\nstdout:\n{stdout[-2000:]}\nstderr:\n{stderr[-2000:]}"
    assert returncode == ExitStatus.USAGE, shown
    assert "bubblewrap" in stdout + stderr, shown
    assert not (tmp_path / "out" / "class.csv").exists(), shown
