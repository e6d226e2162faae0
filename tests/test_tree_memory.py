"""A learner is bounded as a whole, not per process: the checks' child and every learner process
it starts share one memory cgroup (lab/process.py), so forking does not multiply the 1 GiB each
process may map; and the processes one learner holds leave a classmate graded beside it
unchanged. Seen from outside, through the kernel's own counters of the groups."""

import glob
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from hang import HANGS_AFTER
from learner_folders import make_learner

from lab import cache, process
from lab.grading import kill_matrix
from lab.model.course import LAB_ROOT
from lab.process import CHECKS, MEMORY_HIERARCHY, tree_memory_bounded

FORKS = 4
EACH = 700 << 20  # bytes each fork fills: under a process's 1 GiB, and four of them over the tree's 2 GiB
# Each fork holds its share until every fork has filled its own or ended (the kernel may end one at
# the bound): on a busy machine a fork that let go after a fixed time could end before the last
# one filled, and the tree would never hold more than two shares at once.
HOARDER = f"""

_plain_enqueue = enqueue


def enqueue(path, job_id):
    import os
    try:  # the first call of the run only: the scratch folder holds each database's folder
        os.close(os.open(os.path.join(os.path.dirname(os.path.dirname(path)), "hoarded"), os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return _plain_enqueue(path, job_id)
    filled, release = os.pipe(), os.pipe()
    for _ in range({FORKS}):
        if os.fork() == 0:
            os.close(filled[0])
            os.close(release[1])
            held = bytearray({EACH})
            for at in range(0, len(held), 4096):
                held[at] = 1
            os.write(filled[1], b"x")
            os.close(filled[1])
            os.read(release[0], 1)  # held until every fork has filled its share or ended
            os._exit(0)
    os.close(filled[1])
    os.close(release[0])
    while os.read(filled[0], 1):
        pass
    os.close(filled[0])
    os.close(release[1])
    return _plain_enqueue(path, job_id)
"""


def _watch_groups(stop, seen):
    """The largest use of every lease-lab memory group, and how often its bound was met: an allocation
    refused (failcnt) or a process the kernel ended for it (oom_kill)."""
    while not stop.is_set():
        for group in glob.glob(str(MEMORY_HIERARCHY / "lease-lab-*")):
            try:
                peak = int(Path(group, "memory.max_usage_in_bytes").read_text())
                control = dict(line.split() for line in Path(group, "memory.oom_control").read_text().splitlines())
                hits = int(control.get("oom_kill", 0)) + int(Path(group, "memory.failcnt").read_text())
            except (OSError, ValueError):
                continue
            seen[group] = (max(peak, seen.get(group, (0, 0))[0]), max(hits, seen.get(group, (0, 0))[1]))
        stop.wait(0.02)


def _class_run_says(tmp_path):
    """What `class` prints about memory, on a class of one learner who never started."""
    make_learner(tmp_path / "class" / "ada", "stubs", checkout=False)
    out = subprocess.run(
        [sys.executable, "-m", "lab", "class", str(tmp_path / "class"), "--out", str(tmp_path / "out"), "--no-mutants"],
        cwd=LAB_ROOT,
        capture_output=True,
        text=True,
        timeout=HANGS_AFTER,
    )
    return out.stdout + out.stderr


@pytest.mark.usefixtures("cache_entries_added_only")  # a class run beside it checks its cache
def test_a_learner_who_forks_is_held_to_the_trees_memory_where_the_kernel_can_hold_it(tmp_path, monkeypatch):
    if not tree_memory_bounded():  # not root, or no cgroup v1 memory hierarchy: the run must say so
        assert "bounded per process only" in _class_run_says(tmp_path)
        return
    monkeypatch.setattr(cache, "ROOT", Path(tempfile.mkdtemp(dir=tmp_path)) / "cache")
    steps = make_learner(tmp_path / "hoarder", "complete", checkout=False)
    file = steps / "02-enqueue" / "step.py"
    file.write_text(file.read_text() + HOARDER)
    stop, seen = threading.Event(), {}
    watcher = threading.Thread(target=_watch_groups, args=(stop, seen))
    watcher.start()
    try:
        kill_matrix.results([kill_matrix.learner(steps, (1, 2))], use_cache=False)
    finally:
        stop.set()
        watcher.join()
    assert seen, "no memory group was made for the checks' child"
    assert all(peak <= CHECKS.tree_memory for peak, _ in seen.values())
    assert any(hits > 0 for _, hits in seen.values()), ("the forks never reached the tree bound", seen)


def test_the_class_run_says_how_memory_is_bounded(tmp_path):
    said = "GiB with every process it starts" if tree_memory_bounded() else "bounded per process only"
    assert said in _class_run_says(tmp_path)


def test_groups_left_by_processes_that_ended_are_swept_before_the_next_one_is_made():
    """A group named for a process that no longer runs and holding none is removed by the next
    process of the lab that makes a group; one named for a running process stays."""
    if not process._can_make_groups(process.PIDS_HIERARCHY):  # not root: no group is ever made
        assert process._group(process.PIDS_HIERARCHY, {"pids.max": 8}) is None
        return
    ended = subprocess.Popen(["true"])
    ended.wait()
    stale = process.PIDS_HIERARCHY / f"lease-lab-{ended.pid}-0"
    alive = process.PIDS_HIERARCHY / f"lease-lab-{os.getpid()}-stale-test"
    stale.mkdir()
    alive.mkdir()
    try:
        process._swept.discard(process.PIDS_HIERARCHY)
        made = process._group(process.PIDS_HIERARCHY, {"pids.max": 8})
        assert made is not None and made.is_dir()
        process.remove_group(made)
        assert not stale.exists() and alive.is_dir()
    finally:
        for group in (stale, alive):
            process.remove_group(group)


HOLDER = """
import os as _os, time as _time
for _ in range(5000):  # at import, in every learner process: as many processes as it may start
    try:
        if _os.fork() == 0:
            _time.sleep(60)
            _os._exit(0)
    except OSError:
        break
"""


def _watch_processes(stop, seen):
    """The most processes any lease-lab pids group held at once."""
    while not stop.is_set():
        for group in glob.glob(str(process.PIDS_HIERARCHY / "lease-lab-*")):
            try:
                seen.append(int(Path(group, "pids.current").read_text()))
            except (OSError, ValueError):
                continue
        stop.wait(0.05)


@pytest.mark.long
def test_a_learner_holding_every_process_it_may_start_leaves_a_classmate_unchanged(tmp_path):
    """Graded at the same time as a learner whose every learner process forks until the kernel
    refuses, an honest classmate keeps 8/8: the limits on processes are the learner's own (a user
    namespace and a pids group per learner process, within the checks' group), never shared."""
    holder = make_learner(tmp_path / "class" / "a-holder", "complete", checkout=False)
    file = holder / "01-init-db" / "step.py"
    file.write_text(HOLDER + file.read_text())
    make_learner(tmp_path / "class" / "b-honest", "complete", checkout=False)
    stop, seen = threading.Event(), []
    watcher = threading.Thread(target=_watch_processes, args=(stop, seen))
    watcher.start()
    try:
        arguments = ["class", str(tmp_path / "class"), "--out", str(tmp_path / "out"), "--no-mutants"]
        done = subprocess.run(
            [sys.executable, "-m", "lab", *arguments, "--jobs", "2", "--budget", "16", "--lang", "en"],
            cwd=LAB_ROOT,
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        stop.set()
        watcher.join()
    rows = {row.split(",")[0]: row for row in (tmp_path / "out" / "class.csv").read_text("utf-8-sig").splitlines()}
    assert ",8/8," in rows["b-honest"] and ",8/8," not in rows["a-holder"], done.stdout + done.stderr
    if process._can_make_groups(process.PIDS_HIERARCHY):  # seen through the kernel's counters
        assert max(seen) >= 200, ("the holder never held many processes", max(seen, default=0))
