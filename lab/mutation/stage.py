"""Stage the code under test in .mutmut-stage/, and have mutmut 3 write its mutants there.

mutmut makes the mutants; the lab's checker runs the checks against them (lab.grading.kill_matrix),
one runner for mutmut's mutants and the pre-built ones alike. mutmut always works in a folder
named ``mutants/`` in the current directory, the name of our pre-built mutants folder too; so it
runs only inside the ignored stage, never at the root. The stage is kept between runs: mutmut
runs again only when the module's text changed.
"""

import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from importlib.metadata import version
from pathlib import Path

from lab import cache
from lab.model.course import LAB_ROOT, load_course
from lab.model.implementation import STEP_FILE
from lab.model.results import Said
from lab.process import spawn

STAGE_DIR = LAB_ROOT / ".mutmut-stage"
MODULE = "lease"  # the staged module's name: mutmut names its mutants after it (lease.x_claim__mutmut_19)
WORKERS = 2
GENERATE_LIMIT = 300  # seconds mutmut may take to write the mutants (about 2 s on two cores)

SETUP_CFG = """\
# Written by lab.mutation on every run; mutmut reads its configuration from this folder only.
[mutmut]
source_paths = {module}.py
# copy nothing else into mutants/: mutmut only writes the mutants here, the lab's checker runs them
also_copy =
"""


def stage(module_text, stage_dir=STAGE_DIR):
    """Write the module and setup.cfg."""
    stage_dir.mkdir(exist_ok=True)
    _write_if_changed(stage_dir / f"{MODULE}.py", module_text)
    _write_if_changed(stage_dir / "setup.cfg", SETUP_CFG.format(module=MODULE))
    return stage_dir


def snapshot(implementation, stage_dir=STAGE_DIR):
    """The implementation's files as they were read, written to the stage: the checks of its
    passing steps run exactly the text that their cache keys were made of, even when the learner
    saves a file while the report runs. Returns the copy's path, a folder or a single .py file."""
    folder = Path(stage_dir) / "impl"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    if len(implementation.files) == 1:  # one .py file for every step (a folder has one per step)
        copy = folder / "impl.py"
        copy.write_text(implementation.files[0].text or "", encoding="utf-8")
        return copy
    course = load_course()
    for file in implementation.files:
        if file.text is not None:  # a missing or refused file stays missing: its step fails either way
            path = folder / course[file.steps[0] - 1].dir / STEP_FILE
            path.parent.mkdir()
            path.write_text(file.text, encoding="utf-8")
    return folder


def _write_if_changed(path, text):
    """Keep the file's mtime when its text is the same, so that mutmut sees nothing new."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


# mutmut has no command that only generates the mutants; these are the first steps of its run
# (mutmut 3.8's layout: pyproject.toml pins the minor version).
GENERATE = """
import os
from mutmut.__main__ import create_mutants, store_lines_covered_by_tests
from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir, setup_source_paths
os.makedirs("mutants", exist_ok=True)
copy_src_dir(); copy_also_copy_files(); setup_source_paths(); store_lines_covered_by_tests()
create_mutants({workers})
"""


@contextmanager
def generating(stage_dir=STAGE_DIR, workers=WORKERS):
    """mutmut writing its mutants while the block runs, beside the implementation's checks (it
    needs only the module); generated() waits for it. None when the mutants of this very module
    are there already: mutmut would take seconds to find that out. Ended, with whatever it
    started, when the block leaves before it is done (an error, Ctrl-C)."""
    if _generated_from(stage_dir) == _source_key(stage_dir):
        yield None
        return
    process = spawn(
        [sys.executable, "-c", GENERATE.format(workers=workers)],
        cwd=stage_dir,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.end()
            process.communicate()


def generated(process, stage_dir=STAGE_DIR):
    """mutmut's copy of the module, in which every mutant is a function of its own, once it is
    written; MutmutFailed, with mutmut's last words, when it could not be within GENERATE_LIMIT."""
    mutated = Path(stage_dir) / "mutants" / f"{MODULE}.py"
    if process is not None:
        try:
            output, _ = process.communicate(timeout=GENERATE_LIMIT)
        except subprocess.TimeoutExpired:
            raise MutmutFailed("mutation.mutmut_hung", seconds=GENERATE_LIMIT) from None
        if process.returncode != 0 or not mutated.exists():
            raise MutmutFailed(
                "mutation.mutmut_failed", code=process.returncode, folder=stage_dir, output=(output or "")[-3000:]
            )
        _marker(stage_dir).write_text(_source_key(stage_dir), encoding="utf-8")
    return mutated.read_text(encoding="utf-8")


def _source_key(stage_dir):
    """The staged module and setup.cfg, and the mutmut that mutates them."""
    texts = [(Path(stage_dir) / name).read_text(encoding="utf-8") for name in (f"{MODULE}.py", "setup.cfg")]
    return cache.key(*texts, version("mutmut"))


def _generated_from(stage_dir):
    """The _source_key of the mutants in the stage, or None."""
    try:
        return _marker(stage_dir).read_text(encoding="utf-8")
    except OSError:
        return None


def _marker(stage_dir):
    return Path(stage_dir) / "mutants" / f"{MODULE}.py.source-key"


class MutmutFailed(Said):
    """mutmut itself stopped, or step 1 of the code does not pass: there is nothing to mutate."""
