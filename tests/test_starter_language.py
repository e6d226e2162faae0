"""The starter files, each step's step.py and prediction.py, lead with the learner's language
(lab/model/starter.py): `make language ja` puts the Japanese first in every one still as shipped,
`make language en` puts it back byte for byte, and a file the learner changed, however little, is
never touched."""

import ast
import io
import shutil
from contextlib import redirect_stderr, redirect_stdout

import pytest

from lab import commands
from lab.dev import tree
from lab.dev.generated import update
from lab.learner.reset import reset
from lab.model import starter
from lab.model.course import LAB_ROOT, load_course
from lab.model.implementation import STEP_FILE
from lab.model.prediction_file import PREDICTION_FILE, holds_a_prediction
from lab.model.prediction_template import prediction_template
from lab.model.pristine import is_stub, stub_text, write_stubs
from lab.store import Store
from lab.text.messages import say

COURSE = load_course()
JAPANESE = starter.JAPANESE


def shipped_texts(step):
    return {STEP_FILE: stub_text(step), PREDICTION_FILE: prediction_template(step)}


@pytest.mark.parametrize("step", COURSE, ids=lambda step: step.dir)
@pytest.mark.parametrize("name", [STEP_FILE, PREDICTION_FILE])
def test_each_starter_file_led_by_japanese_is_the_same_file_the_other_way_round(step, name):
    english = shipped_texts(step)[name]
    japanese = starter.swapped(english)
    assert starter.leads_with(english) == "en" and starter.leads_with(japanese) == "ja"
    assert starter.swapped(japanese) == english  # nothing lost, nothing added
    assert sorted(english) == sorted(japanese)  # the same characters, only reordered
    ast.parse(japanese)
    assert is_stub(japanese, step.number) if name == STEP_FILE else not holds_a_prediction(japanese)
    docstring = ast.get_docstring(ast.parse(japanese) if name == PREDICTION_FILE else ast.parse(japanese).body[-1])
    first, last = docstring.split("\n\n")[0], docstring.split("\n\n")[-1]
    assert JAPANESE.search(first) and not JAPANESE.search(last)
    todo = [line for line in japanese.splitlines() if line.lstrip().startswith("#")][0]
    assert JAPANESE.search(todo.split(" / ")[0]), todo  # the first comment line leads with Japanese too


def language(root, choice):
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(out):
        commands.main(["language", choice], root=root)
    return out.getvalue()


@pytest.fixture
def checkout(tmp_path):
    steps = write_stubs(tmp_path / "steps")
    for step in COURSE:
        (steps / step.dir / PREDICTION_FILE).write_text(prediction_template(step), encoding="utf-8")
    return tmp_path


def test_choosing_japanese_leads_every_untouched_starter_file_with_japanese_and_english_puts_it_back(checkout):
    steps = checkout / "steps"
    before = {path: path.read_bytes() for path in sorted(steps.rglob("*.py"))}
    said = language(checkout, "ja")
    assert say("learner.starters_led", "ja", count=2 * len(COURSE)) in said
    assert all(starter.leads_with(path.read_text(encoding="utf-8")) == "ja" for path in before)
    said = language(checkout, "en")
    assert say("learner.starters_led", "en", count=2 * len(COURSE)) in said
    assert {path: path.read_bytes() for path in before} == before
    assert "starter files" not in language(checkout, "en")  # nothing left to write: no line about it


@pytest.mark.parametrize(
    "edit",
    [
        lambda text: text.replace("raise NotImplementedError", "return None  # raise NotImplementedError", 1),
        lambda text: text + "\n",  # one line break more
        lambda text: text.replace("    ", "\t", 1),
        lambda text: "# my notes\n" + text,
    ],
    ids=["code", "a line break", "a tab", "a comment"],
)
def test_a_starter_file_the_learner_changed_is_never_touched(checkout, edit):
    claim = COURSE[3]
    changed = {
        checkout / "steps" / claim.dir / name: edit(text).encode("utf-8") for name, text in shipped_texts(claim).items()
    }
    for path, data in changed.items():
        path.write_bytes(data)
    for choice in ("ja", "en", "ja"):
        language(checkout, choice)
        assert {path: path.read_bytes() for path in changed} == changed
    others = checkout / "steps" / COURSE[2].dir / STEP_FILE
    assert starter.leads_with(others.read_text(encoding="utf-8")) == "ja"  # the untouched ones followed


def test_reset_puts_the_stub_back_led_by_the_commands_language(checkout):
    step, store = COURSE[3], Store(checkout)
    path = checkout / "steps" / step.dir / STEP_FILE
    path.write_text("def claim(path, job_id, owner, now, ttl):\n    return 1\n", encoding="utf-8")
    reset(step, store, "ja")
    assert path.read_text(encoding="utf-8") == starter.swapped(stub_text(step))
    _, lines = reset(step, store, "en")  # the stub in either order is the stub: nothing to reset
    assert lines == [say("learner.already_stub", "en", n=step.number)]


def test_the_authors_commands_take_a_template_led_by_japanese_as_the_template(checkout):
    shutil.copy(LAB_ROOT / "course.toml", checkout)
    language(checkout, "ja")
    steps = checkout / "steps"
    assert tree.templates(COURSE, checkout) == []
    led = {path: path.read_bytes() for path in steps.glob(f"*/{PREDICTION_FILE}")}
    update(checkout)  # writes README's tables where there is a README; leaves the templates as they are
    assert {path: path.read_bytes() for path in led} == led
