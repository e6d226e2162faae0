"""A step's starter files, step.py (the stub) and prediction.py (the template), led by the learner's
language.

steps/ is shipped in git with both languages in each starter file, English first: the docstring's
paragraphs in English, then in Japanese; the TODO's two comment lines; and each "English /
日本語" of a comment or a message. `swapped` puts each of these the other way round (twice, the
text is as it was). When the learner chooses a language (`make language ja`), the starter files
that are still exactly as shipped, in either order, are written again led by that language; a
file the learner has changed in any way is never touched. `make reset-step` puts the stub back in
the language of the command.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lab.model.course import load_course
from lab.model.implementation import STEP_FILE
from lab.model.prediction_file import PREDICTION_FILE
from lab.model.prediction_template import prediction_template
from lab.model.pristine import NoPristineStub, prediction_text, stub_text

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from lab.model.course import Step

JAPANESE = re.compile(r"[ぁ-んァ-ヶ一-龯]")
DOCSTRING = re.compile(r'"""(.*?)"""', re.DOTALL)
# "# TODO(step 4): the English line" and, aligned under it, "#               its Japanese line"
TODO_PAIR = re.compile(r"^(\s*# TODO\(step \d+\): )(.*)\n(\s*#\s+)(\S.*)$", re.MULTILINE)
# "English / 日本語" inside a string, or after a comment's "# "
STRING_PAIR = re.compile(r'"([^"\n]+?) / ([^"\n]+)"')
COMMENT_PAIR = re.compile(r"^(\s*# )(.+?) / (.+)$", re.MULTILINE)


def leads_with(text: str) -> str:
    """The language of the first docstring's first paragraph: "ja" or "en"."""
    found = DOCSTRING.search(text)
    first = found.group(1).split("\n\n", 1)[0] if found else text
    return "ja" if JAPANESE.search(first) else "en"


def lead_with(text: str, lang: str) -> str:
    """text led by lang: as it is, or swapped."""
    return text if leads_with(text) == ("ja" if lang == "ja" else "en") else swapped(text)


def swapped(text: str) -> str:
    """The starter text with its two languages the other way round."""
    text = DOCSTRING.sub(lambda found: '"""' + _paragraphs_swapped(found.group(1)) + '"""', text, count=1)
    text = TODO_PAIR.sub(lambda m: _pair(m, lambda a, b: f"{m[1]}{b}\n{m[3]}{a}", m[2], m[4]), text)
    text = STRING_PAIR.sub(lambda m: _pair(m, lambda a, b: f'"{b} / {a}"', m[1], m[2]), text)
    return COMMENT_PAIR.sub(lambda m: _pair(m, lambda a, b: f"{m[1]}{b} / {a}", m[2], m[3]), text)


def _pair(found: re.Match[str], swap: Callable[[str, str], str], first: str, second: str) -> str:
    """swap(first, second) when exactly one of the two is Japanese; else the text as found."""
    if bool(JAPANESE.search(first)) == bool(JAPANESE.search(second)):
        return found.group(0)
    return swap(first, second)


def _paragraphs_swapped(inner: str) -> str:
    """A docstring's body with its paragraphs in one language moved after those in the other."""
    body = inner.rstrip()
    closing = inner[len(body) :]  # the line break and indent before the closing quotes
    paragraphs = body.split("\n\n")
    first_language = [bool(JAPANESE.search(p)) for p in paragraphs]
    cut = first_language.index(not first_language[0]) if (not first_language[0]) in first_language else 0
    if not cut or len(set(first_language[cut:])) != 1:
        return inner  # not one language's paragraphs, then the other's: no starter text
    second = paragraphs[1] if len(paragraphs) > 1 else ""
    indent = second[: len(second) - len(second.lstrip(" \t"))]
    paragraphs[0] = indent + paragraphs[0]  # the first paragraph follows the quotes on their line
    reordered = paragraphs[cut:] + paragraphs[:cut]
    reordered[0] = reordered[0].removeprefix(indent)
    return "\n\n".join(reordered) + closing


def shipped(step: Step, name: str) -> list[str]:
    """Each text of step's starter file `name` as the lab ships it, in the order git holds."""
    found = []
    try:
        found.append(stub_text(step) if name == STEP_FILE else prediction_text(step))
    except NoPristineStub:
        pass
    if name == PREDICTION_FILE:
        found.append(prediction_template(step))
    return found


def untouched(text: str, step: Step, name: str) -> bool:
    """Whether text is step's starter file `name` as shipped, in either language's order."""
    return any(text in (each, swapped(each)) for each in shipped(step, name))


def follow(steps_dir: Path, lang: str) -> list[Path]:
    """Write again, led by lang, every starter file under steps_dir that is still as shipped and
    led by the other language; the paths written. A file the learner changed is left alone."""
    written = []
    for step in load_course():
        for name in (STEP_FILE, PREDICTION_FILE):
            path = steps_dir / step.dir / name
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if untouched(text, step, name) and lead_with(text, lang) != text:
                path.write_text(lead_with(text, lang), encoding="utf-8")
                written.append(path)
    return written
