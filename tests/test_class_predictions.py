"""A class's predictions in the gradebook: per step whether one is written, the mutants it caught
of how many and whether it caught the change to review, then the totals, a prediction not judged
counted in none of them; the learners whose predictions moved since the last run are named; and
--regrade-all runs the predictions again."""

import csv
import shutil

import pytest
from test_prediction_losses import CATCHES, KILLS_ITSELF

import lab.grading.classroom as classroom
from lab import cache
from lab.grading import class_outputs, class_table, kill_matrix, predictions
from lab.model.course import LAB_ROOT, load_course
from lab.model.mutants import load_mutants
from lab.model.prediction_file import PREDICTION_FILE

STEPS = [step.number for step in load_course()]
OWN = {n: sum(m.step == n for m in load_mutants()) for n in STEPS}  # each step's mutants
HAPPY_PATH_5 = """
def test_my_prediction(lease, db):
    lease.enqueue(db, "job")
    assert lease.claim(db, "job", "A", now=0, ttl=10) == 1
    assert lease.renew(db, "job", "A", 1, now=5, ttl=10) is True
"""
REJECTS = """
def test_my_prediction(lease, db):
    assert lease.claim(db, "never-enqueued", "A", now=0, ttl=10) == 1
"""
CLASS = {  # learner -> {step: prediction}; every learner's step files are the reference's
    "ada": {4: CATCHES, 5: HAPPY_PATH_5},
    "ben": {4: REJECTS},
    "cho": {4: KILLS_ITSELF},  # not judged: its run is lost, and lost again
}


def write_class(root):
    for name, predicted in CLASS.items():
        shutil.copytree(LAB_ROOT / "solutions", root / name)
        for number, text in predicted.items():
            (root / name / load_course()[number - 1].dir / PREDICTION_FILE).write_text(text, encoding="utf-8")


def _steps(targets):
    return sorted({step for target in targets for step in target.steps})


def grades(out):
    header, *rows = csv.reader((out / "grades.csv").open(encoding="utf-8-sig"))
    return header, {row[1]: dict(zip(header, row)) for row in rows}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class graded, then graded again after ben rewrote his prediction, then with
    --regrade-all: (the three outcomes, the learners whose predictions ran in each, the out folder)."""
    tmp = tmp_path_factory.mktemp("class-predictions")
    write_class(tmp / "class")
    ran, runs = [], []
    real = predictions.run
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cache, "ROOT", tmp / "cache")
        patch.setattr(kill_matrix, "results", lambda *a, **k: ([], True))  # the matrix is not the point here
        patch.setattr(
            predictions, "run", lambda targets, *a, **k: ran.append(_steps(targets)) or real(targets, *a, **k)
        )
        for use_cache in (True, True, False):
            if len(runs) == 1:
                (tmp / "class" / "ben" / load_course()[3].dir / PREDICTION_FILE).write_text(CATCHES, encoding="utf-8")
            ran.clear()
            outcome = classroom.check_class(tmp / "class", time_limit=10, use_cache=use_cache)
            class_outputs.write(outcome, tmp / "out")
            runs.append((outcome, list(ran), grades(tmp / "out")))
    return runs, tmp / "out"


@pytest.mark.long
def test_the_gradebook_has_each_steps_prediction_and_the_totals(graded):
    first, _, (header, rows) = graded[0][0]
    for n in STEPS:
        assert [f"step{n}_prediction{part}" for part in ("", "_caught", "_mutants", "_review_caught")] == header[
            header.index(f"step{n}_prediction") : header.index(f"step{n}_prediction") + 4
        ]
    totals = ["predictions_written", "predictions_not_judged", "predictions_caught", "predictions_mutants"]
    assert set(totals) | {"predictions_review_caught"} <= set(header)
    ada, ben, cho = rows["ada"], rows["ben"], rows["cho"]
    caught_4 = next(p for s in first.submissions if s.name == "ada" for p in s.predictions if p.step == 4).caught_count
    assert caught_4 >= 1
    assert [ada[f"step4_prediction{p}"] for p in ("", "_caught", "_mutants", "_review_caught")] == [
        "written",
        str(caught_4),
        str(OWN[4]),
        "yes",
    ]
    assert ada["step5_prediction"] == "written" and ada["step5_prediction_review_caught"] == "no"
    caught_5 = int(ada["step5_prediction_caught"])
    assert ada["step6_prediction"] == "none" and ada["step6_prediction_caught"] == ""
    assert [ada[c] for c in totals] + [ada["predictions_review_caught"]] == [
        "2",
        "0",
        str(caught_4 + caught_5),
        str(OWN[4] + OWN[5]),
        "1",
    ]
    assert [ben[f"step4_prediction{p}"] for p in ("", "_caught", "_mutants", "_review_caught")] == [
        "rejects_correct_code",
        "0",
        str(OWN[4]),
        "no",
    ]
    assert [ben[c] for c in totals] == ["1", "0", "0", str(OWN[4])]  # wrong: 0 of the step's mutants
    # Not judged: neither right nor wrong, in no total but its own.
    assert [cho[f"step4_prediction{p}"] for p in ("", "_caught", "_mutants", "_review_caught")] == [
        "not_judged",
        "",
        str(OWN[4]),
        "",
    ]
    assert [cho[c] for c in totals] + [cho["predictions_review_caught"]] == ["1", "1", "0", "0", "0"]


@pytest.mark.long
def test_a_prediction_not_judged_reads_so_and_its_learner_is_graded_again(graded):
    (first, _, _), (second, ran, (_, rows)), _ = graded[0]
    table = {row[0]: row for row in class_table.table(first)}
    assert (
        table["cho"][-2]
        == "0/0 of its steps' mutants caught; step 4: not judged (its run ended without its results; it runs again next time)"
    )
    assert "判定なし" in class_table.table(first, "ja")[[r[0] for r in class_table.table(first)].index("cho")][-2]
    assert {s.name: s.cached for s in second.submissions} == {"ada": True, "ben": False, "cho": False}
    assert rows["cho"]["cached"] == "no" and rows["ada"]["cached"] == "yes"
    # cho's again; ben's new text is ada's, judged before (a verdict kept is served to all), and
    # ada's results are kept whole
    assert ran == [[4]]


@pytest.mark.long
def test_the_moved_list_names_a_learner_whose_predictions_moved(graded):
    (first, _, _), (second, _, _), _ = graded[0]
    caught = next(p for s in second.submissions if s.name == "ben" for p in s.predictions if p.step == 4).caught_count
    assert second.changes == [f"ben: predictions changed (mutants caught 0 -> {caught})"]


@pytest.mark.long
def test_regrade_all_runs_every_learners_predictions_again(graded):
    (_, _, _), (_, _, _), (third, ran, _) = graded[0]
    assert not any(s.cached for s in third.submissions)
    assert sorted(ran) == [[4], [4], [4, 5]]  # ben's, cho's, ada's two: none served from the cache
    assert third.changes == []


SYNTAX_ERROR = "def test_my_prediction(lease, db:\n    assert db\n"
NO_SUCH_FIXTURE = "def test_my_prediction(lease, db, tmp_file):\n    assert db\n"


def test_feedback_says_a_prediction_that_could_not_run_and_why_apart_from_one_that_rejects_correct_code(
    tmp_path, monkeypatch
):
    root = tmp_path / "class"
    shutil.copytree(LAB_ROOT / "solutions", root / "dan")
    for number, text in {4: SYNTAX_ERROR, 5: NO_SUCH_FIXTURE, 6: REJECTS}.items():
        (root / "dan" / load_course()[number - 1].dir / PREDICTION_FILE).write_text(text, encoding="utf-8")
    monkeypatch.setattr(cache, "ROOT", tmp_path / "cache")
    monkeypatch.setattr(kill_matrix, "results", lambda *a, **k: ([], True))  # the matrix is not the point here
    outcome = classroom.check_class(root, time_limit=10)
    class_outputs.write(outcome, tmp_path / "out")
    steps = (
        "step 4: could not run (SyntaxError: '(' was never closed); "
        "step 5: could not run (your prediction asks for the fixture `tmp_file`, which there is not: "
        "a prediction may take lease, d…); "
        "step 6: rejects correct code"
    )
    assert class_table.table(outcome)[1][-2] == f"0/{OWN[4] + OWN[5] + OWN[6]} of its steps' mutants caught; {steps}"
    feedback = (tmp_path / "out" / "feedback" / "dan.md").read_text(encoding="utf-8")
    assert "step 4: could not run (SyntaxError: '(' was never closed)" in feedback
    assert "step 4: rejects correct code" not in feedback and "step 6: rejects correct code" in feedback
    japanese = class_table.table(outcome, "ja")[1][-2]
    assert "ステップ 5: 実行できませんでした (予想が、存在しないフィクスチャ `tmp_file` を求めています。" in japanese
    _, rows = grades(tmp_path / "out")
    assert [rows["dan"][f"step{n}_prediction"] for n in (4, 5, 6)] == [
        "cannot_run",
        "cannot_run",
        "rejects_correct_code",
    ]
