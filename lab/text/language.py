"""The learner's language: the locale's until the learner chooses one, which this checkout then
remembers; LAB_LANG overrides either for one command.

`make language ja` (``python -m lab language ja``) stores the choice in `.lab/language`; every
command of the lab and every verb of ``python -m lab`` then speaks it. Until a choice is stored,
the language is the locale's (``from_locale``): a learner whose machine speaks Japanese reads
Japanese from the first run, and the first command's first line says so, once, with the two
commands that settle it (``make language ja``, ``make language en``); ``make language`` with no
word says it again. The Makefile
words its own lines (`make help`, the set-up line before Python is there) by the same rule, in
make (tests/test_language_setting.py holds the two to one table of locales).

``LAB_LANG=en`` (in the environment, or on make's command line, which make hands to the command's
environment) changes the language for one command only, so a command the lab suggests carries
``LAB_LANG=…`` exactly when the language it speaks is not the one the checkout speaks without it
(``settled``): copied as printed, it answers in the same language.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

LANGUAGES = ("en", "ja")
ROOT = Path(__file__).resolve().parent.parent.parent
SETTING = Path(".lab") / "language"
NOTED = Path(".lab") / "language-noted"  # the note on the locale's language was shown once
# The variables that name the locale of messages, in the order POSIX reads them: the first that is
# set and not empty decides. A value names Japanese when its language part is ja (ja, ja_JP.UTF-8,
# ja.UTF-8, ja_JP@…); C, POSIX, unset and every other language read English.
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")
JAPANESE_LOCALE = re.compile(r"ja(?:[_.@]|$)")

# A make command as the lab prints it for the learner to type: the target, then its step or its
# language or its VARIABLE=value words (`make hint 4 ALL=1`, `make language en`, make stress SEED=12).
MAKE_COMMAND = re.compile(r"\bmake [a-z][a-z-]*(?: (?:[A-Z_]+=[^\s`)(、。,;]*|(?:\d+|N|en|ja)\b))*")


def from_locale(environ: Mapping[str, str] | None = None) -> str:
    """The language the locale names (LC_ALL, else LC_MESSAGES, else LANG): ja or en."""
    environ = os.environ if environ is None else environ
    value = next((environ[name] for name in LOCALE_VARIABLES if environ.get(name)), "")
    return "ja" if JAPANESE_LOCALE.match(value) else "en"


def remembered(root: str | Path | None = None) -> str | None:
    """The language `make language` stored for this checkout; None when none of the lab's was stored."""
    try:
        lang = (Path(root or ROOT) / SETTING).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return lang if lang in LANGUAGES else None


def settled(root: str | Path | None = None) -> str:
    """The language of this checkout without LAB_LANG: the remembered one, else the locale's."""
    return remembered(root) or from_locale()


def _for_one_command() -> str | None:
    lang = os.environ.get("LAB_LANG", "").strip()
    return lang if lang in LANGUAGES else None


def chosen(root: str | Path | None = None) -> str:
    """The language of a command run without --lang: LAB_LANG when it names one, else the settled one."""
    return _for_one_command() or settled(root)


def guessed(root: str | Path | None = None) -> bool:
    """Whether a command run without --lang speaks the locale's language, for want of a choice:
    no LAB_LANG, and nothing remembered."""
    return _for_one_command() is None and remembered(root) is None


def first_note(root: str | Path | None = None) -> bool:
    """Whether the note on the locale's language is due: only the first time a command follows the
    locale in this checkout (or every time, where the checkout cannot be written)."""
    path = Path(root or ROOT) / NOTED
    if path.exists():
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    except OSError:
        pass
    return True


def remember(lang: str, root: str | Path | None = None) -> None:
    path = Path(root or ROOT) / SETTING
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(lang + "\n", encoding="utf-8")


def typed(text: str, lang: str, root: str | Path | None = None) -> str:
    """text with every make command in it as the learner must type it to read the answer in lang."""
    if lang not in LANGUAGES or lang == settled(root) or "make " not in text:
        return text
    return MAKE_COMMAND.sub(lambda found: f"{found[0]} LAB_LANG={lang}", text)
