"""Results for machines: --json validates against the schema kept in the repo, --junit is JUnit
XML with one test case per check, --exercism is Exercism's results.json (version 3) with a score,
all three follow the phases of the screen, and the GitHub Actions workflow calls the checker with
flags it accepts."""

import json
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import jsonschema
import pytest
from hang import HANGS_AFTER
from learner_folders import make_learner

from lab.commands import build_parser
from lab.model.course import LAB_ROOT, all_clauses, load_course
from lab.model.mutants import load_mutants
from lab.model.prediction_file import PREDICTION_FILE
from lab.model.pristine import prediction_text, write_stubs
from lab.model.status import ExitStatus

SCHEMA = LAB_ROOT / "lab" / "schemas" / "results.schema.json"
WORKFLOW = LAB_ROOT / ".github" / "workflows" / "check.yml"


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """One run on a learner whose step 4 has a boundary bug, with step 4's mutants: all formats."""
    folder = tmp_path_factory.mktemp("formats")
    impl = make_learner(folder / "learner", "boundary_bug")
    files = {name: folder / "out" / f"results.{name}" for name in ("json", "junit", "exercism")}
    arguments = ["check", "4", "--impl", str(impl), "--time-limit", "10"]
    arguments += ["--json", str(files["json"]), "--junit", str(files["junit"]), "--exercism", str(files["exercism"])]
    done = subprocess.run(
        [sys.executable, "-m", "lab", *arguments], cwd=LAB_ROOT, capture_output=True, text=True, timeout=HANGS_AFTER
    )
    assert done.returncode == ExitStatus.SOME_FAIL, done.stdout + done.stderr
    return json.loads(files["json"].read_text()), ET.parse(files["junit"]), json.loads(files["exercism"].read_text())


STEP_1 = load_course()[0]
PREDICTION = "def test_my_prediction(lease, db):\n    lease.init_db(db)  # the table is there already\n"


def _files_of(steps, folder, tag):
    """`make check-step 1 JSON=… JUNIT=… EXERCISM=…` on steps: (the run, the text of each file)."""
    files = {name: folder / f"{tag}.{name}" for name in ("json", "junit", "exercism")}
    arguments = ["check", "1", "--impl", str(steps), "--time-limit", "10"]
    arguments += ["--json", str(files["json"]), "--junit", str(files["junit"]), "--exercism", str(files["exercism"])]
    done = subprocess.run(
        [sys.executable, "-m", "lab", *arguments], cwd=LAB_ROOT, capture_output=True, text=True, timeout=HANGS_AFTER
    )
    return done, {name: path.read_text(encoding="utf-8") for name, path in files.items()}


@pytest.fixture(scope="module")
def phases(tmp_path_factory):
    """A learner's step 1 and its files before the compare phase (the stub and the template as
    shipped) and in it (the reference's step 1 and a prediction written)."""
    folder = tmp_path_factory.mktemp("phases")
    steps = write_stubs(folder / "steps")
    (steps / STEP_1.dir / PREDICTION_FILE).write_text(prediction_text(STEP_1), encoding="utf-8")
    before = _files_of(steps, folder, "predict")
    shutil.copy(LAB_ROOT / "solutions" / STEP_1.dir / "step.py", steps / STEP_1.dir / "step.py")
    (steps / STEP_1.dir / PREDICTION_FILE).write_text(PREDICTION, encoding="utf-8")
    return before, _files_of(steps, folder, "compare")


def test_before_the_compare_phase_no_file_holds_a_mutants_id_or_what_catches_it(phases):
    (done, files), _ = phases
    assert done.returncode == ExitStatus.SOME_FAIL, done.stdout + done.stderr
    assert "SHOW=all" not in done.stdout + done.stderr  # for instructors, never offered on a failing run
    every_id = [mutant.id for mutant in load_mutants()]
    for name, text in files.items():
        assert not [i for i in every_id if i in text], name
        assert "killed_by" not in text and "passed_by" not in text, name
    results = json.loads(files["json"])
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(results)
    own = [mutant for mutant in load_mutants() if mutant.step == 1]
    assert [m["label"] for m in results["mutants"]] == [f"1-{chr(ord('a') + i)}" for i in range(len(own))]
    assert [m["clause"] for m in results["mutants"]] == [mutant.clause for mutant in own]  # as the screen shows
    assert [p["status"] for p in results["predictions"]] == ["no_prediction"]


def test_in_the_compare_phase_the_json_names_each_mutant_and_the_checks_that_catch_it(phases):
    _, (done, files) = phases
    assert done.returncode == ExitStatus.ALL_PASS, done.stdout + done.stderr
    results = json.loads(files["json"])
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(results)
    own = [mutant for mutant in load_mutants() if mutant.step == 1]
    assert [m["id"] for m in results["mutants"]] == [mutant.id for mutant in own]
    assert all(m["killed_by"] for m in results["mutants"])
    (prediction,) = results["predictions"]
    assert prediction["status"] == "written" and {m["id"] for m in prediction["mutants"]} == {m.id for m in own}
    for name in ("junit", "exercism"):  # the learner's checks only, in every phase
        assert not [mutant.id for mutant in own if mutant.id in files[name]], name


def test_the_json_validates_against_the_schema_in_the_repository(outputs):
    results, _, _ = outputs
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(results)
    assert results["mutants"] and all(m["step"] == 4 for m in results["mutants"])
    assert any(c["status"] == "failed" and "C4.5" in c["clauses"] for c in results["checks"])


def test_the_schema_rejects_what_it_should():
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))
    good = {
        "schema_version": 2,
        "impl": "steps",
        "steps": [1],
        "exit_status": 1,
        "checks": [],
        "mutants": [],
        "summary": {},
        "lab_problems": [],
    }
    assert validator.is_valid(good)
    assert not validator.is_valid({**good, "exit_status": 2})
    bad_check = {
        "nodeid": "n",
        "check": "test_x",
        "target": "t",
        "step": 1,
        "clauses": ["C1.1"],
        "status": "maybe",
        "message": "",
        "duration": 0,
    }
    assert not validator.is_valid({**good, "checks": [bad_check]})


def test_junit_has_one_test_case_per_check_and_marks_the_failures(outputs):
    results, junit, _ = outputs
    cases = junit.getroot().findall("./testsuite/testcase")
    assert len(cases) == len(results["checks"])
    failed = [c for c in cases if c.find("failure") is not None or c.find("error") is not None]
    assert len(failed) == sum(c["status"] not in ("passed", "not_implemented") for c in results["checks"])
    suites = junit.getroot().findall("testsuite")
    assert [s.get("name").split()[1] for s in suites] == ["01", "02", "03", "04"]
    assert suites[3].get("name") == "Step 04 · claim: " + load_course()[3].title["en"]
    assert sum(int(s.get("failures")) + int(s.get("errors")) for s in suites) == len(failed)


def test_exercism_results_are_version_3_with_a_task_per_step_and_a_score(outputs):
    results, _, exercism = outputs
    assert exercism["version"] == 3 and exercism["status"] == "fail"
    assert len(exercism["tests"]) == len(results["checks"])
    clauses = all_clauses("en")
    for test, check in zip(exercism["tests"], results["checks"]):
        assert test["task_id"] == check["step"] and test["test_code"] == check["nodeid"]
        # human-readable, as the spec asks: the clause the check holds in the contract's words, then the check
        if len(check["clauses"]) == 1:
            assert test["name"] == f"{check['clauses'][0]}: {clauses[check['clauses'][0]]} ({check['check']})"
        else:
            assert test["name"].endswith(f" ({check['check']})")
        assert test["status"] in ("pass", "fail", "error")
        assert (test["message"] is None) == (test["status"] == "pass")
    assert exercism["score"] == sum(t["status"] == "pass" for t in exercism["tests"]) < exercism["max_score"]


def test_the_workflow_runs_the_checker_with_flags_it_accepts():
    text = WORKFLOW.read_text()
    assert "on:\n  push:" in text and "actions/upload-artifact" in text
    command = next(line.split("run:", 1)[1] for line in text.splitlines() if "python -m lab check" in line)
    words = shlex.split(command)
    arguments = build_parser().parse_args(words[words.index("lab") + 1 :])
    assert arguments.json and arguments.junit and arguments.exercism and arguments.step == "all"
