"""The language is a setting the lab remembers: `make language ja` stores it in .lab/language, every
command and every verb of `python -m lab` follows it, LAB_LANG overrides it for one command, and a
command the lab prints for the learner to type answers, as printed, in the language it was printed in."""

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


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """The lab's language setting read from a checkout of its own in tmp_path, with no LAB_LANG."""
    monkeypatch.setattr(language, "ROOT", tmp_path)
    monkeypatch.delenv("LAB_LANG", raising=False)
    return tmp_path


def test_a_checkout_without_a_setting_speaks_english_and_lab_lang_overrides_it(checkout, monkeypatch):
    assert language.remembered() == language.chosen() == "en"
    monkeypatch.setenv("LAB_LANG", "ja")
    assert language.chosen() == "ja" and language.remembered() == "en"
    monkeypatch.setenv("LAB_LANG", "jp")  # not a language of the lab: the remembered one stays
    assert language.chosen() == "en"


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


def test_a_printed_command_carries_lab_lang_only_when_the_language_is_not_the_remembered_one(checkout):
    line = say("learner.next_step", "ja", n=4, title="t")
    assert "`make check-step 4 LAB_LANG=ja`" in line and "`make hint 4 LAB_LANG=ja`" in line
    assert "`make restore-step 4 AT=… LAB_LANG=ja`" in say("learner.backups_hint", "ja", n=4)
    assert "`make hint 4`" in say("learner.hint_more", "en", n=4)
    assert "`make language en LAB_LANG=ja`" in say("learner.language_now", "ja")  # the language is the target's word
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


def _make(folder, *argv):
    """make run in folder beside a copy of the lab's Makefile, as a learner types it (the lab's
    own path may hold spaces, which make cannot take in -f): folder/.lab/language is the
    checkout's setting."""
    shutil.copy(LAB_ROOT / "Makefile", folder / "Makefile")
    env = {key: value for key, value in os.environ.items() if key not in ("LAB_LANG", "MAKEFLAGS", "MAKELEVEL")}
    return subprocess.run(["make", "-s", *argv], cwd=folder, env=env, capture_output=True, text=True)


def test_make_help_speaks_the_remembered_language_and_lab_lang_overrides_it(tmp_path):
    english = _make(tmp_path, "help").stdout
    assert "list the targets" in english and "ターゲット" not in english
    (tmp_path / ".lab").mkdir()
    (tmp_path / ".lab" / "language").write_text("ja\n", encoding="utf-8")
    japanese = _make(tmp_path, "help").stdout
    assert "ターゲットの一覧" in japanese and "list the targets" not in japanese
    assert "list the targets" in _make(tmp_path, "help", "LAB_LANG=en").stdout


def test_every_target_of_make_help_has_a_japanese_line():
    makefile = (LAB_ROOT / "Makefile").read_text(encoding="utf-8")
    targets = re.findall(r"^([a-z-]+):.*## ", makefile, re.MULTILINE)
    japanese = dict(re.findall(r"^#ja ([a-z-]+) +(.+)$", makefile, re.MULTILINE))
    assert targets and sorted(set(targets)) == sorted(japanese)
    for target, text in japanese.items():
        assert re.search(r"[ぁ-んァ-ヶ一-龯]", text), target
