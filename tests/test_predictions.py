"""The learner's predictions: run against the reference and the step's mutants in child processes,
reported side by side with the lab's checks; no spoilers before the learner predicted; a column
in the class table; part of the JSON; STRICT=1 the only way they gate anything."""

import csv
import json
import shutil
import subprocess

import jsonschema
import pytest
from cache_store import entries_added_only
from rich.console import Console

import lab.grading.classroom as classroom
from lab import cache
from lab.grading import class_outputs, class_table, kill_matrix, predictions
from lab.grading.check import check
from lab.grading.checker_digest import checker_files
from lab.model.course import LAB_ROOT, load_course
from lab.model.prediction_file import PREDICTION_FILE, holds_a_prediction
from lab.model.pristine import prediction_text, write_stubs
from lab.model.results import Prediction, PredictionStatus
from lab.model.status import ExitStatus
from lab.reporters import results_json
from lab.reporters import terminal as report

STEP_4 = load_course()[3]
SNIPPET = "m4-expired-counts-as-live"  # the broken change to review of step 4
CATCHES = """
def test_my_prediction(lease, db):
    lease.enqueue(db, "job")
    assert lease.claim(db, "job", "A", now=0, ttl=10) == 1
    assert lease.claim(db, "job", "B", now=10, ttl=5) == 2  # at now == until the lease has expired
"""
MISSES = """
def test_my_prediction(lease, db):
    lease.enqueue(db, "job")
    assert lease.claim(db, "job", "A", now=5, ttl=10) == 1  # a happy path: until=0 < now
"""
REJECTS = """
def test_my_prediction(lease, db):
    assert lease.claim(db, "never-enqueued", "A", now=0, ttl=10) == 1
"""


def steps_with(folder, text, step=STEP_4, solutions=True):
    """A steps-like folder: the reference's step files (or none), and text as step's prediction."""
    if solutions:
        shutil.copytree(LAB_ROOT / "solutions", folder)
    (folder / step.dir).mkdir(parents=True, exist_ok=True)
    if text is not None:
        (folder / step.dir / PREDICTION_FILE).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def three_predictions(tmp_path_factory):
    root = tmp_path_factory.mktemp("predictions")
    found = {}
    for name, text in (("catches", CATCHES), ("misses", MISSES), ("rejects", REJECTS)):
        folder = steps_with(root / name, text, solutions=False)
        with entries_added_only():
            found[name] = predictions.run_predictions(folder, (4,), time_limit=10, use_cache=False)[0]
    return found


def test_a_prediction_that_catches_the_snippet(three_predictions):
    found = three_predictions["catches"]
    assert found.status == PredictionStatus.WRITTEN
    assert found.caught(SNIPPET) and found.catches_the_snippet(classroom.load_mutants())
    assert set(found.outcomes) == {m.id for m in classroom.load_mutants() if m.step == 4}


def test_a_prediction_that_misses_the_snippet(three_predictions):
    found = three_predictions["misses"]
    assert found.status == PredictionStatus.WRITTEN
    assert found.outcomes[SNIPPET] == "missed" and not found.catches_the_snippet(classroom.load_mutants())


def test_a_prediction_that_rejects_correct_code_says_why(three_predictions):
    found = three_predictions["rejects"]
    assert found.status == PredictionStatus.REJECTS and found.caught_count == 0
    assert "assert None == 1" in found.said("en")  # the learner's own assert, rewritten by pytest
    # pytest names the call by the reprs of what was called: as the learner wrote it, never the
    # lab's objects, their addresses or the sandbox's paths (in every report, JSON included).
    said = found.said("en")
    assert "lease.claim(db, 'never-enqueued', 'A', now=0, ttl=10)" in said, said
    assert not any(leak in said for leak in ("object at 0x", "functools", "/run/", "scratch", "Link")), said


@pytest.mark.usefixtures("cache_entries_added_only")
def test_the_template_as_shipped_is_no_prediction_yet_and_never_runs(tmp_path, monkeypatch):
    template = prediction_text(STEP_4)  # as shipped, from git (lab/model/pristine.py), whatever steps/ holds
    for text in (template, template.replace("    raise", "    pass\n    raise"), template + "\n# notes\n", "", None):
        assert not holds_a_prediction(text)
    assert holds_a_prediction(CATCHES) and holds_a_prediction("def test_my_prediction(:\n")
    monkeypatch.setattr(predictions, "run", lambda *a, **k: pytest.fail("an untouched template ran"))
    found = predictions.run_predictions(steps_with(tmp_path / "s", template, solutions=False), (4,), use_cache=False)
    assert [p.status for p in found] == [PredictionStatus.NO_PREDICTION]


def test_every_step_ships_an_untouched_template_that_names_what_to_write():
    for step in load_course():
        text = prediction_text(step)  # as shipped: the learner's steps/ may hold a prediction
        assert "def test_my_prediction(lease, db):" in text and "レビューする誤った変更" in text
        assert "the broken change to review" in text and not holds_a_prediction(text)
        assert not (LAB_ROOT / "solutions" / step.dir / PREDICTION_FILE).exists()


def test_a_warm_run_reads_the_verdicts_from_the_cache(tmp_path, monkeypatch):
    folder = steps_with(tmp_path / "s", MISSES, solutions=False)
    monkeypatch.setattr(cache, "ROOT", tmp_path / "cache")
    first = predictions.run_predictions(folder, (4,))[0]
    monkeypatch.setattr(predictions, "run", lambda *a, **k: pytest.fail("a cached prediction ran again"))
    again = predictions.run_predictions(folder, (4,))[0]
    assert again.cached and not first.cached and again.outcomes == first.outcomes
    (folder / STEP_4.dir / PREDICTION_FILE).write_text(CATCHES, encoding="utf-8")
    with pytest.raises(pytest.fail.Exception):  # a new text is a new key
        predictions.run_predictions(folder, (4,))


def test_the_verdicts_key_covers_the_fork_server_and_what_keeps_its_children_apart():
    """A change to any code that decides a prediction's verdicts is a new key (lab/grading/checker_digest.py):
    the host, its targets, the launcher that forks a child per target, and the sandbox's separation."""
    files = checker_files(predictions.HOST, predictions.PLUGIN, predictions.__name__)
    running, sandbox = LAB_ROOT / "lab" / "running", LAB_ROOT / "lab" / "sandbox"
    for name in ("prediction_host.py", "prediction_launcher.py", "prediction_plugin.py", "prediction_targets.py"):
        assert running / name in files
    assert sandbox / "apart.py" in files


@pytest.fixture(scope="module")
def step_4_run(tmp_path_factory):
    """The reference with a prediction that misses the snippet, checked on step 4 with its mutants."""
    folder = steps_with(tmp_path_factory.mktemp("run") / "steps", MISSES)
    return check(folder, (1, 2, 3, 4), (4,), time_limit=10, impl_label="steps")


def test_strict_turns_a_prediction_that_misses_the_snippet_into_status_1(step_4_run):
    assert step_4_run.exit_status == ExitStatus.ALL_PASS  # predictions gate nothing by default
    step_4_run.strict = True
    try:
        assert step_4_run.exit_status == ExitStatus.SOME_FAIL
        assert "STRICT=1" in rendered(step_4_run)
    finally:
        step_4_run.strict = False


def test_the_makefile_passes_strict_and_show():
    done = subprocess.run(
        ["make", "-n", "check-step", "4", "STRICT=1", "SHOW=all"], cwd=LAB_ROOT, capture_output=True, text=True
    )
    assert "--strict" in done.stdout and '--show "all"' in done.stdout
    done = subprocess.run(["make", "-n", "check-step", "4"], cwd=LAB_ROOT, capture_output=True, text=True)
    assert "--strict" not in done.stdout and "--show" not in done.stdout


def test_the_report_shows_the_prediction_beside_the_checks_that_catch_each_mutant(step_4_run):
    text = rendered(step_4_run)
    assert "Your prediction catches" in text and "but not the broken change to review" in text
    snippet = text[text.index(SNIPPET) :]
    assert snippet.index("caught by:") < snippet.index("your prediction: missed") < snippet.index("still passes")
    assert "(the broken change to review)" in text and "worksheet" not in text
    assert "レビューする誤った変更" in rendered(step_4_run, "ja") and "あなたの予想: 見逃し" in rendered(
        step_4_run, "ja"
    )


def rendered(outcome, lang="en"):
    console = Console(record=True, width=400, file=open("/dev/null", "w"))  # noqa: SIM115
    report.render(outcome, lang, console)
    return console.export_text()


@pytest.fixture(scope="module")
def stub_step_1(tmp_path_factory):
    """The stubs as shipped with step 1's template: step 1 neither passes nor has a prediction."""
    folder = write_stubs(tmp_path_factory.mktemp("stubs") / "steps")
    (folder / "01-init-db" / PREDICTION_FILE).write_text(prediction_text(load_course()[0]), encoding="utf-8")
    return check(folder, (1,), (1,), time_limit=10, impl_label="steps")


def test_no_spoilers_before_the_step_passes_and_a_prediction_is_written(stub_step_1):
    text = rendered(stub_step_1)
    assert "No prediction yet: write test_my_prediction in" in text
    assert "1-a C1.3 (the broken change to review)" in text  # a neutral label and its clause
    for spoiler in (
        "caught by",
        "still passes",
        "- CREATE TABLE IF NOT EXISTS jobs",
        "+ CREATE TABLE jobs",
        "a restarting worker cannot start",
        "m1-create-without-if-not-exists",
    ):
        assert spoiler not in text
    assert "SHOW=all" not in text  # for instructors (docs/instructor.md), not offered to a learner
    assert "検出した検査" not in rendered(stub_step_1, "ja") and "SHOW=all" not in rendered(stub_step_1, "ja")


def test_show_all_reveals_everything_and_a_prediction_alone_shows_only_what_it_caught(stub_step_1):
    stub_step_1.show_all = True
    try:
        assert "caught by" in rendered(stub_step_1) and "+ CREATE TABLE jobs" in rendered(stub_step_1)
    finally:
        stub_step_1.show_all = False
    saved = stub_step_1.predictions
    written = Prediction(
        1, "steps/01-init-db/prediction.py", PredictionStatus.WRITTEN, outcomes={"m1-fence-default-one": "caught"}
    )
    stub_step_1.predictions = [written]
    try:
        text = rendered(stub_step_1)
        assert "1-a C1.3 (the broken change to review) missed" in text and "1-b C1.1 caught" in text
        assert "caught by" not in text and "m1-fence-default-one" not in text and "once step 1 passes" in text
    finally:
        stub_step_1.predictions = saved


def test_a_passing_step_reveals_everything(step_4_run):
    step_4_run.predictions, saved = [], step_4_run.predictions
    try:
        assert "caught by" in rendered(step_4_run)
    finally:
        step_4_run.predictions = saved


def test_the_json_carries_the_predictions_and_validates(step_4_run):
    document = json.loads(json.dumps(results_json.as_dict(step_4_run)))
    schema = json.loads((LAB_ROOT / "lab" / "schemas" / "results.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(document)
    (found,) = document["predictions"]
    by_id = {entry.get("id"): entry for entry in found["mutants"]}  # step 4 passes: the compare phase
    assert found["step"] == 4 and found["status"] == "written" and by_id[SNIPPET]["outcome"] == "missed"


def test_the_class_table_counts_the_mutants_each_learners_predictions_catch(tmp_path, monkeypatch):
    steps_with(tmp_path / "class" / "ada" / "steps", CATCHES)
    steps_with(tmp_path / "class" / "ben", REJECTS)
    write_stubs(tmp_path / "class" / "cho")
    monkeypatch.setattr(kill_matrix, "results", lambda *a, **k: ([], True))  # the matrix is not the point here
    outcome = classroom.check_class(tmp_path / "class", time_limit=10)
    markdown, table = class_outputs.write(outcome, tmp_path / "out")
    rows = {row[0]: row for row in csv.reader(table.open(encoding="utf-8-sig"))}
    own = sum(m.step == 4 for m in classroom.load_mutants())  # scored against the step's own mutants
    ada = next(p for p in outcome.submissions[0].predictions if p.step == 4)
    assert rows["learner"][-2] == "predictions"
    assert (
        rows["ada"][-2].startswith(
            f"{ada.caught_count}/{own} of its steps' mutants caught; step 4: {ada.caught_count}/{own}"
        )
        and ada.caught_count >= 1
    )
    assert rows["ben"][-2] == f"0/{own} of its steps' mutants caught; step 4: rejects correct code"
    assert rows["cho"][-2] == "never started"
    assert f"step 4: {ada.caught_count}/{own}" in markdown.read_text(encoding="utf-8")
    learner = json.loads((tmp_path / "out" / "learners" / "ada.json").read_text(encoding="utf-8"))
    assert [p["caught"] for p in learner["predictions"] if p["step"] == 4] == [ada.caught_count]
    # for the instructor: the mutants' ids, although ada's step 4 does not pass here
    (predicted,) = [p["mutants"] for p in learner["predictions"] if p["step"] == 4]
    assert {m["id"] for m in predicted} == set(ada.outcomes)
    japanese = class_table.table(outcome, "ja")
    assert japanese[0][-2] == "予想" and f"{own} 件中 {ada.caught_count} 件" in japanese[1][-2]
    for name in ("ada", "ben"):  # each prediction's file and message named from the learner's folder
        text = (tmp_path / "out" / "learners" / f"{name}.json").read_text(encoding="utf-8")
        assert str(tmp_path) not in text and "/run/lease-lab" not in text, name


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("def test_my_prediction(lease, db:\n    pass\n", "SyntaxError"),
        (
            "undefined_name\n\ndef test_my_prediction(lease, db):\n    assert db\n",
            "NameError: name 'undefined_name' is not defined",
        ),
        ("def test_my_prediction(db):\n    assert db\n", "takes no `lease`"),
        ("def test_my_prediction(lease, db, tmp_file):\n    assert db\n", "the fixture `tmp_file`, which there is not"),
    ],
    ids=["syntax-error", "error-at-import", "no-lease", "unknown-fixture"],
)
@pytest.mark.usefixtures("cache_entries_added_only")
def test_a_prediction_that_cannot_run_is_the_learners_problem_never_the_labs(tmp_path, text, shown):
    folder = steps_with(tmp_path / "s", text, solutions=False)
    (found,) = predictions.run_predictions(folder, (4,), time_limit=10, use_cache=False)
    assert found.status == PredictionStatus.CANNOT_RUN and shown in found.said("en") and found.caught_count == 0
    assert "lease-lab-predictions" not in found.said("en")  # the learner's file is named, not its copy
