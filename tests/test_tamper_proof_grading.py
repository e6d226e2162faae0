"""Checks, mutants and the reference always come from the instructor's copy: a learner folder
that ships its own checks/, conftest.py, pytest.ini, solutions/ or a module named like one of
the lab's cannot change the verdict, and is left exactly as it was."""

import json
import subprocess
import sys

from hang import HANGS_AFTER
from learner_folders import TAMPERING, fingerprint, make_learner

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
