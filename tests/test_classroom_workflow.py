"""GitHub Classroom's workflow (lab/grading/autograding.py): generated from course.toml, one
autograding test per step worth its points, the score reported by Classroom's own reporter; the
committed file is the generated one. And check.yml's summary survives a missing results file."""

import shutil
import subprocess
import sys

import pytest
from hang import HANGS_AFTER
from learner_folders import make_learner

from lab.grading import autograding
from lab.model.course import LAB_ROOT, PARTS, load_course
from lab.model.status import ExitStatus
from lab.text.messages import say

TEXT = autograding.workflow(load_course())


def test_one_autograding_test_per_step_with_its_points_and_its_credit_command():
    for step in load_course():
        block = TEXT[TEXT.index(f"        id: step{step.number}\n") :]
        block = block[: block.index("      - name:", 1)]
        assert f"uses: {autograding.GRADER}" in block and f"max-score: {step.points}\n" in block
        assert f"command: python -m lab check {step.number} --credit --no-mutants --impl steps\n" in block
        assert f'STEP{step.number}_RESULTS: "${{{{ steps.step{step.number}.outputs.result }}}}"' in TEXT
    assert TEXT.count(autograding.GRADER) == len(load_course()) and TEXT.count(autograding.REPORTER) == 1
    assert TEXT.endswith(f"runners: {','.join(f'step{n}' for n in range(1, len(load_course()) + 1))}\n")


def test_the_committed_workflow_is_the_generated_one():
    assert (LAB_ROOT / ".github" / "workflows" / "classroom.yml").read_text(encoding="utf-8") == TEXT


def test_the_make_target_writes_it(tmp_path):
    out = tmp_path / "classroom.yml"
    done = subprocess.run(
        [sys.executable, "-m", "lab", "classroom-workflow", "--out", str(out)],
        cwd=LAB_ROOT,
        capture_output=True,
        text=True,
        timeout=HANGS_AFTER,
    )
    assert done.returncode == 0 and out.read_text(encoding="utf-8") == TEXT, done.stderr


def test_check_yml_summary_says_so_when_no_results_file_was_written(tmp_path):
    workflow = (LAB_ROOT / ".github" / "workflows" / "check.yml").read_text(encoding="utf-8")
    start = workflow.index("\n", workflow.index("<<'PY'")) + 1
    script = workflow[start : workflow.index("\n          PY")]
    script = "\n".join(line[10:] for line in script.splitlines())
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=HANGS_AFTER
    )
    assert done.returncode == 0 and "no results were written" in done.stdout, done.stderr


def test_a_step_s_credit_command_fails_only_the_step_whose_function_is_broken(tmp_path):
    """A `>=` in claim: step 4's test loses its points, step 5's does not (its course verdict would)."""
    steps = make_learner(tmp_path / "bug4", "complete", checkout=False)
    claim = steps / "04-claim" / "step.py"
    claim.write_text(claim.read_text(encoding="utf-8").replace("row[0] > now", "row[0] >= now"), encoding="utf-8")

    def credit(step):
        command = ["check", str(step), "--credit", "--no-mutants", "--impl", str(steps)]
        return subprocess.run(
            [sys.executable, "-m", "lab", *command], cwd=LAB_ROOT, capture_output=True, text=True, timeout=HANGS_AFTER
        )

    four, five = credit(4), credit(5)
    assert four.returncode == ExitStatus.SOME_FAIL and "C4.5" in four.stdout, four.stdout + four.stderr
    assert five.returncode == ExitStatus.ALL_PASS and "Step 4" not in five.stdout, five.stdout + five.stderr


# An honest mistake that stops a file from loading costs its own step, as a logic bug does: the
# reference stands in for the broken function in every later step's credit.
MISTAKES = {
    "a colon missing in step 4": (
        "04-claim",
        "def claim(path, job_id, owner, now, ttl):",
        "def claim(path, job_id, owner, now, ttl)",
        4,
    ),
    "a typo in an import of step 2": (
        "02-enqueue",
        "from contextlib import closing",
        "from contextlib import closin",
        2,
    ),
}


@pytest.mark.parametrize("mistake", MISTAKES)
def test_a_file_that_does_not_load_costs_its_own_step_and_no_later_one(tmp_path, mistake):
    folder, before, after, broken = MISTAKES[mistake]
    steps = make_learner(tmp_path / "mistake", "complete", checkout=False)
    step_file = steps / folder / "step.py"
    text = step_file.read_text(encoding="utf-8")
    assert before in text
    step_file.write_text(text.replace(before, after), encoding="utf-8")

    def credit(step):
        command = ["check", str(step), "--credit", "--no-mutants", "--impl", str(steps)]
        return subprocess.run(
            [sys.executable, "-m", "lab", *command], cwd=LAB_ROOT, capture_output=True, text=True, timeout=HANGS_AFTER
        )

    own = credit(broken)
    assert own.returncode == ExitStatus.SOME_FAIL and "step.py" in own.stdout, own.stdout + own.stderr
    for later in (broken + 1, load_course()[-1].number):
        done = credit(later)
        assert done.returncode == ExitStatus.ALL_PASS, (later, done.stdout + done.stderr)


@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_repository_without_one_of_the_labs_folders_is_told_which_and_why(tmp_path, part, lang):
    """A learner repository made from the template without solutions/ scored 0 on every step
    ("no such folder"), and without mutants/ "0 of 0 checks pass": now the lab says it is broken,
    names the folder and what it is for, and grades nothing."""
    root = tmp_path / "lab"
    for kept in ("lab", *PARTS, "steps"):
        if kept != part:
            shutil.copytree(LAB_ROOT / kept, root / kept, ignore=shutil.ignore_patterns("__pycache__", ".lab"))
    shutil.copy(LAB_ROOT / "course.toml", root)
    command = ["check", "5", "--credit", "--no-mutants", "--lang", lang]
    done = subprocess.run(
        [sys.executable, "-m", "lab", *command], cwd=root, capture_output=True, text=True, timeout=HANGS_AFTER
    )
    error = say("missing_part", lang, folder=part, why=say(f"part_{part}", lang))
    assert done.returncode == ExitStatus.LAB_BROKEN and done.stderr.strip() == say("lab_broken", lang, error=error)
    assert f"{part}/" in done.stderr and "Traceback" not in done.stderr and done.stdout == ""
    hint = subprocess.run(
        [sys.executable, "-m", "lab", "hint", "5", "--lang", lang],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=HANGS_AFTER,
    )
    assert hint.returncode == ExitStatus.ALL_PASS, hint.stderr  # a verb that needs none of them still works
