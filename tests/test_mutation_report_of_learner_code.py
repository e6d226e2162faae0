"""The mutation report of code that is not the reference: any shape (helper functions shared by
several steps), the learner's own files and line numbers, no figure about the reference, a
survivor's own clauses, the learner's ledger written by `python -m lab equivalent`, and the lab's
reviewed equivalences matched by kind on code restyled by hand."""

import json
import shutil
import subprocess
import sys
import tomllib

import pytest

from lab.model.course import LAB_ROOT, load_course
from lab.model.implementation import STEP_FILE
from lab.mutation.equivalents import learner_ledger
from lab.text.messages import say

HELPERS = LAB_ROOT / "tests" / "fixtures" / "independent" / "correct" / "shared_helpers.py"
# The reference laid out another way: the lab's ledger excuses its equivalent mutants by their
# exact lines, which these are not; and one change of its own that no input can tell apart.
RESTYLED = {
    "04-claim": [
        ("sqlite3.connect(path, isolation_level=None)", "sqlite3.connect(database=path, isolation_level=None)"),
        ("    return fence\n", "    return fence if fence > 0 else None\n"),  # a fence is never 0 here
    ],
    "08-claim-many": [("max_workers=len(owners) or 1", "max_workers=(len(owners) or 1)")],
}
SURVIVOR_LINE = "    return fence if fence > 0 else None"


def lab(*argv, timeout=900):
    return subprocess.run(
        [sys.executable, "-m", "lab", *argv], cwd=LAB_ROOT, capture_output=True, text=True, timeout=timeout
    )


def mutation_report(impl, folder, *options):
    done = lab(
        "mutation", "--impl", str(impl), "--out", str(folder / "out"), "--stage", str(folder / "stage"), *options
    )
    assert "Traceback" not in done.stdout + done.stderr, done.stdout[-3000:] + done.stderr[-3000:]
    return done, json.loads((folder / "out" / "mutation.json").read_text(encoding="utf-8")) if done.returncode in (
        0,
        1,
    ) else None


def mutants_of(report):
    return [dict(m, file=name) for name, f in report["files"].items() for m in f["mutants"]]


@pytest.fixture(scope="module")
def restyled(tmp_path_factory):
    """A learner's steps folder: the reference, restyled; its first report and its folder."""
    folder = tmp_path_factory.mktemp("restyled")
    steps = folder / "steps"
    shutil.copytree(LAB_ROOT / "solutions", steps, ignore=shutil.ignore_patterns("__pycache__"))
    for step_dir, edits in RESTYLED.items():
        path = steps / step_dir / STEP_FILE
        text = path.read_text(encoding="utf-8")
        for old, new in edits:
            assert old in text
            text = text.replace(old, new)
        path.write_text(text, encoding="utf-8")
    done, report = mutation_report(steps, folder)
    return folder, steps, done, report


def test_the_report_names_the_learners_files_with_their_own_line_numbers(restyled):
    folder, steps, done, report = restyled
    names = sorted(report["files"])
    assert len(names) == len(load_course()) and all(name.endswith(STEP_FILE) for name in names), names
    assert not any(name.endswith("steps.py") for name in names) and "steps.py" not in done.stdout
    survivors = [m for m in mutants_of(report) if m["status"] == "Survived"]
    own_line = (steps / "04-claim" / STEP_FILE).read_text(encoding="utf-8").splitlines().index(SURVIVOR_LINE) + 1
    assert survivors and {(m["file"].rpartition("steps/")[2], m["location"]["start"]["line"]) for m in survivors} == {
        ("04-claim/step.py", own_line)
    }
    assert f"04-claim/step.py:{own_line}" in done.stdout
    assert (
        f"@@ -{own_line - 1},2 +{own_line - 1},2 @@" in done.stdout
    )  # the diff in the file's own lines, one line of context


def test_a_report_on_the_learners_code_leaves_the_reference_only_figures_out(restyled):
    _, _, done, report = restyled
    assert not [m for m in mutants_of(report) if m["mutatorName"].startswith("pre-built")]
    assert "pre-built" not in done.stdout and "solutions.py" not in done.stdout
    markdown = (restyled[0] / "out" / "report.md").read_text(encoding="utf-8")
    assert "pre-built mutants caught" not in markdown


def test_a_survivor_lists_only_the_clauses_of_the_code_it_changes(restyled):
    """The line returns the fence: the checks that catch its other mutants name C4.5 (the new
    fence) and C4.6 (one winner among racing claims), not the other clauses of step 4."""
    _, _, done, _ = restyled
    contracts = {line.strip() for line in done.stdout.splitlines() if line.strip().startswith("contract:")}
    assert contracts == {say("mutation.contract", "en", clauses="C4.5, C4.6", question=say("mutation.question", "en"))}
    assert say("mutation.record_hint", "en", id="", impl="", file="")[:20] in done.stdout


def test_the_labs_reviewed_equivalences_excuse_the_same_kind_of_change_on_restyled_code(restyled):
    _, _, done, report = restyled
    assert done.returncode == 1  # the one change of its own survives: nothing else
    by_kind = {m["id"]: m["statusReason"] for m in mutants_of(report) if m["status"] == "Ignored" and m["coveredBy"]}
    claim = [reason for mutant_id, reason in by_kind.items() if "x_claim__" in mutant_id]
    pool = [reason for mutant_id, reason in by_kind.items() if "x_claim_many__" in mutant_id]
    assert any("isolation_level=None" in reason for reason in claim), by_kind
    assert len(pool) == 2 and all("ThreadPoolExecutor" in reason for reason in pool), by_kind


def test_make_equivalent_writes_the_learners_ledger_in_their_folder_and_the_survivors_are_settled(restyled):
    folder, steps, _, report = restyled
    survivors = {m["id"]: m["replacement"].strip() for m in mutants_of(report) if m["status"] == "Survived"}
    first = sorted(survivors)[0]
    assert lab("equivalent", first, "--impl", str(steps), "--stage", str(folder / "stage")).returncode == 2  # no reason
    why = "claim hands out fence 1 or more: never 0"
    for mutant_id in sorted(survivors):
        done = lab("equivalent", mutant_id, "--why", why, "--impl", str(steps), "--stage", str(folder / "stage"))
        assert done.returncode == 0 and mutant_id in done.stdout, done.stderr
    again = lab("equivalent", first, "--why", why, "--impl", str(steps), "--stage", str(folder / "stage"))
    assert again.returncode == 0 and say("mutation.already_recorded", "en", id=first, file="")[:30] in again.stdout
    ledger = learner_ledger(steps)
    assert ledger == steps / "equivalents.toml" and not any((LAB_ROOT / "mutation").glob("my-*"))
    entries = tomllib.loads(ledger.read_text(encoding="utf-8"))["mutant"]
    assert entries == [
        {"function": "claim", "before": SURVIVOR_LINE.strip(), "after": survivors[mutant_id], "reason": why}
        for mutant_id in sorted(survivors)
    ]
    done, report = mutation_report(steps, folder)
    assert done.returncode == 0, done.stdout[-3000:]
    assert {m["status"] for m in mutants_of(report) if m["id"] in survivors} == {"Ignored"}


def test_make_equivalent_refuses_an_unknown_id_and_a_report_that_is_out_of_date(restyled):
    folder, steps, _, _ = restyled
    done = lab(
        "equivalent", "lease.x_claim__mutmut_9999", "--why", "w", "--impl", str(steps), "--stage", str(folder / "stage")
    )
    assert done.returncode == 2 and "lease.x_claim__mutmut_9999" in done.stderr
    copy = folder / "changed"
    shutil.copytree(steps, copy)
    (copy / "07-release" / STEP_FILE).write_text((copy / "07-release" / STEP_FILE).read_text() + "\n# changed\n")
    done = lab(
        "equivalent", "lease.x_claim__mutmut_1", "--why", "w", "--impl", str(copy), "--stage", str(folder / "stage")
    )
    assert done.returncode == 2 and "make mutation-report" in done.stderr


def test_make_equivalent_refuses_a_mutant_that_a_check_catches_naming_the_check(restyled):
    folder, steps, _, report = restyled
    killed = next(m for m in mutants_of(report) if m["status"] == "Killed" and "x_claim__" in m["id"])
    ledger_before = learner_ledger(steps).read_bytes() if learner_ledger(steps).exists() else None
    for lang in ("en", "ja"):
        done = lab(
            "equivalent",
            killed["id"],
            "--why",
            "w",
            "--impl",
            str(steps),
            "--stage",
            str(folder / "stage"),
            "--lang",
            lang,
        )
        expected = say(
            "mutation.caught_not_equivalent", lang, id=killed["id"], check=killed["killedBy"][0], impl=str(steps)
        )
        assert done.returncode == 2 and done.stderr.strip().splitlines() == [expected], done.stderr
    assert (learner_ledger(steps).read_bytes() if learner_ledger(steps).exists() else None) == ledger_before


@pytest.mark.long
def test_a_restyled_correct_implementation_with_helpers_exits_0_on_the_labs_ledger_alone(tmp_path):
    """shared_helpers.py's pool (max_workers=_MAX_WORKERS) to None is the lab's reviewed claim_many
    entry by kind: the old report, matching by text only, called it a survivor and exited 1."""
    done, report = mutation_report(HELPERS, tmp_path, "--ledger", str(tmp_path / "none.toml"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    mutants = [m for m in mutants_of(report) if m["mutatorName"] == "mutmut"]
    helper_mutants = [m for m in mutants if "_check_ttl" in m["id"]]
    # claim (step 4) is the first function that calls _check_ttl; a changed error message is
    # equivalent by the lab's ledger (Ignored), every other mutant of it is killed
    assert helper_mutants and all(m["description"].startswith("step 4,") for m in helper_mutants)
    assert {m["status"] for m in helper_mutants} <= {"Killed", "Ignored"} and any(
        m["status"] == "Killed" for m in helper_mutants
    )
    assert "ledger entries that match no mutant" not in done.stdout


def test_a_ledger_that_is_not_toml_is_one_clear_line_and_status_2(tmp_path):
    ledger = tmp_path / "equivalents.toml"
    ledger.write_text("[[mutant]\nfunction = ", encoding="utf-8")
    done = lab(
        "mutation",
        "--impl",
        str(HELPERS),
        "--out",
        str(tmp_path / "out"),
        "--stage",
        str(tmp_path / "stage"),
        "--ledger",
        str(ledger),
    )
    assert done.returncode == 2 and "equivalents.toml is not valid TOML" in done.stderr
    assert "Traceback" not in done.stderr
