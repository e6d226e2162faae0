"""Exit statuses (lab/model/status.py ExitStatus): 0 all learner checks pass, 1 some fail, 2 usage error,
3 the lab itself is broken."""

import re
import shutil
import subprocess
import sys
from dataclasses import replace

import pytest
import readme_parts
from hang import HANGS_AFTER

import lab.commands as lab_main
import lab.grading.check as checking
from lab import cache
from lab.commands import main
from lab.model.checks import checks_of
from lab.model.course import FORMAT_VERSION, LAB_ROOT, CourseFormatError, load_course
from lab.model.mutants import load_mutants
from lab.model.results import Result
from lab.model.status import ExitStatus
from lab.running.runner import LabBroken


def run_lab(*arguments):
    return subprocess.run(
        [sys.executable, "-m", "lab", *arguments], cwd=LAB_ROOT, capture_output=True, text=True, timeout=HANGS_AFTER
    )


def test_0_when_every_learner_check_passes():
    assert run_lab("check", "2", "--impl", "solutions", "--no-mutants").returncode == ExitStatus.ALL_PASS


def test_1_when_some_learner_check_fails(stubs):
    assert run_lab("check", "2", "--impl", str(stubs), "--no-mutants").returncode == ExitStatus.SOME_FAIL


@pytest.mark.parametrize(
    "arguments",
    [
        ["check", str(len(load_course()) + 1)],  # one past the last step
        ["check", "0"],
        ["check", "four"],
        ["check", "2", "--impl", "no/such/folder"],
        ["class", "no/such/folder"],
        ["class", ""],
    ],
)
def test_2_for_a_usage_error_with_a_one_line_message(arguments, capsys):
    assert main(arguments) == ExitStatus.USAGE
    error = capsys.readouterr().err
    assert error.strip() and "Traceback" not in error and len(error.strip().splitlines()) == 1


def test_3_when_a_mutant_does_not_apply_to_the_reference(monkeypatch, capsys):
    broken = replace(load_mutants()[0], find="text that is nowhere in the reference")
    monkeypatch.setattr(checking, "load_mutants", lambda: [broken])
    assert main(["check", "1", "--impl", "solutions"]) == ExitStatus.LAB_BROKEN
    assert "The lab itself is broken" in capsys.readouterr().err


def test_3_when_a_pre_built_mutant_survives(monkeypatch):
    mutant = next(m for m in load_mutants() if m.step == 1)
    survived = [Result("n", "test_x", mutant.id, 1, ["C1.1"], "passed", "", 0.0)]
    monkeypatch.setattr(checking, "load_mutants", lambda: [mutant])
    monkeypatch.setattr(checking.kill_matrix, "results", lambda *a, **k: (survived, False))
    assert main(["check", "1", "--impl", "solutions"]) == ExitStatus.LAB_BROKEN


def test_3_when_the_reference_fails_its_own_checks(tmp_path, monkeypatch):
    failing = [Result("n", name, "solutions", 1, ["C1.1"], "failed", "called ...", 0.0) for name in checks_of(1)]
    monkeypatch.setattr(cache, "ROOT", tmp_path)  # the stand-in's results are kept there
    monkeypatch.setattr(checking.kill_matrix, "run", lambda *a, **k: failing)
    assert main(["check", "1", "--impl", "solutions", "--no-mutants"]) == ExitStatus.LAB_BROKEN


def test_3_when_the_checks_cannot_start(monkeypatch):
    def cannot_start(*a, **k):
        raise LabBroken("the checks could not start (pytest exit 4)")

    monkeypatch.setattr(checking.kill_matrix, "run", cannot_start)
    assert main(["check", "1", "--impl", "solutions", "--no-mutants", "--fresh"]) == ExitStatus.LAB_BROKEN


def test_3_in_one_line_when_course_toml_has_a_format_this_lab_does_not_read(tmp_path, monkeypatch, capsys):
    unknown = FORMAT_VERSION + 1
    (tmp_path / "course.toml").write_text(f"format_version = {unknown}\n", encoding="utf-8")
    with pytest.raises(CourseFormatError, match=f"format_version = {unknown}"):
        load_course(tmp_path)
    monkeypatch.setattr(lab_main, "load_course", lambda: load_course(tmp_path))
    assert lab_main.main(["check", "1"]) == ExitStatus.LAB_BROKEN
    error = capsys.readouterr().err
    assert error.startswith("The lab itself is broken: ") and len(error.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("manifest", "said"),
    [(f"format_version = {FORMAT_VERSION + 1}\n", "format_version"), ("format_version = 2\n[[steps]\n", "not TOML")],
)
def test_3_in_one_line_from_the_command_line_when_course_toml_cannot_be_read(tmp_path, manifest, said):
    """The command tree reads course.toml for the course's own verbs when it is imported: a
    manifest it cannot read is still one line and status 3, never a traceback."""
    root = tmp_path / "lab"
    for part in ("lab", "field"):
        shutil.copytree(LAB_ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "course.toml").write_text(manifest, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "lab", "check", "1", "--lang", "en"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=HANGS_AFTER,
    )
    assert done.returncode == ExitStatus.LAB_BROKEN, done.stderr
    assert done.stderr.startswith("The lab itself is broken: ") and said in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


@pytest.mark.parametrize("heading", ["### Exit statuses", "### 終了コード"])
def test_readme_tables_name_every_status_and_every_target(heading):
    """The two tables of docs/reference.md (wherever the section lives), in each language: every
    ExitStatus, and every target of the Makefile."""
    section = readme_parts.section(heading)[1]
    statuses = {
        int(line.split("|")[1])
        for line in section.splitlines()
        if line.startswith("| ") and line.split("|")[1].strip().isdigit()
    }
    assert statuses == {status.value for status in ExitStatus}
    header = next(
        line for line in section.splitlines() if line.startswith("| target") or line.startswith("| ターゲット")
    )
    assert header.split("|")[2:-1] == [f" {status.value} " for status in ExitStatus]
    makefile = (LAB_ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([a-z-]+):.*## ", makefile, re.MULTILINE))
    named = set(
        re.findall(
            r"`([a-z-]+)`", "\n".join(line.split("|")[1] for line in section.splitlines() if line.startswith("| `"))
        )
    )
    assert targets == named, targets ^ named
