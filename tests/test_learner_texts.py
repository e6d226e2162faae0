"""Every step title and hint in both languages, no English left in a Japanese report, the folded
report, the marked differences, and mutant verdicts computed once for every language and command."""

import io
import re
import runpy
import shutil
import sqlite3
import sys
from dataclasses import replace

import pytest
from rich.console import Console

from lab import cache
from lab.grading import kill_matrix
from lab.grading.check import check
from lab.model.course import LAB_ROOT, load_course
from lab.model.mutants import load_mutants
from lab.model.results import Phrase, Result, Words
from lab.reporters import terminal as report
from lab.reporters.diff import marked

# Every sentence of the checker and of the learner's commands is in the catalogue (lab/text/): its
# keys, placeholders and translations are checked in tests/test_message_catalogue.py.


def test_every_step_title_and_hint_is_in_both_languages():
    for step in load_course():
        assert set(step.title) == {"en", "ja"}
        for clause, by_lang in step.hints.items():
            assert set(by_lang) == {"en", "ja"} and len(by_lang["en"]) == len(by_lang["ja"]), clause


NUMBERS = tuple(step.number for step in load_course())  # every step of the course, in order
# Words a Japanese report may hold in Latin letters: the contract's own names (columns, arguments,
# functions), Python's constants and exceptions, and the terms the course keeps in English.
ALLOWED = {
    "id",
    "owner",
    "until",
    "fence",
    "result",
    "done",
    "now",
    "ttl",
    "job",
    "jobs",
    "db",
    "path",
    "owners",
    "lease",
    "state",
    "claim",
    "renew",
    "complete",
    "release",
    "enqueue",
    "None",
    "True",
    "False",
    "ValueError",
    "NotImplementedError",
    "ThreadPoolExecutor",
    "sqlite",
    "fencing",
    "token",
    "make",
    "hint",
    "exactly",
    "once",
    "all",
    "dict",
    "list",
    "steps",
}
CODE = [r"`[^`]*`", r"「[^」]*」", r"'[^'\n]*'", r'"[^"\n]*"']


def english_words(text):
    """The Latin-letter words of a report that are not code, names or identifiers."""
    found = set()
    for line in text.splitlines():
        if re.match(r"\s*[-+] ", line):  # a diff of code or of values
            continue
        line = re.sub(r" -> .*", " ", line)  # what a call returned or raised: the code's own words
        for pattern in CODE:
            line = re.sub(pattern, " ", line)
        for token in line.split():
            if re.search(r"[_()=/.\[\]{}<>:\d-]", token):  # calls, paths, clause and mutant ids, values
                continue
            found |= {w for w in re.findall(r"[A-Za-z]+", token) if not w.isupper() and w not in ALLOWED}
    return found


@pytest.fixture(scope="module")
def failing_run(tmp_path_factory):
    """Steps 1-4 of the reference with two bugs: a column without its default, a boundary off by one."""
    steps = tmp_path_factory.mktemp("learner") / "steps"
    shutil.copytree(LAB_ROOT / "solutions", steps, ignore=shutil.ignore_patterns("__pycache__"))
    init = steps / "01-init-db" / "step.py"
    init.write_text(init.read_text().replace("until REAL NOT NULL DEFAULT 0", "until REAL"))
    claim = steps / "04-claim" / "step.py"
    claim.write_text(claim.read_text().replace("row[0] > now", "row[0] >= now"))
    return {lang: check(steps, (1, 2, 3, 4), (4,), lang=lang, impl_label="steps") for lang in ("en", "ja")}


def rendered(outcome, lang, verbose=False):
    out = io.StringIO()
    report.render(outcome, lang, Console(file=out, width=300, color_system=None, highlight=False), verbose=verbose)
    return out.getvalue()


def test_no_english_word_is_left_in_the_japanese_report(failing_run):
    text = rendered(failing_run["ja"], "ja", verbose=True)
    assert "✘" in text and "違い" in text
    assert english_words(text) == set()


def test_the_allow_list_does_find_english_in_the_english_report(failing_run):
    assert {"Stuck", "checks", "pass"} <= english_words(rendered(failing_run["en"], "en"))


def test_a_schema_mismatch_marks_the_one_differing_column(failing_run):
    text = rendered(failing_run["en"], "en")
    assert "- expected[2]: ('until', 'REAL', 1, '0', 0)" in text and "+ got[2]: ('until', 'REAL', 0, None, 0)" in text
    assert "(5 equal items not shown)" in text
    assert "('fence', 'INTEGER', 1, '0', 0), ('result'" not in text  # the long lists are gone


def _explained(got, expected, **shown):
    """A check's failure as checks/support.py explain() states it."""
    return Words(
        "checks.explain",
        called="state(db, 'job')",
        got=repr(got),
        expected=Phrase(f"{expected}: stored", f"{expected} (保存)"),
        **shown,
    )


def test_marked_lists_dict_keys_that_differ_and_leaves_other_messages_alone():
    got, want = {"id": "job", "fence": 1, "done": 0}, {"id": "job", "fence": 2, "done": 0}
    message = _explained(got, want, want=repr(want))
    assert marked(message)[-3:] == ["what differs (- expected, + got):", "  - 'fence': 2", "  + 'fence': 1"]
    assert marked(message, "ja")[-3:] == ["違い (- 期待、+ 結果):", "  - 'fence': 2", "  + 'fence': 1"]
    plain = _explained(None, 2)  # no value named: the message as it is
    assert marked(plain) == ["called:   state(db, 'job')", "got:      None", "expected: 2: stored"]
    same = _explained([1, 2], [1, 2], want="[1, 2]")
    assert marked(same) == ["called:   state(db, 'job')", "got:      [1, 2]", "expected: [1, 2]: stored"]
    assert marked("a message of the lab's own, in no language") == ["a message of the lab's own, in no language"]


def _result(step, status="passed", check="test_x"):
    return Result(
        f"n{step}{check}",
        check,
        "steps",
        step,
        [f"C{step}.1"],
        status,
        "" if status == "passed" else "called:   f()\ngot:      1\nexpected: 2",
        0.0,
    )


def test_a_passing_step_folds_to_one_line_and_verbose_shows_every_check():
    from lab.grading.check import CheckRun

    results = [_result(s, check=f"test_{s}_{i}") for s in NUMBERS for i in range(12)]
    outcome = CheckRun(NUMBERS, "solutions", results)
    short, full = rendered(outcome, "en"), rendered(outcome, "en", verbose=True)
    assert "all 12 checks pass" in short and "test_3_7" not in short
    assert len(short.splitlines()) <= 40  # one screen: the mutant section aside
    assert "test_3_7" in full and len(full.splitlines()) > 96
    failing = CheckRun((1, 2), "steps", results[:23] + [_result(2, "failed", "test_bad")])
    text = rendered(failing, "en")
    assert "✔ Step 1 · init_db" in text and "test_bad" in text and "`make hint 2`" in text
    assert text.index("11 of 12 checks pass") < text.index("test_bad")  # the failure ends the step


def test_mutant_results_are_computed_once_for_every_language_and_command(tmp_path, monkeypatch):
    ran = []

    def fake(targets, time_limit, budget=None, probe=None):
        ran.extend(t.id for t in targets)
        return [
            Result(f"{t.id}::t", "t", t.id, t.steps[0], [], "failed", Words("timeout", limit=time_limit), 0.1)
            for t in targets
        ]

    monkeypatch.setattr(cache, "ROOT", tmp_path)
    monkeypatch.setattr(kill_matrix, "run", fake)
    step4 = kill_matrix.prebuilt([m for m in load_mutants() if m.step == 4])
    every = kill_matrix.prebuilt(load_mutants())
    # The matrix takes no language at all: make check-step 4 in English, then in Japanese, then make check.
    first, count = kill_matrix.results(step4)
    assert count == len(step4) and sorted(ran) == sorted(job.target.id for job in step4)
    again, count = kill_matrix.results(step4)
    assert count == 0 and again == [replace(r, duration=0.0) for r in first]  # kept without the time taken
    _, count = kill_matrix.results(every)  # make check after make check-step 4
    assert count == len(every) - len(step4) and len(ran) == len(every)  # only the other steps' mutants ran
    _, count = kill_matrix.results(every)
    assert count == 0 and len(ran) == len(every)
    # Stored as facts, in neither language: each command words them in its own.
    assert all(r.message == Words("timeout", limit=10.0) and r.duration == 0.0 for r in again)
    assert first[0].said("en") != first[0].said("ja")


def test_a_green_make_check_fits_on_one_screen_and_verbose_shows_every_mutant(reference_run):
    short, full = rendered(reference_run, "en"), rendered(reference_run, "en", verbose=True)
    assert len(short.splitlines()) <= 50 and "caught by" not in short
    assert all(
        f"Mutants of step {n}: the checks catch {len([v for v in reference_run.verdicts if v.mutant.step == n])} of"
        in short
        for n in NUMBERS
    )
    assert all(v.mutant.id in full for v in reference_run.verdicts) and "caught by" in full


def test_a_list_diff_labels_each_line_with_its_side_and_index():
    got, want = [None, 1, None, None], [1, None, None, None]
    message = _explained(got, want, want=repr(want))
    assert marked(message)[-6:] == [
        "what differs (- expected, + got):",
        "  - expected[0]: 1",
        "  + got[0]: None",
        "  - expected[1]: None",
        "  + got[1]: 1",
        "  (2 equal items not shown)",
    ]
    assert marked(message, "ja")[-5:-1] == [
        "  - 期待[0]: 1",
        "  + 結果[0]: None",
        "  - 期待[1]: None",
        "  + 結果[1]: 1",
    ]
    shorter = _explained([1], [1, None], want="[1, None]")
    assert marked(shorter, "ja")[-2:] == ["  - 期待[1]: None", "  (同じ 1 項目は省略)"]


class Racers:
    """The code under test as the racing checks call it, answering as the test says."""

    def __init__(self, **answers):
        self.answers = answers

    def __getattr__(self, name):
        answer = self.answers[name]
        return lambda *arguments: answer(*arguments) if callable(answer) else answer


def step_checks(name):
    """A module of checks/ as its checks run it (checks/pytest.ini: assertions plain, not rewritten)."""
    if str(LAB_ROOT / "checks") not in sys.path:  # their `from support import ...`
        sys.path.insert(0, str(LAB_ROOT / "checks"))
    return runpy.run_path(str(LAB_ROOT / "checks" / f"{name}.py"))


def _failure(check, lease, tmp_path):
    """The message a step check fails with, against lease, on databases made by the reference."""
    init_db = runpy.run_path(str(LAB_ROOT / "solutions" / "01-init-db" / "step.py"))["init_db"]

    def new_db():
        path = str(tmp_path / f"jobs-{len(list(tmp_path.glob('*.db')))}.db")
        init_db(path)
        return path

    with pytest.raises(AssertionError) as failed:
        check(lease, new_db, None)
    return failed.value.args[0]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_racing_claims_failure_names_the_first_index_that_differs(lang, tmp_path):
    """C4.6: eight claims in threads; the first answer past the winner that is not None is where the
    list first differs."""
    test_04 = step_checks("test_04_claim")
    taken = sqlite3.IntegrityError("UNIQUE constraint failed: jobs.id")

    def claim(path, job_id, owner, now, ttl):  # racers A..H: B and E win, D raises
        if owner == "D":
            raise taken
        return 1 if owner in ("B", "E") else None

    message = _failure(test_04["test_racing_claims_have_exactly_one_winner"], Racers(claim=claim), tmp_path)
    lines = message.said(lang).splitlines()[-3:]
    assert (
        lines
        == {
            "en": [
                "first difference, at index 3:",
                "  got[3]:      IntegrityError: UNIQUE constraint failed: jobs.id",
                "  expected[3]: None",
            ],
            "ja": [
                "最初に違うのはインデックス 3:",
                "  結果[3]: IntegrityError を送出: UNIQUE constraint failed: jobs.id",
                "  期待[3]: None",
            ],
        }[lang]
    )


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_claim_many_failure_names_the_first_index_that_differs(lang, tmp_path):
    """C8.1: four owners, a fence 7 to win; an answer short of one result per owner."""
    test_08 = step_checks("test_08_claim_many")
    check = test_08["test_claim_many_has_one_winner_and_stores_one_of_its_owners"]
    message = _failure(check, Racers(claim_many=[None, "7", 7]), tmp_path)
    assert (
        message.said(lang).splitlines()[-3:]
        == {
            "en": ["first difference, at index 1:", "  got[1]:      '7'", "  expected[1]: 7 or None"],
            "ja": ["最初に違うのはインデックス 1:", "  結果[1]: '7'", "  期待[1]: 7 または None"],
        }[lang]
    )
    short = _failure(check, Racers(claim_many=[None, 7, None]), tmp_path)
    assert (
        short.said(lang).splitlines()[-2:]
        == {
            "en": ["  got[3]:      nothing (the list ends before it)", "  expected[3]: None"],
            "ja": ["  結果[3]: なし (リストはその前で終わる)", "  期待[3]: None"],
        }[lang]
    )
