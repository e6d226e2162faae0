"""What the code under test writes by a relative path lands in a scratch folder, never in the lab;
and a counterexample that the generated checks find is reported within the default time limit:
shrinking is bounded by a number of calls (checks/conftest.py), however long Hypothesis could go on."""

import json
import subprocess
import sys

from hang import HANGS_AFTER

from lab.model.course import LAB_ROOT

WRONG = LAB_ROOT / "tests" / "fixtures" / "independent" / "wrong"


def lab(*arguments):
    return subprocess.run(
        [sys.executable, "-m", "lab", *arguments], cwd=LAB_ROOT, capture_output=True, text=True, timeout=HANGS_AFTER
    )


def test_a_file_written_by_a_relative_path_does_not_land_in_the_lab(tmp_path):
    stray = "written-by-the-code-under-test"
    impl = tmp_path / "stray.py"
    reference = (LAB_ROOT / "solutions" / "01-init-db" / "step.py").read_text(encoding="utf-8")
    impl.write_text(
        reference + f"\n\n_real = init_db\n\ndef init_db(path):\n    open({stray!r}, 'w').close()\n    _real(path)\n"
    )
    done = lab("check", "1", "--impl", str(impl), "--no-mutants")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (LAB_ROOT / stray).exists() and not (tmp_path / stray).exists()


def test_a_found_counterexample_is_reported_as_a_failure_within_the_default_time_limit(tmp_path):
    out = tmp_path / "results.json"
    done = lab(
        "check", "6", "--impl", str(WRONG / "wrong_s6_complete_ignores_expiry.py"), "--no-mutants", "--json", str(out)
    )
    generated = [c for c in json.loads(out.read_text())["checks"] if c["check"].startswith("test_step_6_random")]
    assert done.returncode == 1 and [c["status"] for c in generated] == ["failed"], done.stdout[-2000:]
    assert generated[0]["clauses"] == ["C6.2"] and "called:" in generated[0]["message"]


def test_checks_run_by_hand_leave_no_database_in_the_temporary_folder(tmp_path):
    """`pytest checks/` with no plan from the lab: the databases the checks make lie in a scratch
    folder of the run's own, removed when it ends, not one loose folder per database."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(LAB_ROOT), "TMPDIR": str(tmp_path), "LAB_LANG": "en"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "checks/test_02_enqueue.py"],
        cwd=LAB_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANGS_AFTER,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith("pytest-of-")] == []
