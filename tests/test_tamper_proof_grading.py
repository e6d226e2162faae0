"""Checks, mutants and the reference always come from the instructor's copy: a learner folder
that ships its own checks/, conftest.py, pytest.ini, solutions/ or a module named like one of
the lab's cannot change the verdict, and is left exactly as it was."""

import json
import os
import subprocess
import sys

from hang import HANGS_AFTER
from learner_folders import TAMPERING, fingerprint, make_learner

from lab.model.checks import checks_of
from lab.model.course import LAB_ROOT
from lab.model.status import ExitStatus


def check(impl, out, cwd):
    arguments = ["check", "3", "--impl", str(impl), "--no-mutants", "--time-limit", "5", "--json", str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "lab", *arguments], cwd=cwd, capture_output=True, text=True, timeout=HANGS_AFTER
    )
    return done, json.loads(out.read_text())


def test_shipped_checks_and_configuration_cannot_make_stubs_pass(tmp_path):
    impl = make_learner(tmp_path / "learner", "tampering")
    before = fingerprint(tmp_path / "learner")
    # Run from inside the learner's folder: its pytest.ini and conftest.py are the nearest ones.
    done, results = check(impl, tmp_path / "out.json", cwd=tmp_path / "learner")
    assert done.returncode == ExitStatus.SOME_FAIL, done.stdout + done.stderr
    assert results["checks"] and all(c["status"] == "not_implemented" for c in results["checks"])
    assert {c["check"] for c in results["checks"]} >= {"test_init_db_creates_the_jobs_table_with_the_contract_columns"}
    assert "test_everything_passes" not in {c["check"] for c in results["checks"]}
    assert fingerprint(tmp_path / "learner") == before


def test_shipped_checks_and_configuration_cannot_make_a_correct_solution_fail(tmp_path):
    impl = make_learner(tmp_path / "learner", "complete")
    for relative, text in TAMPERING.items():
        (tmp_path / "learner" / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "learner" / relative).write_text(text.replace("'passed'", "'failed'"))
    before = fingerprint(tmp_path / "learner")
    done, results = check(impl, tmp_path / "out.json", cwd=tmp_path / "learner")
    assert done.returncode == ExitStatus.ALL_PASS, done.stdout + done.stderr
    reference, _ = check(LAB_ROOT / "solutions", tmp_path / "reference.json", cwd=LAB_ROOT)
    expected = json.loads((tmp_path / "reference.json").read_text())
    assert [c["check"] for c in results["checks"]] == [c["check"] for c in expected["checks"]]
    assert fingerprint(tmp_path / "learner") == before


def test_pytest_settings_in_the_environment_change_no_check(tmp_path):
    """The checks run as the lab sets them up, whatever the environment of the command: options in
    PYTEST_ADDOPTS that would leave every check out, a plugin in PYTEST_PLUGINS that no module is,
    and Hypothesis' own settings change nothing (lab/running/child_process.py: RUN_SETTINGS)."""
    out = tmp_path / "out.json"
    settings = {
        "PYTEST_ADDOPTS": "-k no_check_is_named_so --exitfirst",
        "PYTEST_PLUGINS": "no_module_is_named_so",
        "HYPOTHESIS_EXPERIMENTAL_OBSERVABILITY": "1",
    }
    arguments = ["check", "1", "--impl", "solutions", "--no-mutants", "--fresh", "--json", str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "lab", *arguments],
        cwd=LAB_ROOT,
        env={**os.environ, **settings},
        capture_output=True,
        text=True,
        timeout=HANGS_AFTER,
    )
    assert done.returncode == ExitStatus.ALL_PASS, done.stdout + done.stderr
    results = json.loads(out.read_text())["checks"]
    assert [c["check"] for c in results] == list(checks_of(1)) and {c["status"] for c in results} == {"passed"}
