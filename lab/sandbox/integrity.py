"""The grader checks itself: a fingerprint of the lab's own files, taken before and after a class run.

The sandbox already keeps learner code away from these files; the fingerprint is the proof, and
the alarm if anything (an unconfined run, a bug) ever changes them. The lab's code, checks,
reference and mutants are hashed, and so is every file Python runs when the virtual environment
starts (the .pth files and the modules beside them, such as the lab's editable finder). Every
installed file is compared by its status as the kernel keeps it: size, inode, and the change
time, which any write or restored modification time moves on (hashing 170 MB of packages would
cost seconds, and a hash cannot see a file written and then restored). Cached kill matrices
may gain entries during a run, never change a verdict or lose one: a result is fingerprinted by
what it decided (its target, step, check and status), so that a run of the same checks beside the
class run (`FRESH=1`, the guides' examples) may write again what varies from run to run, a race's
winner in a message or a duration, and no more.
"""

from __future__ import annotations

import hashlib
import json
import os
import sysconfig
from pathlib import Path
from typing import TYPE_CHECKING

from lab.model.course import LAB_ROOT

if TYPE_CHECKING:
    from typing import TypeAlias

    # {path: digest} of the lab's files, {path: (size, inode, mtime, ctime)} of the installed ones;
    # {path: digest} of the cache's entries.
    Fingerprint: TypeAlias = tuple[dict[str, str | tuple[int, int, int, int]], dict[str, str]]

HASHED = ("checks", "lab", "solutions", "mutants", "mutation", "course.toml", "Makefile", "pyproject.toml")
CACHES = ("build/cache",)  # lab/cache.py: the kill matrix, the predictions, the passing steps


def fingerprint() -> Fingerprint:
    """{path: digest} for the lab's files and the packages' start-up files, {path: (size, inode,
    mtime, ctime)} for every installed file."""
    found: dict[str, str | tuple[int, int, int, int]] = {}
    for name in HASHED:
        for path in _files(LAB_ROOT / name):
            found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    packages = Path(sysconfig.get_paths()["purelib"])
    for path in _files(packages):
        status = path.lstat()
        found[str(path)] = (status.st_size, status.st_ino, status.st_mtime_ns, status.st_ctime_ns)
    for path in packages.iterdir():  # what site.py and the .pth files run at every start
        if path.suffix in (".pth", ".py") and path.is_file():
            found[str(path) + "#sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found, _caches()


def _caches() -> dict[str, str]:
    """{path: digest} of the cache's entries: not the values being written beside them (lab/cache.py
    writes each to a hidden file first, and renames it into place), nor an entry gone between the
    walk and its reading (the next fingerprint says it is lost)."""
    found = {}
    for path in (path for name in CACHES for path in _files(LAB_ROOT / name) if not path.name.startswith(".")):
        try:
            text = path.read_bytes()
        except OSError:
            continue
        try:
            text = json.dumps(_decided(json.loads(text)), sort_keys=True).encode()
        except ValueError:
            pass  # not JSON: its bytes are what it holds
        found[str(path)] = hashlib.sha256(text).hexdigest()
    return found


VERDICT = ("target", "step", "check", "status")  # what a kept result decided (lab/model/results.py)


def _decided(value: object) -> object:
    """The value with each result in it reduced to what it decided."""
    if isinstance(value, dict):
        if all(name in value for name in VERDICT):
            return [value[name] for name in VERDICT]
        return {name: _decided(item) for name, item in value.items()}
    if isinstance(value, list):
        return [_decided(item) for item in value]
    return value


def changes(before: Fingerprint, after: Fingerprint) -> list[str]:
    """The paths that differ: added, removed or changed lab files; changed or lost cache entries."""
    (files, caches), (files_after, caches_after) = before, after
    changed = sorted(path for path in files.keys() | files_after.keys() if files.get(path) != files_after.get(path))
    changed += sorted(path for path, digest in caches.items() if caches_after.get(path) != digest)
    return [os.path.relpath(path, LAB_ROOT) for path in changed]


def _files(root: Path) -> list[Path]:
    """Every file and link under root, in order (no __pycache__ folder): one walk of the folders,
    where asking each path what it is would cost three calls of the kernel per installed file."""
    if root.is_file() or root.is_symlink():
        return [root]
    if not root.is_dir():
        return []
    found: list[Path] = []
    for folder, folders, files in os.walk(root):
        inside = [name for name in folders if not os.path.islink(os.path.join(folder, name))]
        found += [Path(folder, name) for name in (*files, *(name for name in folders if name not in inside))]
        folders[:] = [name for name in inside if name != "__pycache__"]
    return sorted(found)
