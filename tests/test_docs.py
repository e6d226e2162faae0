"""Every verb of the one command tree is documented: the command list in both languages (the
section "Every command", in docs/reference.md and docs/reference.ja.md), `make help` in both
languages, its help in the catalogue, and a --help that answers (as sqlite-utils'
tests/test_docs.py does for its commands)."""

import argparse
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hang import HANGS_AFTER
from readme_parts import section

from lab import commands
from lab.commands import VERBS, build_parser
from lab.model.course import LAB_ROOT
from lab.model.status import ExitStatus
from lab.text.language import LANGUAGES
from lab.text.messages import CATALOGUE, say

MAKEFILE = (LAB_ROOT / "Makefile").read_text(encoding="utf-8")
COMMAND_LISTS = {"en": "## Every command", "ja": "## すべてのコマンド"}


def command_list(lang):
    return section(COMMAND_LISTS[lang])[1]


def make_help(lang):
    done = subprocess.run(
        ["make", "-s", "help", f"LAB_LANG={lang}"], cwd=LAB_ROOT, capture_output=True, text=True, timeout=HANGS_AFTER
    )
    return {line.split()[0] for line in done.stdout.splitlines() if line.strip()}


@pytest.fixture(scope="module", params=LANGUAGES)
def listed(request):
    return request.param, command_list(request.param), make_help(request.param)


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_is_in_the_readmes_command_list_and_in_make_help(verb, listed):
    lang, text, targets = listed
    targets_in_readme = re.search(rf"^\| `{verb}` \| (.+?) \|", text, re.MULTILINE)
    assert targets_in_readme, f"{section(COMMAND_LISTS[lang])[0]} does not list {verb}"
    for target in VERBS[verb].MAKE_TARGETS:
        assert f"`{target}`" in targets_in_readme[1] and target in targets, (lang, target)


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_has_its_help_in_both_languages_and_answers_help(verb, capsys):
    assert CATALOGUE["en"][f"verbs.{verb}"] != CATALOGUE["ja"][f"verbs.{verb}"]
    for lang in LANGUAGES:
        with pytest.raises(SystemExit) as done:
            build_parser(lang).parse_args([verb, "--help"])
        assert done.value.code == 0
        assert CATALOGUE[lang][f"verbs.{verb}"].split()[0] in capsys.readouterr().out


def test_the_makefile_runs_only_verbs_of_the_tree():
    run = set(re.findall(r"-m lab ([a-z-]+)", MAKEFILE))
    assert run and run <= set(VERBS)


def parsers(parser):
    """The parser and every parser below it: each verb's, each sub-verb's (dev check, lease claim)."""
    yield parser
    for action in parser._actions:  # argparse keeps its sub-parsers only here
        if isinstance(action.choices, dict):
            for sub in action.choices.values():
                yield from parsers(sub)


def helps(lang):
    """{(command path, option): its help line} of every option of every (sub-)verb, in lang."""
    return {
        (" ".join(parser.path), action.dest): action.help
        for parser in parsers(build_parser(lang))
        for action in parser._actions
        if action.help not in (None, argparse.SUPPRESS) and not isinstance(action.choices, dict)
    }


def test_every_option_of_every_verb_has_its_own_help_in_each_language():
    english, japanese = helps("en"), helps("ja")
    assert english.keys() == japanese.keys() and len(english) > 80
    same = [place for place in english if english[place] == japanese[place]]
    assert not same, f"options whose help is not translated: {same}"
    assert not [place for place, text in japanese.items() if re.search(r"\b(the|of|and)\b", text)]


@pytest.mark.parametrize(
    "argv,english,japanese",
    [
        (["check", "3", "--time-limit", "abc"], "'abc' is not a valid value", "'abc' は無効な値です"),
        (["chek"], "'chek' is not one of 'check'", "'chek' は選べません。選べるもの: 'check'"),
        (["class"], "missing: dir", "次の引数が必要です: dir"),
        (["check", "3", "--bogus"], "not understood: --bogus", "不明な引数: --bogus"),
        (["check", "3", "--json"], "--json: a value must follow it", "--json: 直後に値が必要です"),
    ],
)
def test_a_mistake_in_what_was_typed_is_one_line_in_the_language_of_the_command(argv, english, japanese, tmp_path):
    for lang, expected in (("en", english), ("ja", japanese)):
        done = subprocess.run(
            [sys.executable, "-m", "lab", *argv, "--lang", lang],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=HANGS_AFTER,
        )
        assert done.returncode == 2 and not done.stdout, done
        assert done.stderr.count("\n") == 1 and expected in done.stderr, done.stderr


def test_argparse_own_words_are_in_the_language_of_the_command(capsys):
    with pytest.raises(SystemExit):
        build_parser("ja", "check").parse_args(["check", "--help"])
    shown = capsys.readouterr().out
    assert shown.startswith("使い方: python -m lab check") and "\n位置引数:\n" in shown and "\nオプション:\n" in shown
    assert "このヘルプを表示して終了する" in shown and "usage" not in shown and "show this help" not in shown


def test_every_help_line_of_the_catalogue_is_some_options_help():
    used = {key for parser in parsers(build_parser("en")) for key in parser.texts_used}
    written = {key for key in CATALOGUE["en"] if key.startswith("options.") and not key.startswith("options.usage.")}
    assert written == used, (written - used, used - written)


@pytest.mark.parametrize("verb", VERBS)
def test_japanese_help_is_wrapped_by_the_columns_it_takes_on_screen(verb, capsys, monkeypatch):
    """A wide character takes two columns: the Japanese help of every verb fits an 80-column
    terminal as the English does (the usage lines are argparse's, which break at spaces)."""
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        build_parser("ja", verb).parse_args([verb, "--help"])
    shown = capsys.readouterr().out
    help_lines = shown[shown.index("\n\n") :].splitlines()  # after the usage
    too_wide = [line for line in help_lines if wrapped_width(line) > 80]
    assert not too_wide and any(wrapped_width(line) > 60 for line in help_lines), too_wide


def wrapped_width(line):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


class _Tap:
    """A new report format, registered with no words in the catalogue."""

    OPTION, CLASS_FILE = "--tap", None

    @staticmethod
    def write(outcome, path):
        Path(path).write_text("TAP version 14\n", encoding="utf-8")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_report_format_without_its_words_is_a_clear_line_and_a_dev_check_problem(monkeypatch, capsys, lang):
    from lab import reporters

    monkeypatch.setattr(reporters, "FILES", (*reporters.FILES, _Tap))
    status = commands.main(["check", "1", "--lang", lang, "--help"])
    said = capsys.readouterr()
    missing = say("missing_text", lang, text="options.check.tap", file=f"lab/text/{lang}.toml")
    assert status == ExitStatus.LAB_BROKEN and said.err.strip() == say("lab_broken", lang, error=missing)
    assert "Traceback" not in said.err and said.out == ""
    assert commands.main(["dev", "check", "--no-run", "--lang", lang]) == ExitStatus.LAB_BROKEN
    said = capsys.readouterr().out
    for each in ("en", "ja"):
        assert say("missing_text", each, text="options.check.tap", file=f"lab/text/{each}.toml") in said


def _japanese_help_texts():
    return [text for key, text in CATALOGUE["ja"].items() if key.startswith("options.") and "{" not in text]


@pytest.mark.parametrize("width", [24, 40, 56])
def test_japanese_help_breaks_lines_between_phrases_never_inside_a_word(width):
    import budoux

    from lab.commands.parser import _width, wrapped

    phrases = budoux.load_default_japanese_parser()
    texts = [t for t in _japanese_help_texts() if re.search(r"[ぁ-んァ-ヶ一-龯]", t)]
    assert len(texts) > 50
    for text in texts:
        lines = wrapped(text, width)
        words_fit = all(_width(p) <= width for w in text.split() for p in phrases.parse(w))
        assert all(_width(line) <= width for line in lines) or not words_fit, lines
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        allowed, at = set(), 0  # where a line may end: at a space, or between two phrases of a word
        for word in re.findall(r"\S+|\s+", text):
            if not word.isspace():
                for phrase in phrases.parse(word):
                    at += len(phrase)
                    allowed.add(at)
            else:
                at += len(word)
                allowed.add(at)
        at = 0
        for line in lines[:-1]:
            at = text.index(line, at) + len(line)
            assert at in allowed or not words_fit, (text, line)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_make_help_names_every_variable_check_step_reads(lang):
    """check-step's help line names each variable its flags are made of (CHECK_FLAGS, and the time
    limit's), so that `make help` alone tells a learner how to write a JUnit file or run afresh."""
    makefile = (LAB_ROOT / "Makefile").read_text(encoding="utf-8")
    flags = re.search(r"^CHECK_FLAGS = (.*?[^\\])$", makefile, re.MULTILINE | re.DOTALL)[1]
    read = set(re.findall(r"\$\(([A-Z_]+)\)", flags)) - {"TIME_LIMIT_FLAG"} | {"TIME_LIMIT"}
    done = subprocess.run(
        ["make", "-s", "help", f"LAB_LANG={lang}"], cwd=LAB_ROOT, capture_output=True, text=True, timeout=HANGS_AFTER
    )
    (line,) = [line for line in done.stdout.splitlines() if line.split()[:1] == ["check-step"]]
    assert read >= {"IMPL", "JSON", "JUNIT", "EXERCISM", "FRESH"}
    assert {name for name in read if f"{name}=" not in line} == set(), line
