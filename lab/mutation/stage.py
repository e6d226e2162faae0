"""Stage the code under test and the checks in .mutmut-stage/, and run mutmut 3 there.

mutmut always works in a folder named ``mutants/`` in the current directory, the name of our
pre-built mutants folder too; so it runs only inside the ignored stage, never at the root. The
stage is kept between runs: mutmut then re-tests only the functions whose text changed.
"""

import json
import os
import shutil
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

from lab import cache
from lab.model.course import LAB_ROOT
from lab.model.targets import PLAN_VARIABLE, Target

STAGE_DIR = LAB_ROOT / ".mutmut-stage"
MODULE = "lease"  # the staged module's import name: mutmut's trampoline needs exactly this one
WORKERS = 2

SETUP_CFG = """\
# Written by lab.mutation on every run; mutmut reads its configuration from this folder only.
[mutmut]
source_paths = {module}.py
also_copy =
    checks/
pytest_add_cli_args =
    -c
    checks/pytest.ini
    -p
    no:cacheprovider
pytest_add_cli_args_test_selection =
    checks/
"""


def stage(module_text, stage_dir=STAGE_DIR):
    """Write the module, a fresh copy of the checks and setup.cfg; keep mutmut's results."""
    stage_dir.mkdir(exist_ok=True)
    # mutmut re-tests only mutants whose function changed; changed checks change every verdict.
    checks = sorted((LAB_ROOT / "checks").glob("*.py")) + sorted((LAB_ROOT / "checks").glob("*.ini"))
    checks_digest = cache.key(*(f"{path.name}\0{path.read_text(encoding='utf-8')}" for path in checks))
    recorded = stage_dir / "checks.sha256"
    if not recorded.exists() or recorded.read_text(encoding="utf-8") != checks_digest:
        shutil.rmtree(stage_dir / "mutants", ignore_errors=True)
        recorded.write_text(checks_digest, encoding="utf-8")
    _write_if_changed(stage_dir / f"{MODULE}.py", module_text)
    _write_if_changed(stage_dir / "setup.cfg", SETUP_CFG.format(module=MODULE))
    # mutmut's copy merges into what is there: a check removed from checks/ would linger.
    for copy in (stage_dir / "checks", stage_dir / "mutants" / "checks"):
        shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(LAB_ROOT / "checks", stage_dir / "checks", ignore=shutil.ignore_patterns("__pycache__"))
    return stage_dir


def plan(steps, stage_dir=STAGE_DIR):
    """Tell the staged checks which steps mutmut's test runs check (those that pass)."""
    plan = {"targets": [asdict(Target("mutmut", tuple(steps), module=MODULE))]}
    _write_if_changed(stage_dir / "plan.json", json.dumps(plan, indent=1) + "\n")


def _write_if_changed(path, text):
    """Keep the file's mtime when its text is the same, so that mutmut sees nothing new."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


# mutmut has no command that only generates the mutants; these are the first steps of its run.
GENERATE = """
import os
from mutmut.__main__ import create_mutants, store_lines_covered_by_tests
from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir, setup_source_paths
os.makedirs("mutants", exist_ok=True)
copy_src_dir(); copy_also_copy_files(); setup_source_paths(); store_lines_covered_by_tests()
create_mutants({workers})
"""


def start_generating(stage_dir=STAGE_DIR, workers=WORKERS):
    """Start mutmut writing its mutants without testing them; generated() waits for it.

    It needs only the module, not the plan: it runs while the implementation's checks do.
    """
    return subprocess.Popen(
        [sys.executable, "-c", GENERATE.format(workers=workers)], cwd=stage_dir, env=_environment(stage_dir),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def generated(process, stage_dir=STAGE_DIR):
    """Whether mutmut wrote its mutants; False if this mutmut cannot only generate."""
    process.communicate()
    return process.returncode == 0 and (Path(stage_dir) / "mutants" / f"{MODULE}.py").exists()


def start_mutmut(names=(), stage_dir=STAGE_DIR, workers=WORKERS, echo=False):
    """Start ``mutmut run`` in the stage, of the named mutants or all; finish() waits for it."""
    return subprocess.Popen(
        [sys.executable, "-m", "mutmut", "run", "--max-children", str(workers), *names],
        cwd=stage_dir, env=_environment(stage_dir), stdin=subprocess.DEVNULL, text=True,
        stdout=None if echo else subprocess.PIPE, stderr=subprocess.STDOUT,
    )


def finish(process, stage_dir=STAGE_DIR):
    """Wait for mutmut; it exits 0 even with survivors, so only a crash raises."""
    output, _ = process.communicate()
    if process.returncode != 0:
        raise MutmutFailed(f"mutmut run failed (exit {process.returncode}) in {stage_dir}:\n{(output or '')[-3000:]}")


def results(stage_dir=STAGE_DIR):
    """Mutant name -> mutmut's status word (killed, survived, timeout, no tests, ...).

    What ``mutmut results --all true`` prints, read with the same mutmut classes in this process:
    the command costs a second per call, mostly starting Python and importing mutmut's CLI.
    """
    try:
        from mutmut.mutation.data import SourceFileMutationData
        from mutmut.stats import status_by_exit_code
    except ImportError:  # another mutmut layout: ask the command
        return _results_from_command(stage_dir)
    data = SourceFileMutationData(path=f"{MODULE}.py")
    data.meta_path = Path(stage_dir) / "mutants" / f"{MODULE}.py.meta"
    data.load()
    return {name: status_by_exit_code[code] for name, code in data.exit_code_by_key.items()}


def _results_from_command(stage_dir):
    done = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=stage_dir, env=_environment(stage_dir), capture_output=True, text=True, check=True,
    )
    statuses = {}
    for line in done.stdout.splitlines():
        name, _, status = line.strip().partition(": ")
        if status:
            statuses[name] = status
    return statuses


def mutated_source(stage_dir=STAGE_DIR):
    """mutmut's copy of the module, in which every mutant is a function of its own."""
    return (Path(stage_dir) / "mutants" / f"{MODULE}.py").read_text(encoding="utf-8")


def _environment(stage_dir):
    env = {key: value for key, value in os.environ.items() if key != PLAN_VARIABLE}
    env[PLAN_VARIABLE] = str(Path(stage_dir).resolve() / "plan.json")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # the checks import lab: this checkout's, even where another one is installed
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(LAB_ROOT), env.get("PYTHONPATH")]))
    return env


class MutmutFailed(Exception):
    """mutmut itself stopped: its clean run of the checks failed, or it crashed."""
