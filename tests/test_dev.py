"""`python -m lab dev check` and `dev new-step`: the course kept whole from course.toml alone.

new-step runs in a temporary copy of the lab (its own `lab` package on PYTHONPATH), never in this tree.
"""

import shutil
import subprocess
import sys

import pytest

from lab.dev import tree
from lab.model.course import LAB_ROOT, load_course
from lab.model.prediction_template import prediction_template
from lab.model.pristine import prediction_text
from lab.model.status import ExitStatus

COURSE = load_course()


def lab(root, *arguments):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root), "LAB_LANG": "en"}
    return subprocess.run(
        [sys.executable, "-m", "lab", *arguments], cwd=root, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def copy(tmp_path):
    """A copy of the lab's course: its code, manifest, steps, solutions, checks and mutants."""
    root = tmp_path / "lab"
    for part in ("lab", "checks", "mutants", "steps", "solutions"):
        shutil.copytree(LAB_ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__", ".lab"))
    shutil.copy(LAB_ROOT / "course.toml", root)
    for step in COURSE:  # the templates as shipped, whatever the learner wrote in this checkout
        (root / "steps" / step.dir / "prediction.py").write_text(prediction_text(step), encoding="utf-8")
    return root


@pytest.mark.parametrize("step", COURSE, ids=lambda s: s.dir)
def test_every_shipped_prediction_template_is_the_one_course_toml_makes(step):
    assert prediction_template(step) == prediction_text(step)


def test_the_tree_is_what_the_manifest_says():
    assert tree.problems() == []
    assert lab(LAB_ROOT, "dev", "check", "--no-run").returncode == ExitStatus.ALL_PASS


def test_dev_check_names_a_clause_without_a_check_or_a_mutant_and_a_folder_the_manifest_lacks(copy):
    contract = copy / "steps" / COURSE[1].dir / "CONTRACT.md"
    contract.write_text(contract.read_text(encoding="utf-8") + "- **C2.9** A clause nobody checks.\n", encoding="utf-8")
    (copy / "solutions" / "42-stray").mkdir()
    done = lab(copy, "dev", "check", "--no-run")
    assert done.returncode == ExitStatus.LAB_BROKEN
    assert done.stdout.splitlines() == [
        "solutions/42-stray: a step folder course.toml does not list",
        "C2.9: no check names it (@pytest.mark.clause)",
        "C2.9: no mutant breaks it, and course.toml's unmutated does not say why",
    ]


def test_new_step_scaffolds_the_next_step_and_dev_check_lists_only_the_authors_part(copy):
    done = lab(copy, "dev", "new-step", "release-all", "--parameters", "path,owner")
    assert done.returncode == ExitStatus.ALL_PASS, done.stderr
    last = len(COURSE) + 1
    folder = f"{last:02d}-release-all"
    assert f'dir = "{folder}"\nfunction = "release_all"\nparameters = ["path", "owner"]' in (
        copy / "course.toml"
    ).read_text(encoding="utf-8")
    stub = (copy / "steps" / folder / "step.py").read_text(encoding="utf-8")
    assert stub.startswith("def release_all(path, owner):") and f"TODO(step {last})" in stub
    assert f"the {'nine' if last == 9 else last} functions" in (
        copy / "steps" / COURSE[0].dir / "prediction.py"
    ).read_text(encoding="utf-8")
    checked = lab(copy, "dev", "check", "--no-run")
    assert checked.returncode == ExitStatus.LAB_BROKEN
    assert checked.stdout.splitlines() == [
        f"step {last}: no checks/test_{last:02d}_*.py",
        f"step {last}: no mutants/m{last}-*.toml",
        f"C{last}.1: no check names it (@pytest.mark.clause)",
        f"C{last}.1: no mutant breaks it, and course.toml's unmutated does not say why",
    ]
    again = lab(copy, "dev", "new-step", "release-all")
    assert again.returncode == ExitStatus.USAGE and again.stderr.count("\n") == 1
