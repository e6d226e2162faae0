"""The learner's language: a setting this checkout remembers, which LAB_LANG overrides for one command.

`make language ja` (``python -m lab language ja``) stores the choice in `.lab/language`; every
command of the lab and every verb of ``python -m lab`` then speaks it. ``LAB_LANG=en`` (in the
environment, or on make's command line) changes it for one command only, so a command the lab
suggests carries ``LAB_LANG=…`` exactly when the language it speaks is not the remembered one:
copied as printed, it answers in the same language.
"""

import os
import re
from pathlib import Path

LANGUAGES = ("en", "ja")
ROOT = Path(__file__).resolve().parent.parent.parent
SETTING = Path(".lab") / "language"

# A make command as the lab prints it for the learner to type: the target, then its step or its
# language or its VARIABLE=value words (`make hint 4 ALL=1`, `make language en`, make stress SEED=12).
MAKE_COMMAND = re.compile(r"\bmake [a-z][a-z-]*(?: (?:[A-Z_]+=[^\s`)(、。,;]*|(?:\d+|N|en|ja)\b))*")


def remembered(root=None):
    """The language `make language` stored for this checkout; English when none was stored."""
    try:
        lang = (Path(root or ROOT) / SETTING).read_text(encoding="utf-8").strip()
    except OSError:
        return "en"
    return lang if lang in LANGUAGES else "en"


def chosen(root=None):
    """The language of a command run without --lang: LAB_LANG when it names one, else the remembered one."""
    lang = os.environ.get("LAB_LANG", "").strip()
    return lang if lang in LANGUAGES else remembered(root)


def remember(lang, root=None):
    path = Path(root or ROOT) / SETTING
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(lang + "\n", encoding="utf-8")


def typed(text, lang, root=None):
    """text with every make command in it as the learner must type it to read the answer in lang."""
    if lang not in LANGUAGES or lang == remembered(root) or "make " not in text:
        return text
    return MAKE_COMMAND.sub(lambda found: f"{found[0]} LAB_LANG={lang}", text)
