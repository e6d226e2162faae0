"""No Python repr reaches a learner: every value a check's message holds is worded in the reader's
language, however deep the phrases sit inside it (issue 39: a failing C2.3 showed
`結果: (True, Phrase({'en': 'row unchanged', 'ja': '行は変わらない'}))` on screen and in every file).

Every way a message is made (checks/support.py's explain() and stated(), Words, Joined, an
exception's arguments, a call that raised, a broken clause), with values that hold phrases and
catalogue words in tuples, lists, sets and dicts, goes to the parent as the child sends it (JSON),
into a result of every status and a prediction of every status, and out through every reporter:
the terminal, each file reporter (lab/reporters.FILES) and a class's feedback and table cell."""

import importlib
import inspect
import io
import json
import pkgutil
import sqlite3
import sys
import xml.etree.ElementTree as ET

import pytest
from rich.console import Console

import lab.model
from lab import reporters
from lab.grading import class_table, feedback
from lab.grading.check import CheckRun
from lab.grading.submission import Submission
from lab.model.course import LAB_ROOT, load_course
from lab.model.mutants import load_mutants
from lab.model.outcomes import CallRaised, ClauseBroken
from lab.model.results import (
    CheckStatus,
    Joined,
    MutantVerdict,
    Phrase,
    Prediction,
    PredictionStatus,
    Result,
    Words,
    as_json,
    message_of,
    shown,
)
from lab.reporters import terminal

sys.path.insert(0, str(LAB_ROOT / "checks"))
from support import changes, explain, stated

UNCHANGED = Phrase("row unchanged", "行は変わらない")
EMPTY = Phrase("empty", "空")
GONE = Words("checks.row_gone")  # a catalogue entry: "the row is gone" / "行が消えた"
NOT_ITERABLE = TypeError("'NoneType' object is not iterable")
TAKEN = sqlite3.IntegrityError("UNIQUE constraint failed: jobs.id")
# An exception as a fact, in each language: its class and message are code and stay as they are.
RAISED = {
    "en": ("TypeError: 'NoneType' object is not iterable", "IntegrityError: UNIQUE constraint failed: jobs.id"),
    "ja": (
        "TypeError を送出: 'NoneType' object is not iterable",
        "IntegrityError を送出: UNIQUE constraint failed: jobs.id",
    ),
}

# Phrases and catalogue words at every depth of every container a check can hand back.
VALUES = {
    "tuple": (True, UNCHANGED),
    "one-tuple": (UNCHANGED,),
    "list": [None, [EMPTY, (1, GONE)]],
    "dict": {"job": {"owner": EMPTY}, UNCHANGED: [GONE]},
    "set": {UNCHANGED},
    "frozenset": frozenset({EMPTY}),
    "phrase": UNCHANGED,
    "exception": NOT_ITERABLE,
    "exceptions in a list": [True, TAKEN, None],
    "exceptions deep inside": {"racers": ((NOT_ITERABLE,), [TAKEN, UNCHANGED])},
}


def messages(value):
    """Every way a check's message can hold the value."""
    called = Joined(Phrase("the table: ", "最初のテーブル: "), "'a': fence=1")
    return {
        "explain": explain(called, value, "the row as it was", "元のままの行"),
        "explain with want": explain("claim(db, job_id='a')", value, "2", "2", want=value),
        "stated": stated(called, value, Phrase("no change", "変更なし")),
        "words": Words("checks.on", called="release(db, job_id='a')", stored=value),
        "joined": Joined(Phrase("got ", "結果 "), value, " [C2.3]"),
        "assertion": message_of(AssertionError(value)),
        "assertion of two": message_of(AssertionError("unexpected", value)),
        "call raised": message_of(CallRaised("enqueue(db, job_id='a')", ValueError(value))),
        "clause broken": message_of(ClauseBroken("C2.3", explain(called, value, "False", "False"))),
    }


def sent(message):
    """The message as the parent reads it back from the child's JSON line."""
    return json.loads(json.dumps(as_json(message)))


COURSE = load_course()
MUTANTS = load_mutants()
STATUSES = [status for status in CheckStatus if status != CheckStatus.PASSED]


def run(lang):
    """One run of every step: every message with every value, each under a failing status (the
    statuses taking turns), a passing check, each prediction status with a message that holds
    every value, and every mutant caught or survived."""
    every = [message for value in VALUES.values() for message in messages(value).values()]
    results = [
        Result(f"n{s.number}", f"test_{s.number}_passes", "steps", s.number, [], "passed", "", 0.1) for s in COURSE
    ]
    for at, message in enumerate(every):
        n, status = COURSE[at % len(COURSE)].number, STATUSES[at % len(STATUSES)]
        results.append(Result(f"n{n}-{at}", f"test_{n}_{at}", "steps", n, [f"C{n}.1"], status, sent(message), 0.1))
    predictions = []
    for step in COURSE:
        status = (PredictionStatus.REJECTS, PredictionStatus.WRITTEN, PredictionStatus.NO_PREDICTION)[step.number % 3]
        mutant_ids = [m.id for m in MUTANTS if m.step == step.number]
        outcomes = {mutant_id: ("caught", "missed")[i % 2] for i, mutant_id in enumerate(mutant_ids)}
        message = Joined.join("\n", every) if status == PredictionStatus.REJECTS else ""
        predictions.append(Prediction(step.number, f"steps/{step.dir}/prediction.py", status, sent(message), outcomes))
    verdicts = [
        MutantVerdict(m, killed_by=[] if i % 5 == 0 else list(m.caught_by), passed_by=["test_1_passes"])
        for i, m in enumerate(MUTANTS)
    ]
    steps = tuple(step.number for step in COURSE)
    return CheckRun(steps, "steps", results, verdicts, predictions=predictions, show_all=True, lang=lang)


def written(outcome, lang, tmp_path):
    """Every text the lab makes of the outcome in lang: the reporter (or place) -> its text."""
    texts = {}
    for verbose in (False, True):
        out = io.StringIO()
        console = Console(file=out, width=100, color_system=None, highlight=False, soft_wrap=True)
        terminal.render(outcome, lang, console, verbose=verbose)
        texts[f"terminal verbose={verbose}"] = out.getvalue()
    for reporter in reporters.FILES:
        path = tmp_path / f"{lang}-{reporter.__name__.rpartition('.')[2]}"
        reporter.write(outcome, path)
        texts[reporter.__name__] = path.read_text(encoding="utf-8")
    submission = Submission(
        "ada",
        tmp_path,
        results=outcome.results,
        credit={n: outcome.step_results(n) for n in outcome.steps},
    )
    cells = [class_table.cell(outcome.step_results(n), lang) for n in outcome.steps]
    texts["class table"] = "\n".join(cells)
    texts["class feedback"] = feedback.markdown(submission, tmp_path, ["ada", *cells, "·", "·"], "now", lang)
    return texts


def lab_classes():
    """The name of every class the lab's model defines: a repr of one starts `Name(` or `<Name.`."""
    names = set()
    for module in pkgutil.iter_modules(lab.model.__path__):
        found = importlib.import_module(f"lab.model.{module.name}")
        names |= {
            name for name, kind in inspect.getmembers(found, inspect.isclass) if kind.__module__ == found.__name__
        }
    return names | {CheckRun.__name__, Submission.__name__}


REPRS = sorted(
    {
        "<lab.",
        *(f"{name}(" for name in lab_classes()),
        *(f"<{name}." for name in lab_classes()),
        *(f"{type(error).__name__}(" for error in (NOT_ITERABLE, TAKEN)),  # an exception's repr
    }
)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_no_reporter_shows_a_repr_of_the_labs_objects_in_any_message(lang, tmp_path):
    texts = written(run(lang), lang, tmp_path)
    for place, text in texts.items():
        found = sorted(pattern for pattern in REPRS if pattern in text)
        assert not found, f"{place} ({lang}) shows {found}"
    # The values are there, each phrase in the reader's language and only in it.
    own, other = ("行は変わらない", "row unchanged") if lang == "ja" else ("row unchanged", "行は変わらない")
    for place in ("terminal verbose=True", *(reporter.__name__ for reporter in reporters.FILES), "class feedback"):
        assert own in texts[place], place
        assert other not in texts[place], place
    assert f"(True, {own!r})" in texts["terminal verbose=True"]
    not_iterable, taken = RAISED[lang]
    for place in ("terminal verbose=True", "lab.reporters.junit", "lab.reporters.results_json"):
        assert f"[True, {taken}, None]" in texts[place], place
        assert f"{{'racers': (({not_iterable},), [{taken}, {own!r}])}}" in texts[place], place
    for name in ("lab.reporters.results_json", "lab.reporters.exercism"):  # and the files still read
        json.loads(texts[name])
    ET.fromstring(texts["lab.reporters.junit"].encode())


def test_a_value_is_shown_as_python_shows_it_with_its_phrases_worded():
    assert shown((True, UNCHANGED)).said("ja") == "(True, '行は変わらない')"
    assert shown((UNCHANGED,)).said("en") == "('row unchanged',)"
    assert shown({"a": [EMPTY, (1, GONE)]}).said("en") == "{'a': ['empty', (1, 'the row is gone')]}"
    assert shown(frozenset({EMPTY})).said("ja") == "frozenset({'空'})"
    assert shown([1, "x", None]) == "[1, 'x', None]"  # no phrase: the plain repr, as before
    again = Result(
        "n", "t", "steps", 2, ["C2.3"], "failed", sent(explain("enqueue(db)", (True, UNCHANGED), "x", "x")), 0
    )
    assert again.said("ja").splitlines()[1] == "結果:     (True, '行は変わらない')"


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_an_exception_is_a_fact_in_the_readers_words_at_any_depth(lang):
    not_iterable, taken = RAISED[lang]
    got = Result("n", "t", "steps", 4, ["C4.6"], "failed", sent(explain("f()", NOT_ITERABLE, "1", "1")), 0)
    assert got.said(lang).splitlines()[1].split(None, 1)[1] == not_iterable
    assert shown([True, TAKEN]).said(lang) == f"[True, {taken}]"
    assert shown({TAKEN: (1, (NOT_ITERABLE,))}).said(lang) == f"{{{taken}: (1, ({not_iterable},))}}"
    assert shown(KeyError()).said(lang) == ("KeyError" if lang == "en" else "KeyError を送出")
    # Raised with facts, an exception's message is worded too.
    kind = "ValueError" if lang == "en" else "ValueError を送出"
    assert shown(ValueError(UNCHANGED)).said(lang) == f"{kind}: {UNCHANGED.said(lang)}"
    assert message_of(AssertionError([TAKEN])).said(lang) == f"[{taken}]"


ROW = {"id": "job", "owner": "A", "until": 15.0, "fence": 1, "result": None, "done": 0}


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize(
    ("got", "line"),
    [
        pytest.param(
            changes(ROW, {**ROW, "owner": "B", "fence": 2}), {"en": "owner 'A' -> 'B', fence 1 -> 2"}, id="changes"
        ),
        pytest.param(changes(ROW, None), {"en": "the row is gone", "ja": "行が消えた"}, id="row gone"),
        pytest.param(UNCHANGED, {"en": "row unchanged", "ja": "行は変わらない"}, id="phrase"),
    ],
)
def test_words_on_the_got_line_are_unquoted_as_the_expected_words_beside_them(lang, got, line):
    said = Result("n", "t", "steps", 2, ["C2.3"], "failed", sent(explain("f()", got, "same", "同じ")), 0).said(lang)
    got_line, expected_line = said.splitlines()[1:3]
    assert got_line.split(None, 1)[1] == line.get(lang, line["en"])
    assert expected_line.split(None, 1)[1] == ("same" if lang == "en" else "同じ")
    # A value the code returned is still written as Python writes it: a string keeps its quotes.
    value = Result("n", "t", "steps", 2, ["C2.3"], "failed", sent(explain("f()", "1", "1", "1")), 0).said(lang)
    assert value.splitlines()[1].split(None, 1)[1] == "'1'"
