"""The checker's one message catalogue (lab/text/*.toml, read by lab/text/messages.py): both languages
hold the same keys with the same placeholders, every Japanese text is a translation, every key is
said somewhere, and no other module of the checker keeps sentences of its own."""

import re
import string

import pytest

from lab.model.course import LAB_ROOT
from lab.text.language import LANGUAGES
from lab.text.messages import CATALOGUE, say


def _placeholders(text):
    return sorted({name for _, name, _, _ in string.Formatter().parse(text) if name})


def test_there_is_one_file_per_language_of_the_course():
    assert set(CATALOGUE) == set(LANGUAGES)


def test_both_languages_have_exactly_the_same_keys():
    assert CATALOGUE["en"].keys() == CATALOGUE["ja"].keys()


def _own_words(text):
    """The text without its {placeholders} and the names it shows as name=value (owner=, now=)."""
    return re.sub(r"\{[^{}]*\}|\b[a-z_]+=", " ", text)


@pytest.mark.parametrize("key", sorted(CATALOGUE["en"]))
def test_each_key_has_the_same_placeholders_and_a_japanese_text_of_its_own(key):
    english, japanese = CATALOGUE["en"][key], CATALOGUE["ja"][key]
    assert _placeholders(english) == _placeholders(japanese)
    assert japanese != english or not re.search(r"[a-z]{3}", _own_words(english))


def _sources():
    folders = [LAB_ROOT / "lab", LAB_ROOT / "field", LAB_ROOT / "checks"]
    return "\n".join(path.read_text(encoding="utf-8") for folder in folders for path in folder.rglob("*.py"))


@pytest.fixture(scope="module")
def sources():
    return _sources()


# Keys said through a value rather than spelled out: a file's refusal (lab/model/implementation.py),
# a lost channel (lab/sandbox/remote.py: "channel_" + reason), a class cell (the check's status),
# a benchmark setting's name and note (field/bench.py: "b_" + setting, "b_note_" + setting),
# what the lease tool answers (field/lease_call.py: cli_<verb>_<ok or refused>), a verb's help
# (lab/commands/__init__.py: "verbs." + its name), a mutant's status, origin and killing check's
# status in the mutation report (lab/mutation/text.py, html.py), the racers of a check
# (checks/support.py: "checks.racing_" + threads or processes) and a step's first failing check in
# progress (lab/learner/progress.py: "status_" + its status), an option's help (lab/commands/parser.py:
# "options." + the command path + the option; tests/test_docs.py finds each one used), what one of
# the lab's own folders is for (lab/commands/__init__.py: "part_" + the folder).
SAID_THROUGH_A_VALUE = re.compile(
    r"^(refused_\w+|channel_\w+|part_(checks|solutions|mutants)|class\.(passed|not_implemented|failed|timeout|crashed|error)"
    r"|mutation\.(status_(killed|timeout|survived|equivalent|no_tests|not_checked)|origin_(mutmut|pre-built)"
    r"|check_(failed|error|timeout|crashed))|checks\.racing_(threads|processes)|learner\.status_\w+"
    r"|verbs\.[\w-]+|options\.[\w.-]+|field\.b_(note_)?(contract|wal|kept)|field\.cli_(enqueue|claim|claim_many|renew|complete|release)_(ok|refused))$"
)
# A violation's title (field/stress.py: key + "_title") is said wherever its violation is.
TITLE = re.compile(r"^(field\.[vf]_\w+)_title$")


def _said(key, sources):
    table, _, name = key.rpartition(".")
    quoted = re.compile(rf"[\"']{re.escape(key)}[\"']")
    in_table = table and f'words_of("{table}"' in sources and re.search(rf"[\"']{re.escape(name)}[\"']", sources)
    title = TITLE.match(key)
    return bool(
        quoted.search(sources) or in_table or SAID_THROUGH_A_VALUE.match(key) or (title and _said(title[1], sources))
    )


@pytest.mark.parametrize("key", sorted(CATALOGUE["en"]))
def test_every_key_is_said_somewhere(key, sources):
    assert _said(key, sources), key


def test_a_text_is_filled_in_and_an_unknown_language_falls_back_to_english():
    assert say("report.step", "ja", n=4, function="claim", title="t") == "ステップ 4 · claim: t"
    assert say("class.failed", "xx", clause="C4.5") == "failed at C4.5"
