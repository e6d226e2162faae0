"""The class at a glance (lab/grading/classroom.py's glance, lab/grading/class_chart.py): who needs
help first, the clauses failed most and the mutants caught, as a section of class.md and as a
chart in PNG and SVG. Built from results as a class run leaves them, without running a class."""

import json
import warnings
from dataclasses import replace
from pathlib import Path

import pytest

from lab import cache
from lab.grading import chart_kept, class_chart, class_outputs, class_view, classroom
from lab.grading.submission import Submission
from lab.model.course import load_course
from lab.model.mutants import load_mutants
from lab.model.results import Prediction, PredictionOutcome, PredictionStatus, Result
from lab.text.messages import say

STEPS = [step.number for step in load_course()]
NOW = 1_800_000_000.0


def results(passing, failing=None, status="passed"):
    """One result per step: passed up to passing, then failing's clause, then not implemented."""
    found = []
    for n in STEPS:
        if n <= passing:
            found.append(Result(f"c{n}", f"test_{n}", "t", n, [f"C{n}.1"], status, "", 0.1))
        elif n == passing + 1 and failing:
            found.append(Result(f"c{n}", f"test_{n}", "t", n, [failing], "failed", "", 0.1))
        else:
            found.append(Result(f"c{n}", f"test_{n}", "t", n, [f"C{n}.1"], "not_implemented", "", 0.1))
    return found


def learner(name, passing, failing=None, days_ago=0.0, predicted=()):
    found = results(passing, failing)
    submission = Submission(
        name, Path(name), results=found, credit={r.step: [r] for r in found}, last_change=NOW - days_ago * 86400
    )
    every = load_mutants()
    submission.predictions = [
        Prediction(
            n, "p.py", PredictionStatus.WRITTEN, outcomes={m.id: PredictionOutcome.CAUGHT for m in every if m.step == n}
        )
        for n in predicted
    ]
    return submission


def a_class():
    return classroom.ClassRun(
        Path("/class"),
        [
            learner("ada", 8, predicted=(4,)),
            learner("ben", 3, "C4.5", days_ago=0.5, predicted=(4,)),
            learner("cho", 3, "C4.5", days_ago=9),
            learner("dan", 0, days_ago=2),
            learner("eve", 5, "C6.2", days_ago=1 / 24 / 6),
        ],
        [],
        1.0,
    )


def test_who_needs_help_first_least_credit_then_the_longest_without_a_change():
    lines = class_view.glance(a_class(), "en", now=NOW)
    helped = lines[
        lines.index("### Who needs help first (least credit first; then the longest since their last change)") + 2 :
    ]
    assert helped[:4] == [
        "- dan: never started; last change 2 days ago",
        "- cho: no credit at step 4: failed at C4.5; last change 9 days ago",
        "- ben: no credit at step 4: failed at C4.5; last change 12 h ago",
        "- eve: no credit at step 6: failed at C6.2; last change 10 min ago",
    ]
    assert "- C4.5: 2 learner(s)" in lines and "- C6.2: 1 learner(s)" in lines
    step_4 = [m for m in load_mutants() if m.step == 4]
    assert f"| {step_4[0].id}{' (the change to review)' if step_4[0].worksheet else ''} | 4 | 2 of 2 |" in lines
    assert f"{len(step_4)} of {len(load_mutants())} mutants caught by at least one learner." in lines


def test_the_chart_is_drawn_as_png_and_svg_and_the_same_class_draws_the_same_svg(tmp_path):
    outcome = a_class()
    first, second = tmp_path / "1", tmp_path / "2"
    for out in (first, second):
        out.mkdir()
        svg, png = class_chart.draw(class_view.mutants_caught(outcome), class_view.clauses_failed(outcome), 5, out)
    assert png.read_bytes().startswith(b"\x89PNG") and "C4.5" in svg.read_text(encoding="utf-8")
    assert (first / "class.svg").read_bytes() == (second / "class.svg").read_bytes()


def test_a_chart_drawn_once_is_taken_from_the_cache_for_the_same_numbers(tmp_path, monkeypatch):
    """A re-run that shows the same numbers in a language drawn before: matplotlib is not loaded."""
    monkeypatch.setattr(cache, "ROOT", tmp_path / "cache")
    outcome = a_class()
    caught, failed = class_view.mutants_caught(outcome), class_view.clauses_failed(outcome)
    drawn, kept, other, japanese = (tmp_path / name for name in ("drawn", "kept", "other", "japanese"))
    for out in (drawn, kept, other, japanese):
        out.mkdir()
    chart_kept.write(caught, failed, 5, drawn)
    monkeypatch.setattr(class_chart, "draw", lambda *a: pytest.fail("the same picture was drawn again"))
    chart_kept.write(caught, failed, 5, kept)
    for name in ("class.svg", "class.png"):
        assert (kept / name).read_bytes() == (drawn / name).read_bytes()
    with pytest.raises(pytest.fail.Exception):  # another number is another picture
        chart_kept.write(caught, failed, 6, other)
    with pytest.raises(pytest.fail.Exception):  # and so is another language
        chart_kept.write(caught, failed, 5, japanese, "ja")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_chart_is_worded_in_the_runs_language_with_a_font_that_has_every_glyph(tmp_path, lang):
    """matplotlib warns of a glyph its fonts lack (Japanese in DejaVu Sans draws as boxes): none may be missing."""
    outcome = a_class()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        svg, _ = class_chart.draw(
            class_view.mutants_caught(outcome), class_view.clauses_failed(outcome), 5, tmp_path, lang
        )
    text = svg.read_text(encoding="utf-8")  # the SVG keeps each text as a comment beside its glyphs
    assert say("class.chart_title", lang, count=5) in text and say("class.chart_learners", lang) in text
    other = "ja" if lang == "en" else "en"
    assert say("class.chart_title", other, count=5) not in text


def test_without_predictions_the_chart_says_so():
    outcome = a_class()
    for submission in outcome.submissions:
        submission.predictions = None
    assert class_view.mutants_caught(outcome) is None
    assert not any(
        "Mutants the class's predictions catch" in line for line in class_view.glance(outcome, "en", now=NOW)
    )


def test_feedback_to_hand_back_is_written_clean_as_markdown_html_junit_and_exercism(tmp_path):
    """The same class run writes every learner's files; none names the grading machine."""
    outcome = a_class()
    ben = outcome.submissions[1]
    bad = ben.credit[4][0]
    message = (
        f"called claim(db, ...) at {outcome.root}/ben/04-claim/step.py, line 3 in /run/lease-lab/scratch/x.db;"
        " got <object at 0x7f3a2b4c5d6e> <script>alert(1)</script>"
    )
    ben.credit[4] = [replace(bad, message=message)]
    ben.results = [replace(r, message=message) if r.step == 4 else r for r in ben.results]
    outcome.submissions.append(
        Submission(
            "notes.txt",
            None,
            problem="not graded: notes.txt is neither a folder nor a zip file",
            source=Path("/class/notes.txt"),
            found={"notes.txt": {"bytes": 5}},
        )
    )
    class_outputs.write(outcome, tmp_path / "out")
    out = tmp_path / "out"
    assert json.loads((out / "learners" / "notes.txt.json").read_text(encoding="utf-8")) == {
        "learner": "notes.txt",
        "graded": False,
        "entry": "notes.txt",
        "problem": "not graded: notes.txt is neither a folder nor a zip file",
        "found": {"notes.txt": {"bytes": 5}},
        "checks": [],
    }
    files = [
        out / "feedback" / "ben.md",
        out / "feedback" / "ben.html",
        out / "junit" / "ben.xml",
        out / "exercism" / "ben.json",
        out / "learners" / "ben.json",
    ]
    for file in files:
        text = file.read_text(encoding="utf-8")
        assert "04-claim/step.py, line 3" in text, file
        assert str(outcome.root) + "/" not in text and "0x7f3a2b4c5d6e" not in text and "/run/lease-lab" not in text, (
            file
        )
    page = (out / "feedback" / "ben.html").read_text(encoding="utf-8")
    assert (
        page.startswith('<!doctype html>\n<html lang="en">')
        and "<table>" in page
        and "<script>" not in page
        and "src=" not in page
    )
    assert json.loads((out / "exercism" / "ben.json").read_text(encoding="utf-8"))["max_score"] == len(ben.results)
    assert (out / "class.svg").is_file() and (out / "latest" / "class.png").is_file()
