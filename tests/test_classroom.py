"""Checking a whole class: every learner folder under DIR with the instructor's checks, a table
learner x step as Markdown and CSV, one line per learner, and the kill matrix once."""

import csv
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from hang import HANGS_AFTER
from learner_folders import fingerprint, make_learner

import lab.grading.classroom as classroom
from lab.grading import class_table, kill_matrix
from lab.model.checks import checks_of
from lab.model.course import LAB_ROOT, load_course
from lab.model.mutants import load_mutants
from lab.model.status import ExitStatus
from lab.model.targets import Target
from lab.running.runner import run

LAST = len(load_course())  # the course's step count: a learner who did everything has LAST/LAST
CLASS = {  # learner -> (kind, a checkout of the lab or just steps/); ben hands in a zip (below)
    "ada": ("complete", True),
    "cho": ("syntax_error", False),
    "eve": ("tampering", True),
}
# Learners whose only bug is one mutant of one step: a bug counts once, at its own step.
ONE_BUG = {"bug4": "m4-expired-counts-as-live", "bug5": "m5-stale-fence-renews", "bug8": "m8-only-the-first-owner"}


def with_one_bug(folder, mutant_id):
    steps = make_learner(folder, "complete", checkout=False)
    mutant = next(m for m in load_mutants() if m.id == mutant_id)
    file = steps / load_course()[mutant.edits_step - 1].dir / "step.py"
    file.write_text(file.read_text().replace(mutant.find, mutant.replace, 1))
    return mutant.step


def run_class(root, out, *more, time_limit=10):
    arguments = ["class", str(root), "--out", str(out), "--time-limit", str(time_limit), "--no-mutants", *more]
    return subprocess.run(
        [sys.executable, "-m", "lab", *arguments], cwd=LAB_ROOT, capture_output=True, text=True, timeout=600
    )


def zipped(folder, zip_path):
    """zip_path holding folder as GitHub's "Download ZIP" does: everything under one top folder."""
    with zipfile.ZipFile(zip_path, "w") as archive:
        for file in sorted(Path(folder).rglob("*")):
            archive.write(file, Path(folder.name) / file.relative_to(folder))


def read_csv(path):
    return list(csv.reader(path.open(encoding="utf-8-sig")))


@pytest.fixture(scope="module")
def class_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("class")
    for name, (kind, checkout) in CLASS.items():
        make_learner(root / name, kind, checkout)
    for name, mutant_id in ONE_BUG.items():
        with_one_bug(root / name, mutant_id)
    download = tmp_path_factory.mktemp("download")
    make_learner(download / "lab-main", "half_done", checkout=True)
    zipped(download / "lab-main", root / "ben.zip")
    (root / "gus").mkdir()  # handed in nothing
    (root / "notes.txt").write_text("not a learner")
    before = fingerprint(root)
    out = tmp_path_factory.mktemp("out")
    done = run_class(root, out, "--regrade-all")
    rows = read_csv(out / "class.csv")
    return done, {row[0]: row for row in rows[1:]}, rows[0], out, before, fingerprint(root)


@pytest.fixture(scope="module")
def gradebook(class_run):
    _, _, _, out, _, _ = class_run
    header, *rows = read_csv(out / "grades.csv")
    return {row[1]: dict(zip(header, row)) for row in rows}


def test_the_table_has_one_row_per_learner_and_one_column_per_step(class_run):
    done, rows, header, _, _, _ = class_run
    assert done.returncode == ExitStatus.ALL_PASS, done.stdout + done.stderr  # graded, whatever the verdicts
    assert header == [
        "learner",
        *(f"step {n}" for n in range(1, LAST + 1)),
        "credit",
        "time",
        "similarity",
        "predictions",
        "summary",
    ]
    assert sorted(rows) == ["ada", "ben", "bug4", "bug5", "bug8", "cho", "eve", "gus", "notes.txt"]


def test_a_zip_nested_as_downloaded_is_graded_and_anything_else_says_what_was_found_where(class_run):
    _, rows, _, out, _, _ = class_run
    assert rows["ben"][1 : LAST + 2] == ["passed"] * 4 + ["not implemented"] * (LAST - 4) + [f"4/{LAST}"]
    assert rows["notes.txt"][1] == "error: not graded: notes.txt is neither a folder nor a zip file"
    assert rows["gus"][1] == "error: no steps/ folder and no step files in gus/"
    found = json.loads((out / "learners" / "gus.json").read_text(encoding="utf-8"))
    assert found == {
        "learner": "gus",
        "graded": False,
        "entry": "gus",
        "problem": rows["gus"][1][len("error: ") :],
        "found": {"gus": []},
        "checks": [],
    }
    assert json.loads((out / "learners" / "notes.txt.json").read_text(encoding="utf-8"))["found"] == {
        "notes.txt": {"bytes": 13}
    }


def test_each_cell_says_passed_failed_or_error(class_run):
    _, rows, _, _, _, _ = class_run
    assert rows["ada"][1 : LAST + 1] == ["passed"] * LAST
    assert rows["ben"][1:5] == ["passed"] * 4 and rows["ben"][5:9] == ["not implemented"] * 4
    assert rows["cho"][5].startswith("error: ") and "SyntaxError" in rows["cho"][5]
    assert rows["eve"][1 : LAST + 1] == ["not implemented"] * LAST  # its own checks and conftest changed nothing
    assert rows["gus"][1].startswith("error: no steps/ folder")


def test_one_summary_line_per_learner_in_the_output_and_the_markdown(class_run):
    done, rows, _, out, _, _ = class_run
    markdown = (out / "class.md").read_text(encoding="utf-8")
    assert f"ada: {LAST}/{LAST} steps pass" in done.stdout and f"ada: {LAST}/{LAST} steps pass" in markdown
    assert f"ben: 4/{LAST} steps pass" in done.stdout and "first problem: step 5 not implemented" in rows["ben"][-1]
    table = markdown.split("\n## ")[0]  # the sections after it (similarity side by side, the glance) have tables too
    assert table.count("\n| ") == 1 + len(rows)  # the header and one row per learner
    assert (out / "learners" / "ada.json").exists()


def test_no_learner_file_is_changed(class_run):
    _, _, _, _, before, after = class_run
    assert after == before


@pytest.mark.long
def test_the_kill_matrix_runs_once_for_the_whole_class(tmp_path, monkeypatch):
    for name in ("one", "two"):
        make_learner(tmp_path / name, "stubs", checkout=False)
    calls = []
    monkeypatch.setattr(kill_matrix, "results", lambda *a, **k: calls.append(a) or ([], True))
    outcome = classroom.check_class(tmp_path, time_limit=3)
    assert len(calls) == 1 and len(calls[0][0]) == len(classroom.load_mutants())
    assert [s.name for s in outcome.submissions] == ["one", "two"]
    assert all(
        class_table.cell([r for r in s.results if r.step == 4]) == "not implemented" for s in outcome.submissions
    )


def test_a_learner_out_of_budget_gets_the_rest_reported_not_run(tmp_path):
    impl = make_learner(tmp_path / "slow", "endless_loop", checkout=False)
    results = run([Target("slow", (5,), impl=str(impl))], time_limit=1, budget=2.5)
    assert results and all(r.status in ("timeout", "passed") for r in results)
    assert any("time budget of 2.5 s" in r.said("en") for r in results)


def test_a_budget_used_up_before_the_checks_are_collected_reports_each_of_them(tmp_path):
    """No pytest process can collect the checks in a budget of a millisecond: every check of every
    step is still reported, as not run for the budget, not as a step with no checks."""
    impl = make_learner(tmp_path / "ada", "complete", checkout=False)
    results = run([Target("ada", (1, 2), impl=str(impl))], time_limit=1, budget=0.001)
    assert [(r.step, r.check) for r in results] == [(s, c) for s in (1, 2) for c in checks_of(s)]
    assert all(r.status == "timeout" and "time budget of 0.001 s" in r.said("en") for r in results)


@pytest.mark.parametrize("name", sorted(ONE_BUG))
def test_a_bug_counts_once_at_its_own_step(class_run, gradebook, name):
    """The course verdict fails every later step that calls the broken function; the credit
    fails only the step whose function is broken, and its cell names a clause of that step."""
    _, rows, _, out, _, _ = class_run
    step = next(m.step for m in load_mutants() if m.id == ONE_BUG[name])
    book = gradebook[name]
    assert [int(book[f"step{n}_credit"]) for n in range(1, LAST + 1)] == [int(n != step) for n in range(1, LAST + 1)]
    assert (
        book["points"] == str(LAST - 1) and book["max_points"] == str(LAST) and book["furthest_step"] == str(step - 1)
    )
    assert rows[name][LAST + 1] == f"{LAST - 1}/{LAST}"
    markdown = (out / "class.md").read_text(encoding="utf-8")
    line = next(line for line in markdown.splitlines() if line.startswith(f"| {name} |"))
    credit_cell = line.split(" | ")[1 + step].split(" · ")[0]
    assert (
        credit_cell.startswith(("failed at C", "error:"))
        and f"C{step}." in credit_cell
        or credit_cell.startswith("error:")
    )
    if step < LAST:  # the course's verdict still fails the later steps that call the broken function
        assert any(rows[name][n] != "passed" for n in range(step + 1, LAST + 1))


def test_the_gradebook_is_numbers_in_english_with_a_bom_and_a_stable_id(class_run, gradebook):
    _, _, _, out, _, _ = class_run
    assert (out / "grades.csv").read_bytes().startswith(b"\xef\xbb\xbfl")
    assert (
        gradebook["ada"]["points"] == str(LAST)
        and gradebook["ada"]["step4_checks_passed"] == gradebook["ada"]["step4_checks"] != "0"
    )
    assert gradebook["ben"]["points"] == "4" and gradebook["ben"]["step5_credit"] == "0"
    assert (
        gradebook["ada"]["learner_id"] == gradebook["ada"]["learner_id"]
        and gradebook["ada"]["learner_id"] != gradebook["ben"]["learner_id"]
    )
    assert float(gradebook["ada"]["seconds"]) > 0 and gradebook["ada"]["budget_used_up"] == "no"
    assert gradebook["ada"]["step4_prediction"] == "not_run"  # --no-mutants
    assert gradebook["gus"]["problem"].startswith("no steps/ folder") and gradebook["gus"]["points"] == "0"


def test_a_copy_of_the_reference_is_flagged_and_the_stubs_are_too_little_to_tell(class_run, gradebook):
    _, rows, header, _, _, _ = class_run
    ada = gradebook["ada"]  # the reference's files, as they are
    assert (ada["similarity_reference"], ada["similarity_flag"]) == ("1.0", "yes") and int(
        ada["similarity_fingerprints"]
    ) > 100
    assert rows["ada"][header.index("similarity")].startswith("100% in the reference; 100% in ")
    assert (gradebook["eve"]["similarity_fingerprints"], gradebook["eve"]["similarity_flag"]) == (
        "0",
        "no",
    )  # the stubs only
    assert gradebook["gus"]["similarity_flag"] == ""


def test_feedback_files_name_the_learners_files_never_the_graders(class_run):
    _, _, _, out, _, _ = class_run
    text = (out / "feedback" / "bug5.md").read_text(encoding="utf-8")
    assert f"Credit: {LAST - 1} of {LAST} steps" in text and "C5.4" in text and "renew(db" in text
    assert str(out.parent) not in text and str(LAB_ROOT) not in text and "/run/lease-lab" not in text


def test_a_re_grade_runs_only_the_changed_learner_and_says_what_moved(class_run):
    done, _, _, out, _, _ = class_run
    assert done.stdout.index(f"] ada: credit {LAST}/{LAST}") < done.stdout.index(
        f"ada: {LAST}/{LAST} steps pass"
    )  # progress, as each finishes
    root = Path(done.args[4])
    again = run_class(root, out)
    assert (
        again.returncode == ExitStatus.ALL_PASS
        and "No learner's verdicts changed since the previous run." in again.stdout
    )
    header, *rows = read_csv(out / "grades.csv")
    assert {row[1]: row[header.index("cached")] for row in rows if row[1] not in ("gus", "notes.txt")} == dict.fromkeys(
        ["ada", "ben", "bug4", "bug5", "bug8", "cho", "eve"], "yes"
    )
    mutant = next(m for m in load_mutants() if m.id == ONE_BUG["bug4"])
    file = root / "bug4" / "04-claim" / "step.py"
    broken = file.read_text()
    file.write_text(broken.replace(mutant.replace, mutant.find))  # the learner fixes their bug
    try:
        fixed = run_class(root, out)
    finally:
        file.write_text(broken)
    header, *rows = read_csv(out / "grades.csv")
    cached = {row[1]: row[header.index("cached")] for row in rows if row[1] not in ("gus", "notes.txt")}
    assert cached.pop("bug4") == "no" and set(cached.values()) == {"yes"}
    assert f"bug4: changed (credit {LAST - 1} -> {LAST} of {LAST})" in fixed.stdout
    assert len(list((out / "runs").iterdir())) == 3 and (out / "latest" / "grades.csv").is_file()


# A claim_many that takes longer than the whole budget (but not its check's time limit), so that
# the budget runs out by step 8 however busy the machine is; the budget itself is ten times what
# collecting the checks takes on a quiet machine, so that a loaded one collects them within it.
SLOW_BUDGET, SLOW_CLAIM_MANY, SLOW_TIME_LIMIT = 10, 60, 90


def test_a_used_up_budget_reads_as_such_not_as_the_learners_code_hanging(tmp_path):
    steps = make_learner(tmp_path / "class" / "ada", "complete", checkout=False)
    file = steps / load_course()[7].dir / "step.py"
    file.write_text(
        file.read_text() + f"\n\n_claim_many = claim_many\n\n\ndef claim_many(*arguments):\n"
        f"    import time\n    time.sleep({SLOW_CLAIM_MANY})\n    return _claim_many(*arguments)\n"
    )
    done = run_class(
        tmp_path / "class", tmp_path / "out", "--budget", str(SLOW_BUDGET), "--regrade-all", time_limit=SLOW_TIME_LIMIT
    )
    header, row = read_csv(tmp_path / "out" / "grades.csv")
    assert dict(zip(header, row))["budget_used_up"] == "yes", done.stdout + done.stderr
    cells = read_csv(tmp_path / "out" / "class.csv")[1]
    assert "not run: the learner's time budget (BUDGET) was used up" in cells and not any(
        c.startswith("timed out") for c in cells
    )


@pytest.mark.parametrize("lang,checkout", [("en", True), ("ja", True), ("en", False)])
def test_a_dir_that_is_one_learners_folder_or_a_steps_folder_is_refused_in_one_line(tmp_path, lang, checkout):
    make_learner(tmp_path / "ada", "complete", checkout=checkout)
    done = subprocess.run(
        [sys.executable, "-m", "lab", "class", str(tmp_path / "ada"), "--lang", lang, "--out", str(tmp_path / "out")],
        cwd=LAB_ROOT,
        capture_output=True,
        text=True,
        timeout=HANGS_AFTER,
    )
    assert done.returncode == ExitStatus.USAGE and len(done.stderr.strip().splitlines()) == 1
    assert (
        "one learner's folder" if lang == "en" else "1 人の学習者のフォルダ"
    ) in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_run_the_lab_cannot_trust_says_why_on_the_terminal(tmp_path, monkeypatch, capsys, lang):
    """Exit status 3 alone leaves the instructor guessing: the reason is the last line on stderr,
    as at the top of class.md. A lab file changing during the run is stood in for by the second
    fingerprint (the fingerprint itself is proven by tests/test_grader_attacks.py)."""
    from lab import commands
    from lab.sandbox import integrity
    from lab.text.messages import say

    class_dir = tmp_path / "class"
    class_dir.mkdir()
    (class_dir / "notes.txt").write_text("no learner code here\n", encoding="utf-8")
    taken, real = [], integrity.fingerprint

    def fingerprint():
        files, caches = real()
        taken.append(files)
        return ({**files, str(LAB_ROOT / "checks" / "planted.py"): "x"} if len(taken) > 1 else files), caches

    monkeypatch.setattr(integrity, "fingerprint", fingerprint)
    status = commands.main(["class", str(class_dir), "--out", str(tmp_path / "out"), "--no-mutants", "--lang", lang])
    said = capsys.readouterr()
    changed = say("class.lab_changed", lang, count=1, paths=str(Path("checks", "planted.py")))
    assert status == ExitStatus.LAB_BROKEN
    assert said.err.strip().splitlines()[-1] == say("lab_broken", lang, error=changed)
    assert say("lab_broken", lang, error=changed) in (tmp_path / "out" / "class.md").read_text(encoding="utf-8")
