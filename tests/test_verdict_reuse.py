"""The learner's checks are reused when nothing they can reach changed (lab/grading/kill_matrix.py):
never across an edit that reaches them, of any kind the reach rule knows, nor across a change of
the checker; always shown with the lines where the code now stands; never trusted when grading.

Most tests run a stand-in for the runner over small implementations in tmp folders, and count
which checks it was asked to run; those marked e2e run real checks.
"""

import ast
import sqlite3
import sys
from dataclasses import replace

import pytest

from lab import cache
from lab.commands import build_parser
from lab.grading import check, checker_digest, kill_matrix, reach, submission
from lab.grading.static_reading import statically_readable
from lab.model import checks
from lab.model.course import LAB_ROOT, load_course
from lab.model.implementation import STEP_FILE, assemble, read
from lab.model.mutants import SOLUTIONS_DIR, apply, load_mutants
from lab.model.results import CheckStatus, Result
from lab.reporters import results_json, terminal

STEPS = tuple(step.number for step in load_course())
REFERENCE = assemble(read(SOLUTIONS_DIR, label="solutions"))
RACE = "test_claim_many_runs_the_claims_at_the_same_time"  # marked race in checks/test_08_claim_many.py


class Ran(list):
    """The (target, step, check) the stand-in runner was asked to run, in order."""

    statuses = {}  # check -> the status the stand-in reports (default: passed)

    def checks(self):
        return {(step, check) for _, step, check in self}


@pytest.fixture
def ran(tmp_path, monkeypatch):
    """An empty cache store in tmp_path and a stand-in runner that records what it runs."""
    found = Ran()
    found.statuses = {}

    def run(targets, time_limit, budget=None, probe=None):
        results = []
        for target in targets:
            for step in target.steps:
                for name in checks.checks_of(step):
                    if target.checks is None or name in target.checks:
                        found.append((target.id, step, name))
                        status = found.statuses.get(name, CheckStatus.PASSED)
                        results.append(Result(f"{name}[{target.id}]", name, target.id, step, [], status, "", 0.1))
        return results

    monkeypatch.setattr(cache, "ROOT", tmp_path / "cache")
    monkeypatch.setattr(kill_matrix, "run", run)
    return found


def learner_file(folder, text, name="lease.py"):
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def checked(path, ran, steps=STEPS, **options):
    """Check the learner's code at path; the checks the stand-in ran this time."""
    before = len(ran)
    results, _ = kill_matrix.results([kill_matrix.learner(path, steps)], **options)
    assert [(r.step, r.check) for r in results] == [(s, c) for s in steps for c in checks.checks_of(s)]
    return Ran(ran[before:]).checks()


def reaching(text, function):
    """The checks that can call function in this module text."""
    tree = ast.parse(text)
    return {
        (step, name)
        for step in STEPS
        for name, named in checks.checks_of(step).items()
        if function in reach.reachable_from(named, tree)
    }


EVERY_CHECK = {(step, name) for step in STEPS for name in checks.checks_of(step)}

# Each kind of edit the reach rule knows, made to a module that has what it edits: (the module,
# the edited module, the checks that must run again).
RELEASE = "def release(path, job_id, owner, fence):"
CALLS_A_HELPER = (
    REFERENCE.replace(RELEASE, RELEASE + "\n    _positive(1)") + "\n\ndef _positive(ttl):\n    return ttl > 0\n"
)
DECORATED = (
    REFERENCE.replace("def release(", "@_kept\ndef release(") + "\n\ndef _kept(function):\n    return function\n"
)


def renew_edited(text):
    """renew with one word of its body changed (claim has the same sentence)."""
    before, after = text.split("def renew(", 1)
    return before + "def renew(" + after.replace("ttl must be positive", "ttl must be above 0", 1)


EDITS = {
    "a function body": (REFERENCE, renew_edited(REFERENCE), "renew"),
    "a helper it calls": (CALLS_A_HELPER, CALLS_A_HELPER.replace("ttl > 0", "ttl >= 1"), "_positive"),
    "a decorator": (DECORATED, DECORATED.replace("return function", "return (function)"), None),
    "a default argument": (
        REFERENCE.replace(RELEASE, RELEASE.replace("fence)", "fence, tries=1)")),
        REFERENCE.replace(RELEASE, RELEASE.replace("fence)", "fence, tries=2)")),
        None,
    ),
    "a module constant": (REFERENCE + "\nTRIES = 1\n", REFERENCE + "\nTRIES = 2\n", None),
    "an import": (REFERENCE + "\nimport json\n", REFERENCE + "\nimport json as jsons\n", None),
}


@pytest.mark.parametrize("kind", EDITS)
def test_an_edit_reruns_every_check_that_can_reach_it_and_reuses_every_other(kind, ran, tmp_path):
    before, after, function = EDITS[kind]
    assert before != after
    path = learner_file(tmp_path, before)
    assert checked(path, ran) == EVERY_CHECK
    assert checked(path, ran) == set()  # unchanged: every check reused
    path.write_text(after, encoding="utf-8")
    expected = (
        reaching(after, function) if function else EVERY_CHECK
    )  # decorators, defaults, constants, imports run on import
    assert expected and checked(path, ran) == expected
    if function:
        assert expected != EVERY_CHECK
    assert checked(path, ran) == set()


def test_an_edit_to_a_function_no_check_of_the_steps_reaches_reuses_every_check(ran, tmp_path):
    path = learner_file(tmp_path, REFERENCE)
    first_seven = STEPS[:-1]
    assert checked(path, ran, first_seven) == {name for name in EVERY_CHECK if name[0] in first_seven}
    path.write_text(REFERENCE.replace("results in input order.", "results in the owners' order."), encoding="utf-8")
    results, count = kill_matrix.results([kill_matrix.learner(path, first_seven)])
    assert count == 0 and results and all(r.reused for r in results)
    # and what a later check-step 8 ran, make check-step 7 reuses: the other steps are not part of a check's key
    assert checked(path, ran) == {name for name in EVERY_CHECK if name[0] == STEPS[-1]}


# claim's test of a live lease moved into a helper of another step's file, and called in a way
# a reading of the text cannot follow: (claim's new test, what the module adds).
LIVE = "row[0] > now"
EXPIRED = "\n\ndef _expired(until, now):\n    return until <= now\n"
DYNAMIC = {
    "globals() and a built name": ('not globals()["_exp" + "ired"](row[0], now)', EXPIRED),
    "eval of a built string": ('not eval("_exp" + "ired")(row[0], now)', EXPIRED),
    "exec of a built string": (
        "not _by_exec(row[0], now)",
        EXPIRED + '\n\ndef _by_exec(until, now):\n    found = {}\n    exec("f = _exp" + "ired", globals(), found)\n'
        '    return found["f"](until, now)\n',
    ),
    "a function's __globals__": ('not claim.__globals__["_exp" + "ired"](row[0], now)', EXPIRED),
    "a frame's f_globals": (
        'not _frame().f_globals["_exp" + "ired"](row[0], now)',
        EXPIRED + "\n\ndef _frame():\n    try:\n        raise ValueError\n    except ValueError as error:\n"
        "        return error.__traceback__.tb_frame\n",
    ),
    "a registry a decorator fills": (
        "not _CHECKS[0](row[0], now)",
        "\n\n_CHECKS = []\n\n\ndef _register(function):\n    _CHECKS.append(function)\n    return function\n"
        "\n\n@_register\ndef _expired(until, now):\n    return until <= now\n",
    ),
}


@pytest.mark.parametrize("form", DYNAMIC)
def test_an_edit_to_a_function_reached_in_a_way_no_reading_follows_reruns_every_check(form, ran, tmp_path):
    """Neither a stale pass nor a stale fail: the helper broken, mended, broken again, each edit is
    checked again by every check, as the text cannot tell which checks reach the helper."""
    test, added = DYNAMIC[form]
    assert LIVE in REFERENCE
    fixed = REFERENCE.replace(LIVE, test) + added
    broken = fixed.replace("until <= now", "until < now")
    assert broken != fixed
    path = learner_file(tmp_path, broken)
    assert checked(path, ran) == EVERY_CHECK
    for text in (fixed, fixed.replace("until <= now", "now > until")):  # mended, then broken again
        path.write_text(text, encoding="utf-8")
        assert checked(path, ran) == EVERY_CHECK
        assert checked(path, ran) == set()


def test_the_reference_every_mutant_and_the_independent_correct_code_keep_their_narrow_keys():
    """The loop's speed: the static reading follows the lab's own code and common styles of a learner's
    (a connection's row_factory set, typing, a main guard), so their checks key on what they reach."""
    plain = [REFERENCE, *(assemble(apply(m)) for m in load_mutants() if m.id != "m3-cached-in-process")]
    # asyncio keeps process-wide state (its event loop policy) that the reading cannot follow: the one
    # fixture that imports it keys on its whole text, as it must
    texts = [p.read_text(encoding="utf-8") for p in (LAB_ROOT / "tests/fixtures/independent/correct").glob("*.py")]
    with_asyncio = [text for text in texts if "import asyncio" in text]
    assert len(with_asyncio) == 1 and not statically_readable(ast.parse(with_asyncio[0]))
    plain += [text for text in texts if text not in with_asyncio]
    plain.append("from typing import Optional\nif __name__ == '__main__':\n    print(1)\n")
    assert all(statically_readable(ast.parse(text)) for text in plain)
    # a decorator's registry is followed instead: a decorated function is reached on import (lab/grading/reach.py)
    looked_up = [DYNAMIC[form] for form in DYNAMIC if form != "a registry a decorator fills"]
    assert not any(statically_readable(ast.parse(REFERENCE.replace(LIVE, t) + a)) for t, a in looked_up)


def test_fresh_reruns_every_check_and_keeps_what_it_found(ran, tmp_path):
    path = learner_file(tmp_path, REFERENCE)
    checked(path, ran)
    assert checked(path, ran, use_cache=False) == EVERY_CHECK
    assert checked(path, ran) == set()
    assert build_parser(only="check").parse_args(["check", "4", "--fresh"]).fresh


def test_the_time_limit_and_every_part_of_the_checker_decide_a_verdict(ran, tmp_path, monkeypatch):
    path = learner_file(tmp_path, REFERENCE)
    checked(path, ran, (1,))
    assert checked(path, ran, (1,), time_limit=3) == every_check_of(1)
    checker = tmp_path / "a_check.py"
    checker.write_text("def test_one(): pass\n", encoding="utf-8")
    monkeypatch.setattr(checker_digest, "LAB_ROOT", tmp_path)
    monkeypatch.setattr(checker_digest, "checker_files", lambda *_: [checker])
    checked(path, ran, (1,))
    checker.write_text("def test_one(): assert True\n", encoding="utf-8")  # a check, the lab: the files that run them
    assert checked(path, ran, (1,)) == every_check_of(1)
    for module, name, value in ((sqlite3, "sqlite_version", "0.0.1"), (sys, "version", "3.0 (another Python)")):
        monkeypatch.setattr(module, name, value)
        checker_digest._digest.cache_clear()
        assert checked(path, ran, (1,)) == every_check_of(1), name
    checker_digest._digest.cache_clear()


def every_check_of(step):
    return {name for name in EVERY_CHECK if name[0] == step}


def test_a_failed_race_of_the_learner_runs_again_and_a_mutants_is_reused(ran, tmp_path):
    assert RACE in checks.race_checks(
        8
    ) and "test_claim_many_lets_a_value_error_of_claim_through" not in checks.race_checks(8)
    ran.statuses = {RACE: CheckStatus.FAILED, "test_claim_many_with_one_owner_on_a_new_job": CheckStatus.FAILED}
    path = learner_file(tmp_path, REFERENCE)
    checked(path, ran, (8,))
    assert checked(path, ran, (8,)) == {(8, RACE)}  # the other failure stands: it is not a race
    ran.statuses = {}
    assert checked(path, ran, (8,)) == {(8, RACE)}  # it passed this time: kept as any check
    assert checked(path, ran, (8,)) == set()
    ran.statuses = {RACE: CheckStatus.FAILED}
    mutant = kill_matrix.prebuilt([m for m in load_mutants() if m.step == 8][:1])
    kill_matrix.results(mutant)
    assert kill_matrix.results(mutant)[1] == 0


def test_a_check_that_ran_out_of_time_on_the_learners_code_runs_again(ran, tmp_path):
    generated = "test_step_1_random_inserts_and_restarts_keep_the_contract"
    ran.statuses = {generated: CheckStatus.TIMEOUT}
    path = learner_file(tmp_path, REFERENCE)
    checked(path, ran, (1,))
    assert checked(path, ran, (1,)) == every_check_of(1)  # a lost check: the whole run is kept, and not reused


def test_an_edit_saved_during_a_check_is_never_credited_with_its_verdict(ran, tmp_path, monkeypatch):
    path = learner_file(tmp_path, REFERENCE)
    job = kill_matrix.learner(path, (2,))
    path.write_text(REFERENCE.replace("INSERT OR IGNORE", "INSERT OR REPLACE"), encoding="utf-8")  # saved meanwhile
    kill_matrix.results([job])
    assert [text for _, _, text, _ in job.target.files] == [REFERENCE]  # the runner checks the text as read
    assert checked(path, ran, (2,)) == every_check_of(2)  # the saved edit has no verdict yet
    path.write_text(REFERENCE, encoding="utf-8")
    assert checked(path, ran, (2,)) == set()


def steps_folder(root, texts):
    """A steps-like folder of the course's step files, each the text given for its step (else a pass)."""
    for step in load_course():
        folder = root / step.dir
        folder.mkdir(parents=True)
        default = f"def {step.function}(*arguments):\n    return None\n"
        (folder / STEP_FILE).write_text(texts.get(step.number, default), encoding="utf-8")
    return root


def test_a_line_added_in_another_file_keeps_every_verdict_and_one_above_a_reached_function_does_not(ran, tmp_path):
    steps = steps_folder(tmp_path / "steps", {})
    checked(steps, ran, (1, 2))
    last = steps / load_course()[-1].dir / STEP_FILE
    last.write_text("\n\n" + last.read_text(), encoding="utf-8")  # every line of it moves down
    assert checked(steps, ran, (1, 2)) == set()
    first = steps / load_course()[0].dir / STEP_FILE
    first.write_text("\n" + first.read_text(), encoding="utf-8")  # init_db moves: a failure would show another line
    assert checked(steps, ran, (1, 2)) == {(s, c) for s, c in reaching(assemble(read(steps)), "init_db") if s <= 2}


RAISES = 'import sqlite3\n\n\ndef claim_many(path, job_id, owners, now, ttl):\n    return []\n\n\ndef init_db(path):\n    raise ValueError("no table")\n'


@pytest.mark.e2e
def test_a_reused_failure_shows_the_line_where_the_code_now_raises(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "ROOT", tmp_path / "cache")
    path = learner_file(tmp_path, RAISES)
    lines = []
    for text in (
        RAISES,
        RAISES.replace("return []", "found = []\n    return found"),  # init_db moves down a line
        RAISES.replace("return []", "found = []\n    return list(found)"),  # nothing moves
    ):
        path.write_text(text, encoding="utf-8")
        results, ran = kill_matrix.results([kill_matrix.learner(path, (1,))])
        shown = {
            r.said("en").rsplit("line ", 1)[-1]
            for r in results
            if r.check.startswith("test_init_db_creates_the_jobs_table")
        }
        lines.append((ran, shown))
    assert lines == [(1, {"9)"}), (1, {"10)"}), (0, {"10)"})]


@pytest.mark.e2e
def test_the_learners_code_cannot_write_the_cache_it_would_be_reused_from(tmp_path, monkeypatch):
    planted = LAB_ROOT / "build" / "cache" / kill_matrix.NAMESPACE / f"{cache.key(str(tmp_path))}.json"
    code = f"def init_db(path):\n    open({str(planted)!r}, 'w').write('[]')\n"
    monkeypatch.setattr(cache, "ROOT", tmp_path / "cache")
    results, _ = kill_matrix.results([kill_matrix.learner(learner_file(tmp_path, code), (1,))])
    assert results and not planted.exists()
    assert any(r.status == CheckStatus.ERROR for r in results), [r.said("en") for r in results]


def test_credit_and_a_class_never_read_a_learners_verdict_from_the_cache(ran, tmp_path, monkeypatch):
    path = learner_file(tmp_path, REFERENCE)
    checked(path, ran, (1,))  # cached: what a learner could have planted in a folder handed in
    graded = []

    def run(targets, *_, **__):
        graded.extend(targets)
        return []

    monkeypatch.setattr(check, "run", run)
    check.check(path, (1,), (), credit_only=True)
    assert [t.id for t in graded] == ["credit/1"]
    monkeypatch.setattr(submission, "run", run)
    monkeypatch.setattr(kill_matrix, "results", None)  # a class never asks the kill matrix for a learner
    handed_in = submission.Submission("learner", path)
    submission.check_one(handed_in, (1,), 10.0, "en", None, mutants=False)
    assert not handed_in.problem and [t.id for t in graded[1:]] == ["learner", "credit/1"]


def test_the_report_says_in_one_line_how_many_checks_were_reused():
    def result(step, name, reused):
        return Result(name, name, "steps", step, [], CheckStatus.PASSED, "", 0.0, reused=reused)

    results = [result(1, "a", True), result(2, "b", True), result(3, "c", False), result(5, "d", True)]
    for lang, shown in (("en", "steps 1-2, 5: 3 checks reused"), ("ja", "ステップ 1-2, 5: 3 件の検査")):
        console = terminal.Console(record=True, width=200)
        terminal._render_reused(console, terminal.words_of("report", lang), results)
        text = console.export_text()
        assert shown in text and text.count("\n") == 1 and text.rstrip().endswith(("1 run", "1 件を実行"))
    console = terminal.Console(record=True)
    terminal._render_reused(console, terminal.words_of("report", "en"), [result(1, "a", False)])
    assert console.export_text() == ""
    assert result(1, "a", True) == result(1, "a", False)  # a reused result is the result it was kept from


def test_a_file_that_does_not_load_is_kept_as_facts_and_reused_in_either_language(tmp_path, monkeypatch):
    """The learner process used to word a file that does not load in the run's language, and such
    results were kept per language; now they are facts like every other message, kept once."""
    monkeypatch.setattr(cache, "ROOT", tmp_path / "cache")
    path = learner_file(tmp_path, "def init_db(path:\n    pass\n")
    first, ran = kill_matrix.results([kill_matrix.learner(path, (1,))])
    again, reran = kill_matrix.results([kill_matrix.learner(path, (1,))])
    assert ran == 1 and reran == 0 and all(r.reused for r in again)
    assert {type(r.message).__name__ for r in again} == {"Words"}
    assert all("SyntaxError" in r.said("en") and "cannot be checked" in r.said("en") for r in again)
    assert all("SyntaxError" in r.said("ja") and "検査できません" in r.said("ja") for r in again)


def test_the_json_results_say_which_checks_were_reused():
    kept = Result("n", "test_x", "steps", 1, ["C1.1"], CheckStatus.PASSED, "", 0.0, reused=True)
    outcome = check.CheckRun((1,), "steps", [kept, replace(kept, nodeid="m", reused=False)])
    assert [c["reused"] for c in results_json.as_dict(outcome)["checks"]] == [True, False]


def test_a_missing_file_and_one_refused_as_a_link_are_two_verdicts(ran, tmp_path):
    steps = steps_folder(tmp_path / "steps", {})
    renew = steps / load_course()[4].dir / STEP_FILE
    elsewhere = learner_file(tmp_path, renew.read_text(), name="renew.py")
    renew.unlink()
    checked(steps, ran, (5,))
    renew.symlink_to(elsewhere)  # the same text as none at all, refused for another reason
    assert checked(steps, ran, (5,)) == every_check_of(5)
