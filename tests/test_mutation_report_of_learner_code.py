"""The mutation report of code that is not the reference: any shape (helper functions shared by
several steps), the learner's own ledger of equivalents, and no maintainer lines about the lab's."""

import json
import subprocess
import sys

import pytest

from lab.model.course import LAB_ROOT

HELPERS = LAB_ROOT / "tests" / "fixtures" / "independent" / "correct" / "shared_helpers.py"
# Equivalent in this code: C8.3 lets a pool have any size of two or more, the default included.
OWN_LEDGER = '''
[[mutant]]
function = "claim_many"
before = "with ThreadPoolExecutor(max_workers=_MAX_WORKERS) as pool:"
after = "with ThreadPoolExecutor(max_workers=None) as pool:"
reason = "The default pool has two or more threads too, which is all C8.3 asks."
'''


def mutation_report(tmp_path, ledger_text):
    ledger = tmp_path / "my-equivalents.toml"
    ledger.write_text(ledger_text, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "lab", "mutation", "--impl", str(HELPERS), "--out", str(tmp_path / "out"),
         "--stage", str(tmp_path / "stage"), "--ledger", str(ledger)],
        cwd=LAB_ROOT, capture_output=True, text=True, timeout=900,
    )


@pytest.fixture(scope="module")
def helpers_report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("helpers")
    done = mutation_report(folder, OWN_LEDGER)
    return done, json.loads((folder / "out" / "mutation.json").read_text(encoding="utf-8"))


def test_code_with_helper_functions_gets_a_report_and_the_own_ledger_settles_its_survivor(helpers_report):
    done, _ = helpers_report
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stdout + done.stderr


def test_a_helpers_mutants_belong_to_the_first_step_whose_checks_reach_it(helpers_report):
    _, report = helpers_report
    mutants = [m for f in report["files"].values() for m in f["mutants"] if m["mutatorName"] == "mutmut"]
    helper_mutants = [m for m in mutants if "_check_ttl" in m["id"]]
    # claim (step 4) is the first function that calls _check_ttl; a changed error message is
    # equivalent by the lab's ledger (Ignored), every other mutant of it is killed
    assert helper_mutants and all(m["description"].startswith("step 4,") for m in helper_mutants)
    assert {m["status"] for m in helper_mutants} <= {"Killed", "Ignored"} and any(m["status"] == "Killed" for m in helper_mutants)


def test_the_learner_sees_no_line_about_the_labs_own_ledger(helpers_report):
    done, _ = helpers_report
    assert "ledger entries that match no mutant" not in done.stdout


def test_a_ledger_that_is_not_toml_is_one_clear_line_and_status_2(tmp_path):
    done = mutation_report(tmp_path, "[[mutant]\nfunction = ")
    assert done.returncode == 2 and "my-equivalents.toml is not valid TOML" in done.stderr
    assert "Traceback" not in done.stderr
