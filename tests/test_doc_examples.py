"""The example outputs of the learner's guides are the lab's own (lab/dev/examples.py): `dev update`
writes them from real runs, `dev check` names a guide whose example is stale, and says the command
that mends it."""

import re
import shutil

import pytest

from lab import commands
from lab.dev import examples, runs
from lab.model.course import LAB_ROOT, load_course
from lab.model.pristine import prediction_text, write_stubs
from lab.model.status import ExitStatus
from lab.running.runner import LabBroken

# Their runs, made once for the whole test run (tests/conftest.py), by whichever worker asks first.
pytestmark = pytest.mark.usefixtures("guide_examples_kept")
STALE = "docs/learner.md: its examples are not the lab's own output (python -m lab dev update writes them)"


@pytest.mark.e2e
def test_the_guides_examples_are_the_labs_own_output():
    assert examples.problems(LAB_ROOT) == []


@pytest.mark.e2e
def test_a_stale_example_is_named_by_dev_check_and_dev_update_mends_it(tmp_path, monkeypatch, capsys):
    for part in ("checks", "mutants", "solutions", "docs"):
        shutil.copytree(LAB_ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("course.toml", "README.md"):
        shutil.copy(LAB_ROOT / name, tmp_path)
    write_stubs(tmp_path / "steps")
    for step in load_course():
        (tmp_path / "steps" / step.dir / "prediction.py").write_text(prediction_text(step), encoding="utf-8")
    guide = tmp_path / "docs" / "learner.md"
    current = guide.read_text(encoding="utf-8")
    count = int(re.search(r"all (\d+) checks pass", current)[1])
    guide.write_text(current.replace(f"all {count} checks pass", f"all {count - 1} checks pass"), encoding="utf-8")
    monkeypatch.setattr(runs, "problems", lambda *arguments: [])  # the course's own run: dev check's other half

    assert commands.main(["dev", "check"], root=tmp_path) == ExitStatus.LAB_BROKEN
    assert capsys.readouterr().out.splitlines() == [STALE]
    assert commands.main(["dev", "update"], root=tmp_path) == ExitStatus.ALL_PASS
    assert capsys.readouterr().out.split() == [str(guide)]
    assert guide.read_text(encoding="utf-8") == current
    assert commands.main(["dev", "check"], root=tmp_path) == ExitStatus.ALL_PASS


@pytest.mark.parametrize(
    "line, clipped",
    [
        ("short", "short"),
        ("a b c d e f g h", "a b c d …"),
        ("x `make check-step 4` y", "x …"),  # never inside a code span
        ("あいう えおか きく", "あいう …"),  # a wide character counts two columns
    ],
)
def test_a_long_line_is_cut_at_a_space_outside_code(line, clipped):
    assert examples.clipped(line, width=10) == clipped


def test_a_run_that_did_not_run_its_command_stops_the_examples_and_is_never_kept(tmp_path):
    """A learner's command that ended otherwise than passing or failing (here: an option it does
    not have) is no example: `dev update` and `dev check` say the lab is broken, naming the run,
    and the examples' cache keeps nothing a later run would show."""
    with pytest.raises(LabBroken, match=r"`progress --no-such-option` ended with status 2"):
        examples._run(tmp_path, "en", "progress", "--no-such-option")
