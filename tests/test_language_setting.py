"""The language is a setting the lab remembers: `make language ja` stores it in .lab/language, every
command and every verb of `python -m lab` follows it, LAB_LANG overrides it for one command, and a
command the lab prints for the learner to type answers, as printed, in the language it was printed in.
Until a language is stored, the lab follows the locale (LC_ALL, then LC_MESSAGES, then LANG), in
Python and in make alike, and every command's first line says so, with how to settle it."""

import os
import re
import shutil
import subprocess
import sys

import pytest

from lab import commands
from lab.model.course import LAB_ROOT
from lab.text import language
from lab.text.messages import say

LOCALE = ("LC_ALL", "LC_MESSAGES", "LANG")


def with_locale(environ, lang_all=None, messages=None, lang=None):
    """environ with the three locale variables set as given (None: not set at all)."""
    environ = {name: value for name, value in environ.items() if name not in LOCALE}
    given = dict(zip(LOCALE, (lang_all, messages, lang)))
    return environ | {name: value for name, value in given.items() if value is not None}


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """The lab's language setting read from a checkout of its own in tmp_path, with no LAB_LANG,
    under a neutral locale (C.UTF-8: English) whatever the machine's."""
    monkeypatch.setattr(language, "ROOT", tmp_path)
    monkeypatch.delenv("LAB_LANG", raising=False)
    for name in LOCALE:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    return tmp_path


def test_a_checkout_without_a_setting_speaks_the_locales_language_and_lab_lang_overrides_it(checkout, monkeypatch):
    assert language.remembered() is None and language.chosen() == "en" and language.guessed()
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")
    assert language.chosen() == language.settled() == "ja" and language.guessed()
    monkeypatch.setenv("LAB_LANG", "en")
    assert language.chosen() == "en" and not language.guessed() and language.remembered() is None
    monkeypatch.setenv("LAB_LANG", "jp")  # not a language of the lab: the locale's stays, still a guess
    assert language.chosen() == "ja" and language.guessed()


# (LC_ALL, LC_MESSAGES, LANG) -> the language the lab speaks when nothing is chosen. None: not set.
LOCALES = [
    ((None, None, None), "en"),
    ((None, None, "C"), "en"),
    ((None, None, "POSIX"), "en"),
    ((None, None, "C.UTF-8"), "en"),
    ((None, None, "en_US.UTF-8"), "en"),
    ((None, None, "fr_FR.UTF-8"), "en"),
    ((None, None, "jv_ID.UTF-8"), "en"),  # Javanese
    ((None, None, "jam"), "en"),  # a language whose code only starts with ja
    ((None, None, "ja_JP.UTF-8"), "ja"),
    ((None, None, "ja"), "ja"),
    ((None, None, "ja_JP"), "ja"),
    ((None, None, "ja.UTF-8"), "ja"),
    ((None, None, "ja_JP.eucJP"), "ja"),
    ((None, None, "ja@modifier"), "ja"),
    (("", "", "ja_JP.UTF-8"), "ja"),  # set but empty: as if unset
    (("C", None, "ja_JP.UTF-8"), "en"),  # LC_ALL first
    (("ja_JP.UTF-8", "C", "en_US.UTF-8"), "ja"),
    ((None, "ja_JP.UTF-8", "en_US.UTF-8"), "ja"),  # then LC_MESSAGES
    ((None, "en_US.UTF-8", "ja_JP.UTF-8"), "en"),
    (("", "en_GB.UTF-8", "ja_JP.UTF-8"), "en"),
]


def _make_lang(folder, environ, *argv):
    """MAKE_LANG, the language of make's own lines, as the lab's Makefile decides it in folder."""
    shutil.copy(LAB_ROOT / "Makefile", folder / "Makefile")
    shown = "print-make-lang: ; @echo $(MAKE_LANG)"
    done = subprocess.run(
        ["make", "-s", "--eval", shown, "print-make-lang", *argv],
        cwd=folder,
        env=environ,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _quiet(environ):
    """environ without a language for one command and without make's own variables."""
    return {k: v for k, v in environ.items() if k not in ("LAB_LANG", "MAKEFLAGS", "MAKELEVEL", "MFLAGS")}


def test_python_and_make_read_the_locale_by_one_rule(tmp_path):
    quiet = _quiet(os.environ)
    for variables, expected in LOCALES:
        environ = with_locale(quiet, *variables)
        assert language.from_locale(environ) == expected, variables
        assert _make_lang(tmp_path, environ) == expected, variables


def test_a_remembered_choice_or_lab_lang_wins_over_the_locale_in_python_and_in_make(checkout, monkeypatch):
    japanese = with_locale(_quiet(os.environ), lang="ja_JP.UTF-8")
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")
    language.remember("en")
    assert language.chosen() == "en" and not language.guessed()
    assert _make_lang(checkout, japanese) == "en"
    assert _make_lang(checkout, japanese, "LAB_LANG=ja") == "ja"  # for one command
    assert _make_lang(checkout, japanese | {"LAB_LANG": "ja"}) == "ja"
    (checkout / ".lab" / "language").unlink()
    monkeypatch.setenv("LAB_LANG", "en")
    assert language.chosen() == "en" and not language.guessed()
    assert _make_lang(checkout, japanese, "LAB_LANG=en") == "en"
    assert _make_lang(checkout, japanese) == "ja"  # nothing chosen: the locale's
    (checkout / ".lab" / "language").write_text("fr\n", encoding="utf-8")  # not a language of the lab
    assert _make_lang(checkout, japanese) == "ja"
    monkeypatch.delenv("LAB_LANG")
    assert language.chosen() == "ja" and language.guessed()


@pytest.mark.parametrize("locale, lang", [("ja_JP.UTF-8", "ja"), ("C.UTF-8", "en")])
def test_the_first_command_that_follows_the_locale_says_so_once_in_its_first_line(
    checkout, monkeypatch, capsys, locale, lang
):
    monkeypatch.setenv("LANG", locale)
    note = say("learner.language_from_locale", lang)
    assert "`make language ja`" in note and "`make language en`" in note and "\n" not in note
    assert commands.main(["backups", "1"], root=checkout) == 0
    said = capsys.readouterr()
    assert said.err == note + "\n"  # the one line, in the locale's language
    assert said.out.strip() == say("learner.no_backup", lang, n=1, folder=".lab/backups/01-init-db")
    commands.main(["backups", "1"], root=checkout)  # said once: the next command speaks the same, silently
    said = capsys.readouterr()
    assert said.err == "" and said.out.strip() == say("learner.no_backup", lang, n=1, folder=".lab/backups/01-init-db")
    assert commands.main(["language"], root=checkout) == 0  # make language, with no word: the same line
    assert capsys.readouterr() == (note + "\n", "")
    for chosen in (["--lang", lang], ["--lang", "en"]):  # a language named: no line about it
        commands.main(["backups", "1", *chosen], root=checkout)
        assert capsys.readouterr().err == ""
    monkeypatch.setenv("LAB_LANG", lang)
    commands.main(["backups", "1"], root=checkout)
    assert capsys.readouterr().err == ""
    monkeypatch.delenv("LAB_LANG")
    assert commands.main(["language", lang], root=checkout) == 0  # the choice, made: the line is gone
    capsys.readouterr()
    commands.main(["backups", "1"], root=checkout)
    said = capsys.readouterr()
    assert said.err == "" and said.out.strip() == say("learner.no_backup", lang, n=1, folder=".lab/backups/01-init-db")


def test_make_language_remembers_the_choice_and_says_so_in_it(checkout, capsys):
    assert commands.main(["language", "ja"], root=checkout) == 0
    assert (checkout / ".lab" / "language").read_text(encoding="utf-8").strip() == "ja"
    assert language.chosen() == "ja"
    assert capsys.readouterr().out.strip() == say("learner.language_set", "ja")
    assert "日本語で表示します" in say("learner.language_set", "ja")
    assert commands.main(["language", "en"], root=checkout) == 0
    assert language.chosen() == "en"


def test_a_language_the_lab_does_not_have_is_a_usage_error_and_changes_nothing(checkout, capsys):
    commands.main(["language", "ja"], root=checkout)
    capsys.readouterr()
    assert commands.main(["language", "fr"], root=checkout) == 2
    assert "'fr' はこのラボの言語ではありません" in capsys.readouterr().err
    assert language.remembered() == "ja"


def test_a_printed_command_carries_lab_lang_only_when_the_language_is_not_the_remembered_one(checkout, monkeypatch):
    line = say("learner.next_step", "ja", n=4, title="t")
    assert "`make check-step 4 LAB_LANG=ja`" in line and "`make hint 4 LAB_LANG=ja`" in line
    assert "`make restore-step 4 AT=… LAB_LANG=ja`" in say("learner.backups_hint", "ja", n=4)
    assert "`make hint 4`" in say("learner.hint_more", "en", n=4)
    assert "`make language en LAB_LANG=ja`" in say("learner.language_now", "ja")  # the language is the target's word
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")  # nothing remembered: a command typed again follows the locale
    assert "`make check-step 4`" in say("learner.next_step", "ja", n=4, title="t")
    assert "`make hint 4 LAB_LANG=en`" in say("learner.hint_more", "en", n=4)
    monkeypatch.setenv("LANG", "C.UTF-8")
    language.remember("ja")
    assert "`make check-step 4`" in say("learner.next_step", "ja", n=4, title="t")
    assert "`make hint 4 ALL=1 LAB_LANG=en`" in say("learner.hint_last", "en", n=4)


def _lab(*argv, lang):
    env = {**os.environ, "LAB_LANG": lang}
    return subprocess.run([sys.executable, "-m", "lab", *argv], cwd=LAB_ROOT, env=env, capture_output=True, text=True)


@pytest.mark.parametrize("argv", [["check", "99"], ["hint", "99"], ["mutation", "--impl", "no-such-folder"]])
def test_every_verb_of_python_m_lab_follows_lab_lang(argv):
    answer = _lab(*argv, lang="ja")
    assert answer.returncode == 2
    assert re.search(r"[ぁ-んァ-ヶ]", answer.stderr), answer.stderr


def _make(folder, *argv, locale="C.UTF-8", flags=("-s",)):
    """make run in folder beside a copy of the lab's Makefile, as a learner types it (the lab's
    own path may hold spaces, which make cannot take in -f), under LANG=locale: folder/.lab/language
    is the checkout's setting."""
    shutil.copy(LAB_ROOT / "Makefile", folder / "Makefile")
    env = with_locale(_quiet(os.environ), lang=locale)
    return subprocess.run(["make", *flags, *argv], cwd=folder, env=env, capture_output=True, text=True)


def test_make_help_speaks_the_remembered_language_and_lab_lang_overrides_it(tmp_path):
    english = _make(tmp_path, "help").stdout
    assert "list the targets" in english and "ターゲット" not in english
    assert "ターゲットの一覧" in _make(tmp_path, "help", locale="ja_JP.UTF-8").stdout  # nothing chosen: the locale's
    (tmp_path / ".lab").mkdir()
    (tmp_path / ".lab" / "language").write_text("ja\n", encoding="utf-8")
    japanese = _make(tmp_path, "help").stdout
    assert "ターゲットの一覧" in japanese and "list the targets" not in japanese
    assert "list the targets" in _make(tmp_path, "help", "LAB_LANG=en").stdout
    (tmp_path / ".lab" / "language").write_text("en\n", encoding="utf-8")
    assert "list the targets" in _make(tmp_path, "help", locale="ja_JP.UTF-8").stdout


def test_the_set_up_line_follows_the_locale_and_the_recipes_leave_the_language_to_python(tmp_path):
    # Before .venv exists make has only its own words: the set-up line is chosen by the same rule.
    (tmp_path / "lab").mkdir()
    (tmp_path / "pyproject.toml").touch()
    (tmp_path / "lab" / "install.py").touch()
    japanese = _make(tmp_path, "check-step", "1", locale="ja_JP.UTF-8", flags=("-n",)).stdout
    english = _make(tmp_path, "check-step", "1", locale="C.UTF-8", flags=("-n",)).stdout
    assert "準備しています" in japanese and "Setting up" in english and "準備" not in english
    for recipes in (japanese, english):  # each command decides its language itself
        assert "--lang" not in recipes and "-m lab check" in recipes
    chosen = _make(tmp_path, "language", "ja", locale="C.UTF-8", flags=("-n",)).stdout
    assert "準備しています" in chosen and "-m lab.install --lang ja" in chosen  # set up in the language just chosen


def test_every_target_of_make_help_has_a_japanese_line():
    makefile = (LAB_ROOT / "Makefile").read_text(encoding="utf-8")
    targets = re.findall(r"^([a-z-]+):.*## ", makefile, re.MULTILINE)
    japanese = dict(re.findall(r"^#ja ([a-z-]+) +(.+)$", makefile, re.MULTILINE))
    assert targets and sorted(set(targets)) == sorted(japanese)
    for target, text in japanese.items():
        assert re.search(r"[ぁ-んァ-ヶ一-龯]", text), target
