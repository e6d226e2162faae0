"""Checking a whole class: every learner folder under DIR with the instructor's checks, a table
learner x step as Markdown and CSV, one line per learner, and the kill matrix once."""

import csv
import subprocess
import sys

import pytest
from learner_folders import fingerprint, make_learner

from lab.grading import kill_matrix
import lab.grading.classroom as classroom
from lab.model.course import LAB_ROOT
from lab.running.runner import run
from lab.model.status import ExitStatus
from lab.model.targets import Target

CLASS = {  # learner -> (kind, a checkout of the lab or just steps/)
    "ada": ("complete", True),
    "ben": ("half_done", False),
    "cho": ("syntax_error", False),
    "eve": ("tampering", True),
}


@pytest.fixture(scope="module")
def class_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("class")
    for name, (kind, checkout) in CLASS.items():
        make_learner(root / name, kind, checkout)
    (root / "gus").mkdir()  # handed in nothing
    (root / "notes.txt").write_text("not a learner")
    before = fingerprint(root)
    out = tmp_path_factory.mktemp("out")
    arguments = ["class", str(root), "--out", str(out), "--time-limit", "10", "--no-mutants"]
    done = subprocess.run([sys.executable, "-m", "lab", *arguments], cwd=LAB_ROOT, capture_output=True, text=True, timeout=300)
    rows = list(csv.reader((out / "class.csv").open(encoding="utf-8")))
    return done, {row[0]: row for row in rows[1:]}, rows[0], out, before, fingerprint(root)


def test_the_table_has_one_row_per_learner_and_one_column_per_step(class_run):
    done, rows, header, _, _, _ = class_run
    assert done.returncode == ExitStatus.SOME_FAIL, done.stdout + done.stderr
    assert header == ["learner", *(f"step {n}" for n in range(1, 9)), "predictions", "summary"]
    assert sorted(rows) == ["ada", "ben", "cho", "eve", "gus"]


def test_each_cell_says_passed_failed_or_error(class_run):
    _, rows, _, _, _, _ = class_run
    assert rows["ada"][1:9] == ["passed"] * 8
    assert rows["ben"][1:5] == ["passed"] * 4 and rows["ben"][5:9] == ["not implemented"] * 4
    assert rows["cho"][5].startswith("error: ") and "SyntaxError" in rows["cho"][5]
    assert rows["eve"][1:9] == ["not implemented"] * 8  # its own checks and conftest changed nothing
    assert rows["gus"][1].startswith("error: no steps/ folder")


def test_one_summary_line_per_learner_in_the_output_and_the_markdown(class_run):
    done, rows, _, out, _, _ = class_run
    markdown = (out / "class.md").read_text(encoding="utf-8")
    assert "ada: 8/8 steps pass" in done.stdout and "ada: 8/8 steps pass" in markdown
    assert "ben: 4/8 steps pass" in done.stdout and "first problem: step 5 not implemented" in rows["ben"][-1]
    assert markdown.count("\n| ") == 1 + len(rows)  # the header and one row per learner
    assert (out / "learners" / "ada.json").exists()


def test_no_learner_file_is_changed(class_run):
    _, _, _, _, before, after = class_run
    assert after == before


def test_the_kill_matrix_runs_once_for_the_whole_class(tmp_path, monkeypatch):
    for name in ("one", "two"):
        make_learner(tmp_path / name, "stubs", checkout=False)
    calls = []
    monkeypatch.setattr(kill_matrix, "results", lambda *a, **k: calls.append(a) or ([], True))
    outcome = classroom.check_class(tmp_path, time_limit=3)
    assert len(calls) == 1 and len(calls[0][0]) == len(classroom.load_mutants())
    assert [s.name for s in outcome.submissions] == ["one", "two"]
    assert all(classroom.cell([r for r in s.results if r.step == 4]) == "not implemented" for s in outcome.submissions)


def test_a_learner_out_of_budget_gets_the_rest_reported_not_run(tmp_path):
    impl = make_learner(tmp_path / "slow", "endless_loop", checkout=False)
    results = run([Target("slow", (5,), impl=str(impl))], time_limit=1, budget=2.5)
    assert results and all(r.status in ("timeout", "passed") for r in results)
    assert any("time budget of 2.5 s" in r.message for r in results)
