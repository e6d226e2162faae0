"""The whole path, played by a learner in a clone of the lab: the first look (nothing given away),
three kinds of prediction, hint, progress, reset and restore, then every step filled with the
reference one by one, each checked as it is done."""

import json
import re
import shutil
import subprocess
import sys

import pytest
from hang import HANGS_AFTER

from lab.model.course import LAB_ROOT, load_course
from lab.model.pristine import stub_text

COURSE = load_course()
CATCHES = """
def test_my_prediction(lease, db):
    lease.init_db(db)  # the table is there already, as when a worker restarts
"""
MISSES = """
def test_my_prediction(lease, new_db):
    path = new_db(with_table=False)
    lease.init_db(path)
    assert lease.enqueue(path, "job") is True
"""
REJECTS = """
def test_my_prediction(lease, db):
    assert lease.init_db(db) == "created"
"""


def clone(tmp_path):
    """This checkout as a learner gets it, history included; the kill matrix cache comes along
    (its key is the lab's files, equal in the copy) so that mutants cost nothing here."""
    copy = tmp_path / "lab"
    ignore = shutil.ignore_patterns(".venv", "build", "reports", ".mutmut-stage", "__pycache__", ".lab", ".hypothesis")
    shutil.copytree(LAB_ROOT, copy, ignore=ignore)
    if (LAB_ROOT / "build" / "cache").is_dir():
        shutil.copytree(LAB_ROOT / "build" / "cache", copy / "build" / "cache")
    for step in COURSE:  # whatever this checkout's steps/ holds, the learner starts from the stubs
        (copy / "steps" / step.dir / "step.py").write_text(stub_text(step), encoding="utf-8")
    return copy


class Learner:
    def __init__(self, folder):
        self.folder = folder

    def run(self, *arguments):
        """(exit status, what the terminal shows) of `python -m lab ...` in the clone."""
        done = subprocess.run(
            [sys.executable, "-m", "lab", *arguments],
            cwd=self.folder,
            capture_output=True,
            text=True,
            timeout=HANGS_AFTER,
            env={"PATH": "/usr/bin:/bin", "HOME": str(self.folder), "LAB_LANG": "en"},
        )
        return done.returncode, done.stdout + done.stderr

    def fill(self, step):
        shutil.copy(LAB_ROOT / "solutions" / step.dir / "step.py", self.step_file(step))

    def step_file(self, step):
        return self.folder / "steps" / step.dir / "step.py"

    def predict(self, text):
        (self.folder / "steps" / COURSE[0].dir / "prediction.py").write_text(text, encoding="utf-8")

    def check(self, step, *flags):
        """(exit status, report, the JSON summary per step) of `python -m lab check STEP`."""
        results = self.folder / "build" / "results.json"
        status, shown = self.run("check", str(step), "--json", str(results), *flags)
        summary = json.loads(results.read_text(encoding="utf-8"))["summary"]
        return status, shown, {int(n): s["passed"] for n, s in summary.items()}


@pytest.fixture
def learner(tmp_path):
    return Learner(clone(tmp_path))


def test_a_learner_walks_the_whole_course(learner):
    first = COURSE[0]
    # The first look: step 1 is a stub, its prediction the untouched template, nothing given away.
    status, shown, passed = learner.check(1)
    assert status == 1 and passed == {1: False}
    assert "not implemented yet: steps/01-init-db/step.py" in shown
    assert "No prediction yet: write test_my_prediction in steps/01-init-db/prediction.py" in shown
    assert "1-a C1.3 (the broken change to review)" in shown and "SHOW=all" not in shown  # for instructors
    assert "caught by" not in shown and "still passes" not in shown and "+ CREATE TABLE jobs" not in shown
    assert "m1-create-without-if-not-exists" not in shown and "a restarting worker cannot start" not in shown
    _, shown, _ = learner.check(1, "--show", "all")
    assert "caught by" in shown and "+ CREATE TABLE jobs" in shown  # for instructors

    # Hints one at a time, questions first; progress names the next step.
    questions = first.questions("C1.1", "en")  # nothing fails yet but the stub: the contract's order
    status, shown = learner.run("hint", "1")
    assert status == 0 and questions[0] in shown and questions[1] not in shown
    _, shown = learner.run("hint", "1")
    assert questions[1] in shown
    status, shown = learner.run("progress")
    assert status == 0 and "not started" in shown and "Next: step 1" in shown

    # Step 1 done: it passes, step 2 is next and not implemented.
    learner.fill(first)
    status, shown, passed = learner.check(2, "--no-mutants")
    assert status == 1 and passed == {1: True, 2: False}
    assert "not implemented yet: steps/02-enqueue/step.py" in shown

    # Three predictions of step 1, each run against the reference and step 1's mutants.
    learner.predict(CATCHES)
    status, shown, _ = learner.check(1, "--strict")
    assert status == 0, shown
    assert re.search(r"Your prediction catches [1-9] of 5 mutants, the broken change to review among them", shown)
    snippet = shown[shown.index("m1-create-without-if-not-exists") :]
    assert snippet.index("caught by:") < snippet.index("your prediction: caught")
    _, shown = learner.run("progress")
    assert "prediction: catches" in shown

    learner.predict(MISSES)
    status, shown, _ = learner.check(1)
    assert status == 0 and "but not the broken change to review" in shown  # predictions gate nothing...
    status, shown, _ = learner.check(1, "--strict")
    assert status == 1 and "STRICT=1" in shown  # ...unless STRICT=1

    learner.predict(REJECTS)
    status, shown, _ = learner.check(1)
    assert status == 0 and "rejects correct code" in shown and "assert None == 'created'" in shown
    _, shown = learner.run("progress")
    assert "rejects correct code" in shown

    # Reset keeps a backup it names; restore brings the learner's file back.
    mine = learner.step_file(first).read_text(encoding="utf-8") + "\n# my notes\n"
    learner.step_file(first).write_text(mine, encoding="utf-8")
    status, shown = learner.run("reset", "1")
    backup = re.search(r"\.lab/backups/\S+", shown)
    assert status == 0 and backup and (learner.folder / backup[0] / "step.py").read_text(encoding="utf-8") == mine
    assert learner.step_file(first).read_text(encoding="utf-8") == stub_text(first)
    status, shown = learner.run("restore", "1")
    assert status == 0 and learner.step_file(first).read_text(encoding="utf-8") == mine

    # The other seven steps, one by one: each passes with all before it, the next waits for its code.
    for step in COURSE[1:-1]:
        learner.fill(step)
        status, shown, passed = learner.check(step.number + 1, "--no-mutants")
        assert status == 1 and passed == {n: n <= step.number for n in range(1, step.number + 2)}, shown
        following = COURSE[step.number]
        assert f"not implemented yet: steps/{following.dir}/step.py" in shown
    learner.fill(COURSE[-1])
    status, shown, passed = learner.check(len(COURSE), "--no-mutants")
    assert status == 0 and all(passed.values()) and len(passed) == len(COURSE), shown
    status, shown = learner.run("progress")
    assert status == 0 and f"({len(COURSE)}/{len(COURSE)})" in shown
