"""`make test` passes whatever the learner's steps/ holds: untouched (the rest of this suite),
half done, or done and committed. The self-tests that need the stubs take them from git.

Each case copies this checkout, history included, fills its steps/ with the reference, and runs
there every self-test that reads a stub.
"""

import shutil
import subprocess
import sys

import pytest

from lab.model.course import LAB_ROOT, load_course

STUB_TESTS = ["tests/test_course.py", "tests/test_cli.py", "tests/test_exit_statuses.py", "tests/test_kill_matrix.py"]


def _git(folder, *arguments):
    subprocess.run(
        ["git", "-c", "user.name=learner", "-c", "user.email=learner@example.org", *arguments],
        cwd=folder,
        check=True,
        capture_output=True,
    )


@pytest.mark.parametrize(
    ("done", "committed"), [(4, False), (len(load_course()), True)], ids=["half-done", "done-and-committed"]
)
def test_the_self_test_of_the_stubs_passes_whatever_steps_holds(tmp_path, done, committed):
    copy = tmp_path / "lab"
    # A clone, then the working tree on top: a copy of .git would be, in a git worktree, a file
    # that points at the shared repository, and the commit below would land on its branch.
    _git(tmp_path, "clone", "--quiet", str(LAB_ROOT), str(copy))
    shutil.copytree(
        LAB_ROOT,
        copy,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns(".git", ".venv", "build", "reports", ".mutmut-stage", "__pycache__"),
    )
    for step in load_course()[:done]:
        shutil.copy(LAB_ROOT / "solutions" / step.dir / "step.py", copy / "steps" / step.dir / "step.py")
    if committed:
        _git(copy, "commit", "--quiet", "--all", "--message", "my solutions")
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-k",
            "stub or some_learner_check_fails",
            *STUB_TESTS,
        ],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ran.returncode == 0 and " passed" in ran.stdout, ran.stdout[-3000:] + ran.stderr[-2000:]
