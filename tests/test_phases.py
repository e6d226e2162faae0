"""Predict, implement, compare (docs/learner.md): no text shown before a step's compare phase holds
any part of a mutant's change, its reason or its id, for every step and in both languages, on
screen and in the JSON, JUnit and Exercism files; the compare phase shows them all, folds to one line once
seen, and SHOW=mutants unfolds it."""

import io
import json
import re

import pytest
from rich.console import Console

from lab.grading.check import CheckRun
from lab.learner.compared import Seen
from lab.model.course import LAB_ROOT, load_course
from lab.model.mutants import load_mutants
from lab.model.prediction_file import tidy
from lab.model.results import MutantVerdict, Prediction, PredictionStatus, Result
from lab.reporters import FILES, results_json
from lab.reporters import terminal as report
from lab.reporters.change import change_lines
from lab.store import Store

COURSE = load_course()
MUTANTS = load_mutants()
STEP_4_MUTANTS = sum(m.step == 4 for m in MUTANTS)


def rendered(outcome, lang, **options):
    out = io.StringIO()
    report.render(
        outcome, lang, Console(file=out, width=80, color_system=None, highlight=False, soft_wrap=True), **options
    )
    return out.getvalue()


def run_of(number, passing, prediction):
    """Steps 1..number checked, step `number` passing or failing, with its mutants and a prediction."""
    results = [
        Result(
            f"n{s}",
            f"test_{s}",
            "steps",
            s,
            [f"C{s}.1"],
            "passed" if passing or s < number else "failed",
            "" if passing or s < number else "called:   f()\ngot:      1\nexpected: 2",
            0.0,
        )
        for s in range(1, number + 1)
    ]
    mutants = [m for m in MUTANTS if m.step == number]
    verdicts = [MutantVerdict(m, killed_by=list(m.caught_by), passed_by=["test_a_happy_path"]) for m in mutants]
    return CheckRun(tuple(range(1, number + 1)), "steps", results, verdicts, predictions=[prediction(number, mutants)])


def no_prediction(number, mutants):
    return Prediction(number, f"steps/{COURSE[number - 1].dir}/prediction.py", PredictionStatus.NO_PREDICTION)


def written(number, mutants):
    outcomes = {m.id: ("caught" if i % 2 == 0 else "missed") for i, m in enumerate(mutants)}
    return Prediction(
        number, f"steps/{COURSE[number - 1].dir}/prediction.py", PredictionStatus.WRITTEN, outcomes=outcomes
    )


def rejects(number, mutants):
    return Prediction(
        number, f"steps/{COURSE[number - 1].dir}/prediction.py", PredictionStatus.REJECTS, message="assert 1 == 0"
    )


def changed(mutant):
    """The lines the compare phase shows of a mutant's change, marked, as in the file."""
    return [f"{sign} {line}" for sign, line in change_lines(mutant.find, mutant.replace) if sign != " "]


def revealing(mutant):
    """Every text that would tell what a mutant changes or why it matters. The contract's clauses
    are shown by design, and the broken change to review is in CONTRACT.md: what they quote is not."""
    found = {mutant.id, mutant.id.split("-", 1)[1], *changed(mutant), *mutant.why.values()}
    contract = " ".join(text for lang in ("en", "ja") for text in COURSE[mutant.step - 1].clauses(lang).values())
    if not mutant.worksheet and mutant.replace.strip() not in contract:
        found.add(mutant.replace.strip())
    return found


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("number", [step.number for step in COURSE])
@pytest.mark.parametrize(
    "phase",
    [
        pytest.param((False, no_prediction), id="stub-without-prediction"),
        pytest.param((False, written), id="prediction-written-step-failing"),
        pytest.param((False, rejects), id="prediction-rejecting-step-failing"),
        pytest.param((True, no_prediction), id="step-passing-without-prediction"),
    ],
)
def test_nothing_before_the_compare_phase_reveals_a_change_or_its_reason(number, lang, phase):
    passing, prediction = phase
    outcome = run_of(number, passing, prediction)
    for verbose in (False, True):
        text = rendered(outcome, lang, verbose=verbose)
        for verdict in outcome.verdicts:
            leaked = [part for part in revealing(verdict.mutant) if part in text]
            assert not leaked, f"step {number}: {leaked} shown before the compare phase"
            assert all(check not in text for check in verdict.mutant.caught_by)
        labels = [f"{number}-{chr(ord('a') + i)} " for i in range(len(outcome.verdicts))]
        assert all(label in text for label in labels)  # each mutant by its neutral label
        assert "SHOW=all" not in text  # for instructors (docs/instructor.md), not offered to the learner


def files_written(outcome, folder):
    """file name -> the text of each file a run writes on request (JSON, JUnit, Exercism)."""
    found = {}
    for reporter in FILES:
        path = folder / reporter.__name__.rpartition(".")[2]
        reporter.write(outcome, path)
        found[path.name] = path.read_text(encoding="utf-8")
    return found


@pytest.mark.parametrize("number", [step.number for step in COURSE])
@pytest.mark.parametrize(
    "phase",
    [
        pytest.param((False, no_prediction), id="stub-without-prediction"),
        pytest.param((False, written), id="prediction-written-step-failing"),
        pytest.param((True, no_prediction), id="step-passing-without-prediction"),
    ],
)
def test_no_file_written_before_the_compare_phase_holds_a_mutants_id_or_its_catching_checks(number, phase, tmp_path):
    passing, prediction = phase
    outcome = run_of(number, passing, prediction)
    for name, text in files_written(outcome, tmp_path).items():
        for verdict in outcome.verdicts:
            # a change of punctuation alone (m7's `",`) is in every JSON file: its id says it
            leaked = [part for part in revealing(verdict.mutant) if re.search(r"\w", part) and part in text]
            assert not leaked, f"step {number}: {leaked} in the {name} file before the compare phase"
            assert all(check not in text for check in verdict.mutant.caught_by), name
        assert "killed_by" not in text and "passed_by" not in text, name
    document = results_json.as_dict(outcome)
    labels = [f"{number}-{chr(ord('a') + i)}" for i in range(len(outcome.verdicts))]
    assert [m["label"] for m in document["mutants"]] == labels  # as the screen names them
    for found in document["predictions"]:
        assert all(set(entry) == {"label", "outcome"} for entry in found["mutants"])


def test_in_the_compare_phase_the_json_holds_each_mutants_id_and_catching_checks(tmp_path):
    outcome = run_of(4, True, written)
    document = results_json.as_dict(outcome)
    assert [m["id"] for m in document["mutants"]] == [v.mutant.id for v in outcome.verdicts]
    assert all(m["killed_by"] == list(v.mutant.caught_by) for m, v in zip(document["mutants"], outcome.verdicts))
    (found,) = document["predictions"]
    assert {entry["id"] for entry in found["mutants"]} == {v.mutant.id for v in outcome.verdicts}
    assert json.loads(files_written(outcome, tmp_path)["results_json"]) == json.loads(json.dumps(document))


def test_before_the_compare_phase_each_label_shows_its_clause_and_the_predictions_verdict():
    text = rendered(run_of(4, False, written), "en")
    snippet = next(i for i, v in enumerate(run_of(4, False, written).verdicts) if v.mutant.worksheet)
    assert f"4-{chr(ord('a') + snippet)} C4.5 (the broken change to review)" in text
    assert "4-a C4.6 caught" in text and "4-b C4.3 missed" in text
    assert f"Your prediction catches 4 of {STEP_4_MUTANTS} mutants" in text


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_compare_phase_shows_every_change_reason_and_check(lang):
    outcome = run_of(4, True, written)
    text = rendered(outcome, lang)
    for verdict in outcome.verdicts:
        mutant = verdict.mutant
        assert all(f"\n        {line}\n" in text for line in changed(mutant)), mutant.id
        assert mutant.why[lang] in text and mutant.id in text
    assert ("your prediction: caught" if lang == "en" else "あなたの予想: 検出") in text


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_change_of_several_lines_shows_each_line_marked_and_indented_as_in_the_file(lang):
    """m4-fence-read-back-after-commit: of its two lines, the first is kept (shown as context) and
    the second replaced."""
    text = rendered(run_of(4, True, written), lang)
    assert (
        '                  conn.execute("COMMIT")\n'
        "        -     return fence\n"
        '        +         return conn.execute("SELECT fence FROM jobs WHERE id=?", (job_id,)).fetchone()[0]\n'
    ) in text


def test_a_change_shows_the_code_it_keeps_but_not_the_references_docstring():
    """m3-connection-kept-per-path keeps state's docstring (the reference's English) in its find
    and replace: the compare phase shows the changed code, never that prose."""
    find = 'def state(path, job_id):\n    """Read one job."""\n    # open it\n    with x:\n'
    replace = 'def state(path, job_id, kept={}):\n    """Read one job."""\n    # open it\n    with x:\n'
    assert change_lines(find, replace) == [
        ("-", "def state(path, job_id):"),
        ("+", "def state(path, job_id, kept={}):"),
        (" ", "    with x:"),
    ]


def test_show_all_reveals_everything_at_once():
    outcome = run_of(4, False, no_prediction)
    outcome.show_all = True
    assert all(v.mutant.why["en"] in rendered(outcome, "en") for v in outcome.verdicts)


def test_a_compare_phase_once_seen_folds_to_one_line_until_show_mutants_or_a_new_prediction(tmp_path):
    step = COURSE[3]
    (tmp_path / "steps" / step.dir).mkdir(parents=True)
    prediction_file = tmp_path / "steps" / step.dir / "prediction.py"
    prediction_file.write_text("def test_my_prediction(lease, db):\n    assert True\n")
    outcome = run_of(4, True, written)
    first = rendered(outcome, "en", seen=Seen(Store(tmp_path)))
    assert "caught by:" in first
    later = rendered(outcome, "en", seen=Seen(Store(tmp_path)))
    assert (
        "caught by:" not in later
        and f"Mutants of step 4: the checks catch {STEP_4_MUTANTS} of {STEP_4_MUTANTS}; your prediction catches 4 of {STEP_4_MUTANTS}"
        in later
    )
    assert "SHOW=mutants" in later and len(later.splitlines()) < len(first.splitlines()) - 20
    assert "caught by:" in rendered(outcome, "en", seen=Seen(Store(tmp_path)), expand=True)
    prediction_file.write_text("def test_my_prediction(lease, db):\n    assert False\n")
    assert "caught by:" in rendered(outcome, "en", seen=Seen(Store(tmp_path)))  # a new prediction: compared again


def test_a_failed_prediction_names_the_call_as_written_not_by_its_repr():
    """The lab's own code's functions and a pytest folder's database (the form of an older run)."""
    message = (
        "steps/04-claim/prediction.py, line 4: assert lease.claim(db, 'job', 'B', 10.0, 5.0) == 3\nassert 2 == 3\n"
        " +  where 2 = <function claim at 0x7f8bd8618a40>('/dev/shm/lease-lab-w_h_8sme/pytest-of-unknown/pytest-0/t_0/jobs-0.db', 'job', 'B', 10.0, 5.0)\n"
        " +    where <function claim at 0x7f8bd8618a40> = <module 'lease'>.claim"
    )
    assert tidy(message).splitlines() == [
        "steps/04-claim/prediction.py, line 4: assert lease.claim(db, 'job', 'B', 10.0, 5.0) == 3",
        "assert 2 == 3",
        " +  where 2 = lease.claim(db, 'job', 'B', 10.0, 5.0)",
    ]


FAILURE = (
    "called:   claim(db, job_id='job', owner='B', now=10.0, ttl=5.0)\n"
    "got:      None\n"
    "expected: 2: the lease expired at until=10 == now, so B takes it with the next fence"
)


def rows(text, width=80):
    """The rows a terminal of this width needs for the text (a Japanese character is two columns)."""
    return sum(max(1, -(-report._columns(line) // width)) for line in text.splitlines())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_make_watch_of_a_failing_step_fits_an_80_by_24_terminal_and_ends_with_the_failure(lang):
    from lab.learner.watch import run_line

    results = [
        Result(f"n{s}{i}", f"test_{s}_{i}", "steps", s, [f"C{s}.1"], "passed", "", 0.0)
        for s in range(1, 4)
        for i in range(6)
    ]
    results += [Result(f"n4{i}", f"test_4_{i}", "steps", 4, ["C4.4"], "passed", "", 0.0) for i in range(10)]
    results.append(
        Result("n4x", "test_claim_wins_at_the_moment_the_lease_expires", "steps", 4, ["C4.5"], "failed", FAILURE, 0.0)
    )
    outcome = run_of(4, False, written)
    outcome.steps, outcome.results = (1, 2, 3, 4), results
    text = (
        run_line(COURSE[3], lang, LAB_ROOT, {("modified", "steps/04-claim/step.py")}) + "\n" + rendered(outcome, lang)
    )
    assert rows(text) <= 24, text
    tail = text.rstrip().splitlines()
    failure = max(i for i, line in enumerate(tail) if "test_claim_wins_at_the_moment_the_lease_expires" in line)
    assert len(tail) - failure <= 10  # the failure, its clause and the two-line summary end the screen


MINE = '''import sqlite3
from contextlib import closing


def claim(path, job_id, owner, now, ttl):
    """期限が切れたリースを取得し、新しい fence を返す。

    まだ有効なら None。
    """
    if ttl <= 0:  # C4.1
        raise ValueError(f"ttl must be positive, got {ttl!r}")

    def begin(conn):
        """書き込みロックを取る"""
        conn.execute("BEGIN IMMEDIATE")  # ほかの claim を待たせる

    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        begin(conn)
        # 期限切れかどうかを読む
        row = conn.execute("SELECT until, done, fence FROM jobs WHERE id=?", (job_id,)).fetchone()
        if row is None or row[1] or row[0] >= now:
            conn.execute("ROLLBACK")
            return None
        fence = row[2] + 1
        conn.execute(
            "UPDATE jobs SET owner=?, until=?, fence=? WHERE id=?", (owner, now + ttl, fence, job_id)
        )
        conn.execute("COMMIT")
    return fence
'''


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_diff_against_the_reference_compares_code_with_code(lang, tmp_path):
    """Neither side's docstrings nor comments spend the diff's lines; its hunks name the files' rows."""
    step = COURSE[3]
    (tmp_path / step.dir).mkdir()
    (tmp_path / step.dir / "step.py").write_text(MINE, encoding="utf-8")
    text = rendered(run_of(4, True, written), lang, yours=tmp_path)
    diff = text[text.index(str(tmp_path / step.dir / "step.py")) :].splitlines()[1:-2]
    reference = (LAB_ROOT / "solutions" / step.dir / "step.py").read_text(encoding="utf-8")
    raising = [row for row, line in enumerate(reference.splitlines(), 1) if "raise ValueError" in line]
    assert diff == [
        f"    @@ -{raising[0]} +11 @@",  # the rows of the files, docstrings and comments counted
        '             raise ValueError(f"ttl must be positive, got {ttl!r}")',
        "    +    def begin(conn):",
        '    +        conn.execute("BEGIN IMMEDIATE")',
        "         with closing(sqlite3.connect(path, isolation_level=None)) as conn:",
        '    -        conn.execute("BEGIN IMMEDIATE")',
        "    +        begin(conn)",
        '             row = conn.execute("SELECT until, done, fence FROM jobs WHERE id=?", (job_id,)).fetchone()',
        "    -        if row is None or row[1] or row[0] > now:",
        "    +        if row is None or row[1] or row[0] >= now:",
        '                 conn.execute("ROLLBACK")',
    ]
    assert rendered(run_of(4, True, written), lang, yours=tmp_path) == text  # the same every time


def test_a_function_that_differs_only_in_its_docstrings_and_comments_shows_no_diff(tmp_path):
    step = COURSE[3]
    (tmp_path / step.dir).mkdir()
    mine = (
        MINE.replace("row[0] >= now", "row[0] > now")
        .replace("        begin(conn)\n", "")
        .replace(
            '    def begin(conn):\n        """書き込みロックを取る"""\n        conn.execute("BEGIN IMMEDIATE")  # ほかの claim を待たせる\n',
            "",
        )
        .replace("        # 期限切れかどうかを読む\n", '        conn.execute("BEGIN IMMEDIATE")  # 書き込みロック\n')
    )
    (tmp_path / step.dir / "step.py").write_text(mine, encoding="utf-8")
    assert str(tmp_path) not in rendered(run_of(4, True, written), "en", yours=tmp_path)
