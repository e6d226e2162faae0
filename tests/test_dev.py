"""`python -m lab dev check`, `dev new-step` and `dev update`: the course kept whole from course.toml alone.

new-step runs in a temporary copy of the lab (its own `lab` package on PYTHONPATH), never in this tree.
A ninth step (tests/fixtures/ninth_step/) is added there as its author would: new-step, its own
files, its manifest entry filled in, dev update; then the whole lab takes it.
"""

import shutil
import subprocess
import sys

import pytest
from hang import HANGS_AFTER

from lab.dev import durations, examples, tree
from lab.model import checks
from lab.model.course import LAB_ROOT, load_course
from lab.model.prediction_template import prediction_template
from lab.model.pristine import prediction_text, write_stubs
from lab.model.results import Result
from lab.model.status import ExitStatus
from lab.text.messages import say

COURSE = load_course()


def lab(root, *arguments, timeout=HANGS_AFTER):
    """timeout: a bound for a command that hangs, never a measure of speed."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root), "LAB_LANG": "en"}
    return subprocess.run(
        [sys.executable, "-m", "lab", *arguments], cwd=root, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture
def copy(tmp_path):
    """A copy of the lab's course: its code, manifest, steps, solutions, checks, mutants and
    independent implementations."""
    root = tmp_path / "lab"
    for part in ("lab", "checks", "mutants", "solutions", "tests/fixtures/independent"):
        shutil.copytree(LAB_ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__", ".lab"))
    shutil.copy(LAB_ROOT / "course.toml", root)
    write_stubs(root / "steps")  # the stubs and templates as shipped, whatever the learner wrote in this checkout
    for step in COURSE:
        (root / "steps" / step.dir / "prediction.py").write_text(prediction_text(step), encoding="utf-8")
    return root


@pytest.mark.parametrize("step", COURSE, ids=lambda s: s.dir)
def test_every_shipped_prediction_template_is_the_one_course_toml_makes(step):
    assert prediction_template(step) == prediction_text(step)


def test_the_tree_is_what_the_manifest_says():
    assert tree.problems() == []
    assert lab(LAB_ROOT, "dev", "check", "--no-run").returncode == ExitStatus.ALL_PASS


def test_dev_check_names_a_clause_without_a_check_or_a_mutant_and_a_folder_the_manifest_lacks(copy):
    contract = copy / "steps" / COURSE[1].dir / "CONTRACT.md"
    contract.write_text(contract.read_text(encoding="utf-8") + "- **C2.9** A clause nobody checks.\n", encoding="utf-8")
    (copy / "solutions" / "42-stray").mkdir()
    done = lab(copy, "dev", "check", "--no-run")
    assert done.returncode == ExitStatus.LAB_BROKEN
    assert done.stdout.splitlines() == [
        "solutions/42-stray: a step folder course.toml does not list",
        "C2.9: no check names it (@pytest.mark.clause)",
        "C2.9: no mutant breaks it, and course.toml's unmutated does not say why",
        'C2.9: no hint in course.toml\'s hints."C2.9" for en, ja',
    ]


def test_dev_check_names_a_clause_without_a_hint_in_a_language_and_a_hint_of_no_clause(copy):
    manifest = copy / "course.toml"
    text = manifest.read_text(encoding="utf-8")
    start = text.index('hints."C1.2".ja = [')
    text = text[:start] + text[text.index("]\n", start) + 2 :]  # C1.2 asked in English only
    stray = 'hints."C1.9".en = ["Which clause is this?"]\nhints."C1.9".ja = ["これはどの条項ですか。"]\n'
    manifest.write_text(text.replace('hints."C1.3".en', stray + 'hints."C1.3".en', 1), encoding="utf-8")
    done = lab(copy, "dev", "check", "--no-run")
    assert done.returncode == ExitStatus.LAB_BROKEN
    assert done.stdout.splitlines() == [
        'C1.2: no hint in course.toml\'s hints."C1.2" for ja',
        'hints."C1.9": course.toml asks about a clause that steps/01-init-db/CONTRACT.md does not have',
    ]


def test_dev_check_holds_the_readmes_step_tables_and_the_guides_progress_lines_where_they_live(
    copy, guide_examples_kept
):
    shutil.copy(LAB_ROOT / "README.md", copy)
    shutil.copytree(LAB_ROOT / "docs", copy / "docs")
    readme, guide = copy / "README.md", copy / "docs" / "learner.ja.md"
    row = "| `init_db(path)` | the `jobs` table, idempotently |"
    readme.write_text(
        readme.read_text(encoding="utf-8").replace(row, "| `init_db(path)` | a table |"), encoding="utf-8"
    )
    shown = say("learner.progress_heading", "ja", count=len(COURSE), steps=f"3/{len(COURSE)}")
    stale = say("learner.progress_heading", "ja", count=len(COURSE) - 1, steps=f"3/{len(COURSE) - 1}")
    guide.write_text(guide.read_text(encoding="utf-8").replace(shown, stale), encoding="utf-8")
    done = lab(copy, "dev", "check", "--no-run")
    assert done.returncode == ExitStatus.LAB_BROKEN
    assert done.stdout.splitlines() == [
        f"{name}: its step tables or progress lines are not the ones course.toml makes (python -m lab dev update writes them)"
        for name in ("README.md", "docs/learner.ja.md")
    ]
    _share_examples(copy)
    # the guides' examples, made from runs (tests/test_doc_examples.py), are already the copy's own
    assert lab(copy, "dev", "update", timeout=900).stdout.split() == [str(readme), str(guide)]
    assert row in readme.read_text(encoding="utf-8") and shown in guide.read_text(encoding="utf-8")
    assert lab(copy, "dev", "check", "--no-run").returncode == ExitStatus.ALL_PASS


def test_dev_update_without_the_stubs_says_so_in_one_line_after_naming_what_it_wrote(copy):
    """A copy with no git history whose steps/ holds finished work has no stub to run the guides'
    examples with: one line and status 3, never a traceback, and the files already written named."""
    shutil.copy(LAB_ROOT / "README.md", copy)
    shutil.copytree(LAB_ROOT / "docs", copy / "docs")
    for step in COURSE:
        shutil.copy(LAB_ROOT / "solutions" / step.dir / "step.py", copy / "steps" / step.dir / "step.py")
    readme = copy / "README.md"
    row = "| `init_db(path)` | the `jobs` table, idempotently |"
    readme.write_text(
        readme.read_text(encoding="utf-8").replace(row, "| `init_db(path)` | a table |"), encoding="utf-8"
    )
    done = lab(copy, "dev", "update", timeout=900)
    assert done.returncode == ExitStatus.LAB_BROKEN, done.stderr
    assert done.stdout.split() == [str(readme)] and row in readme.read_text(encoding="utf-8")
    assert done.stderr.splitlines() == [
        say("lab_broken", "en", error="no stub of step 1 in git history or in steps/01-init-db/step.py")
    ]


def test_new_step_scaffolds_the_next_step_and_dev_check_lists_only_the_authors_part(copy):
    done = lab(copy, "dev", "new-step", "release-all", "--parameters", "path,owner")
    assert done.returncode == ExitStatus.ALL_PASS, done.stderr
    last = len(COURSE) + 1
    folder = f"{last:02d}-release-all"
    assert f'dir = "{folder}"\nfunction = "release_all"\nparameters = ["path", "owner"]' in (
        copy / "course.toml"
    ).read_text(encoding="utf-8")
    stub = (copy / "steps" / folder / "step.py").read_text(encoding="utf-8")
    assert stub.startswith("def release_all(path, owner):") and f"TODO(step {last})" in stub
    assert f"the {'nine' if last == 9 else last} functions" in (
        copy / "steps" / COURSE[0].dir / "prediction.py"
    ).read_text(encoding="utf-8")
    checked = lab(copy, "dev", "check", "--no-run")
    assert checked.returncode == ExitStatus.LAB_BROKEN
    rules = f"checks/rules_{last:02d}_release_all.py"  # written with a TODO in each part
    assert "def rule(model, owner):" in (copy / rules).read_text(encoding="utf-8")
    assert checked.stdout.splitlines() == [
        f"step {last}: no checks/test_{last:02d}_*.py",
        f"step {last}: {rules}: write its partitions (PARTITIONS)",
        f"step {last}: {rules}: write its model rule (rule)",
        f"step {last}: {rules}: write its call strategies (CALL, arguments, COVERING)",
        f"step {last}: no mutants/m{last}-*.toml",
        f"step {last}: no correct implementation in tests/fixtures/independent/correct/ defines release_all "
        "(have one written from the contracts alone, by someone who has not read checks/ or solutions/)",
        f"step {last}: no wrong implementation in tests/fixtures/independent/wrong/ says `breaks: C{last}.<n>` "
        "on its first lines (have one written from the contracts alone)",
        f"C{last}.1: no check names it (@pytest.mark.clause)",
        f"C{last}.1: no mutant breaks it, and course.toml's unmutated does not say why",
        f'C{last}.1: no hint in course.toml\'s hints."C{last}.1" for en, ja',  # its slots wait for questions
    ]
    again = lab(copy, "dev", "new-step", "release-all")
    assert again.returncode == ExitStatus.USAGE and again.stderr.count("\n") == 1


NINTH_STEP = LAB_ROOT / "tests" / "fixtures" / "ninth_step"
# What a copy of the lab needs to run its commands and its docs' and manifest's tests.
LAB_FILES = ("course.toml", "README.md", "pyproject.toml", "Makefile")
LAB_FOLDERS = ("lab", "checks", "mutants", "solutions", "tests", "docs", ".github")
# The tests that enumerate the steps, run in the copy as its own test suite would run them: those
# of the manifest and its generated files, and those that want each step's own rules (its
# partitions reached by its checks, its model rule and calls kept by the reference).
STEP_TESTS = (
    "tests/test_course.py",
    "tests/test_partitions.py",
    "tests/test_step_rules.py",
    "tests/test_dev.py::test_every_shipped_prediction_template_is_the_one_course_toml_makes",
    "tests/test_dev.py::test_the_tree_is_what_the_manifest_says",
    "tests/test_glossary.py",
    "tests/test_readme_languages.py",
    "tests/test_classroom_workflow.py::test_one_autograding_test_per_step_with_its_points_and_its_credit_command",
    "tests/test_classroom_workflow.py::test_the_committed_workflow_is_the_generated_one",
    "tests/test_kill_matrix.py::test_the_durations_table_weighs_every_check_and_names_no_other",
    "tests/test_independent_implementations.py::test_every_step_has_a_correct_and_a_wrong_independent_implementation",
)


def _share_examples(root):
    """The runs of the guides' examples this lab already made, for a copy whose files are the same
    (their cache key is a digest of the files): its dev update need not run them again."""
    kept = LAB_ROOT / "build" / "cache" / examples.NAMESPACE
    if kept.is_dir():
        shutil.copytree(kept, root / "build" / "cache" / examples.NAMESPACE, dirs_exist_ok=True)


def _shipped_copy(root):
    """The lab as shipped at root: its parts, and the stubs and templates git holds, never a learner's work."""
    for part in LAB_FOLDERS:
        shutil.copytree(LAB_ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__", ".lab"))
    for name in LAB_FILES:
        shutil.copy(LAB_ROOT / name, root)
    write_stubs(root / "steps")
    for step in COURSE:
        (root / "steps" / step.dir / "prediction.py").write_text(prediction_text(step), encoding="utf-8")
    return root


def _authors_part(root):
    """The ninth step's own files, as its author writes them, and its manifest entry filled in."""
    written = []
    for source in sorted(NINTH_STEP.glob("*__*")):
        target = root.joinpath(*source.name.split("__"))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
        written.append(target.relative_to(root).as_posix())
    manifest = root / "course.toml"
    text = manifest.read_text(encoding="utf-8")
    entry = (NINTH_STEP / "course_entry.toml").read_text(encoding="utf-8")
    manifest.write_text(text[: text.rindex("\n[[steps]]\n")] + entry, encoding="utf-8")
    return written


def _changed(root, shipped):
    """The lab's files at root (not what its commands wrote: build/, .lab/) that differ from those
    of the shipped copy, or that it lacks."""
    sources = [*(root / name for name in LAB_FILES), *(root / part for part in (*LAB_FOLDERS, "steps"))]
    return {
        path.relative_to(root).as_posix()
        for source in sources
        for path in ([source] if source.is_file() else source.rglob("*"))
        if path.is_file()
        and "__pycache__" not in path.parts
        and not (
            (shipped / path.relative_to(root)).is_file()
            and (shipped / path.relative_to(root)).read_bytes() == path.read_bytes()
        )
    }


@pytest.mark.e2e
@pytest.mark.long
def test_a_ninth_step_is_new_step_plus_its_own_files_and_the_lab_takes_it_whole(tmp_path):
    shipped, root = _shipped_copy(tmp_path / "shipped"), _shipped_copy(tmp_path / "lab")
    scaffolded = lab(root, "dev", "new-step", "claimable", "--parameters", "path,now")
    assert scaffolded.returncode == ExitStatus.ALL_PASS, scaffolded.stderr
    made_by_new_step = ("checks/rules_09_claimable.py", ".github/workflows/classroom.yml")  # a test per step
    assert {str(root / name) for name in made_by_new_step} <= set(scaffolded.stdout.split()), scaffolded.stdout
    own = _authors_part(root)
    updated = lab(root, "dev", "update", timeout=900)  # the step tables say what the filled-in entry says
    guides = [str(root / "docs" / name) for name in ("learner.ja.md", "learner.md")]  # and the examples: 9 steps
    assert updated.stdout.split() == [str(root / "README.md"), *guides], updated.stdout + updated.stderr
    weighed = lab(root, "dev", "durations", timeout=600)  # the new checks weighed, as the table wants
    assert weighed.returncode == ExitStatus.ALL_PASS, weighed.stdout + weighed.stderr

    checked = lab(root, "dev", "check", timeout=1200)  # every stub, the reference and every mutant run
    assert checked.returncode == ExitStatus.ALL_PASS, checked.stdout + checked.stderr
    run = lab(root, "check", "9", "--impl", "solutions", timeout=600)
    assert run.returncode == ExitStatus.ALL_PASS, run.stdout + run.stderr
    assert "Step 9 · claimable: List the jobs a claim could take: all 3 checks pass" in run.stdout
    assert run.stdout.count("caught by: test_claimable_") == 3, run.stdout  # each of its mutants
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root), "LAB_LANG": "en"}
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", *STEP_TESTS],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]

    # Nothing else was edited: what differs from the lab as shipped is what new-step and dev update
    # wrote (the manifest, every prediction template, README's step tables, the progress lines of
    # the learner guides, Classroom's workflow, and the new step's folders and rules file), what dev
    # durations measured, and the author's own files: no shared module of checks/ (partitions.py,
    # model.py, sequences.py) names the new step.
    prediction_templates = {f"steps/{step.dir}/prediction.py" for step in load_course(root)}
    made = {
        "course.toml",
        "README.md",
        "docs/learner.md",
        "docs/learner.ja.md",
        ".github/workflows/classroom.yml",
        "checks/durations.toml",
        *prediction_templates,
    }
    assert _changed(root, shipped) == {*made, *own}


def _timed(status="passed"):
    """Results of a run of the reference, as `dev durations` reads them."""
    return [
        Result("n1", "test_a", "solutions", 1, [], "passed", "", 0.0004),
        Result("n2", "test_b", "solutions", 1, [], status, "", 0.30149),
        Result("n3", "test_c", "solutions", 8, [], "passed", "", 1.5),
    ]


def test_dev_durations_writes_the_table_the_parts_are_weighed_by(tmp_path, monkeypatch):
    table = tmp_path / "durations.toml"
    monkeypatch.setattr(durations, "run", lambda *_: _timed())
    monkeypatch.setattr(durations, "DURATIONS", table)
    monkeypatch.setattr(checks, "DURATIONS", table)
    checks.durations.cache_clear()
    try:
        assert durations.write(10.0) == table
        # each to the millisecond, at least one: no check weighs nothing
        assert checks.durations() == {(1, "test_a"): 0.001, (1, "test_b"): 0.301, (8, "test_c"): 1.5}
    finally:
        checks.durations.cache_clear()


def test_dev_durations_leaves_the_table_as_it_was_when_the_reference_fails(tmp_path, monkeypatch):
    table = tmp_path / "durations.toml"
    table.write_text("# as it was\n", encoding="utf-8")
    monkeypatch.setattr(durations, "run", lambda *_: _timed(status="failed"))
    monkeypatch.setattr(durations, "DURATIONS", table)
    with pytest.raises(durations.ReferenceFails, match="test_b"):
        durations.write(10.0)
    assert table.read_text(encoding="utf-8") == "# as it was\n"
