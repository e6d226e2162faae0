"""One grading, any language: a class graded in Japanese, then again with --lang en for the TAs,
is checked once; the second run words the kept verdicts in English and re-checks nobody."""

import csv
import subprocess
import sys

import pytest
from learner_folders import make_learner

from lab.model.course import LAB_ROOT, load_course

LAST = len(load_course())


def run_class(root, out, lang):
    arguments = ["class", str(root), "--out", str(out), "--time-limit", "10", "--no-mutants", "--lang", lang]
    return subprocess.run(
        [sys.executable, "-m", "lab", *arguments], cwd=LAB_ROOT, capture_output=True, text=True, timeout=900
    )


def table(out):
    return {row[0]: row for row in csv.reader((out / "class.csv").open(encoding="utf-8-sig"))}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A class of three (one whose step 5 does not load: a message the learner process used to word
    in the run's language), graded with --lang ja, then with --lang en."""
    root, out = tmp_path_factory.mktemp("class"), tmp_path_factory.mktemp("out")
    make_learner(root / "ada", "complete", checkout=False)
    make_learner(root / "ben", "syntax_error", checkout=False)
    make_learner(root / "cho", "half_done", checkout=True)
    japanese = run_class(root, out, "ja")
    japanese_table = table(out)
    english = run_class(root, out, "en")
    return japanese, japanese_table, english, table(out), out


@pytest.mark.long
def test_the_first_run_checks_everyone_and_says_so(graded):
    japanese, rows, _, _, _ = graded
    assert japanese.returncode == 0, japanese.stdout + japanese.stderr
    assert "この実行で検査した学習者: 3 人中 3 人。残りの 0 人は" in japanese.stdout
    assert rows["ben"][5].startswith("エラー: ステップ 5 を検査できません") and "SyntaxError" in rows["ben"][5]


@pytest.mark.long
def test_a_lang_re_run_checks_nobody_and_words_every_verdict_in_its_language(graded):
    _, japanese, english, rows, out = graded
    assert english.returncode == 0, english.stdout + english.stderr
    assert "Checked in this run: 0 of 3 learners; the other 3, unchanged since they were last graded" in english.stdout
    assert "No learner's verdicts changed since the previous run." in english.stdout  # a language is no change
    assert rows["learner"][:2] == ["learner", "step 1"] and "learner" not in japanese  # its header: 学習者
    assert rows["ada"][1 : LAST + 2] == ["passed"] * LAST + [f"{LAST}/{LAST}"]
    assert rows["ben"][5] == (
        "error: step 5 cannot be checked: ben/05-renew/step.py, line 1: SyntaxError: invalid syntax (needed: `renew`)"
    )
    assert rows["cho"][5] == "not implemented" and "(unchanged, kept)" in rows["cho"][LAST + 2]
    feedback = (out / "feedback" / "ben.md").read_text(encoding="utf-8")
    assert "Feedback for ben" in feedback and "cannot be checked" in feedback and "検査できません" not in feedback
    header, *gradebook = csv.reader((out / "grades.csv").open(encoding="utf-8-sig"))
    assert {row[1]: row[header.index("cached")] for row in gradebook} == dict.fromkeys(["ada", "ben", "cho"], "yes")
