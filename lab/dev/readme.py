"""The parts of the lab's documents made from course.toml: each language's step table (README.md),
and the first line of each `make progress` transcript (the course's step count, as progress says
it; the transcripts are in docs/learner.md and docs/learner.ja.md).

`dev update` writes them (lab/dev/generated.py); `dev check` holds README.md and every guide in
docs/ to them, so that no hand keeps a list of the steps or their count.
"""

import re

from lab.text.messages import CATALOGUE, say

README = "README.md"
DOCS = "docs"  # the guides beside README.md, each in English (NAME.md) and Japanese (NAME.ja.md)
# The header of each language's step table; the table's rows are the course's steps.
STEP_TABLE = {"en": "| step | folder | function | you build |", "ja": "| ステップ | フォルダ | 関数 | 作るもの |"}
PASSING_SHOWN = 3  # the transcripts show a learner three steps in


def made(text, course):
    """A document's text with its step tables and progress headings made from course."""
    for lang, header in STEP_TABLE.items():
        if header in text.split("\n"):
            text = _table_replaced(text, header, step_table(course, lang))
        text = _progress_headings_replaced(text, course, lang)
    return text


def documents(root):
    """README.md and the guides in docs/ that root holds: where made()'s parts may stand."""
    readme = root / README
    return [*([readme] if readme.is_file() else []), *sorted((root / DOCS).glob("*.md"))]


def step_table(course, lang):
    """The rows of lang's step table: number, folder, signature and what the learner builds."""
    return [
        f"| {step.number} | `steps/{step.dir}/` | `{step.function}({', '.join(step.parameters)})` | {step.builds[lang]} |"
        for step in course
    ]


def problems(root, course):
    """README.md and the guides at root against what course.toml makes of them: one sentence each, or none."""
    readme = root / README
    if readme.is_file():
        lines = readme.read_text(encoding="utf-8").split("\n")
        missing = [header for header in STEP_TABLE.values() if header not in lines]
        if missing:
            return [f"{README}: no step table headed {header}" for header in missing]
    found = []
    for path in documents(root):
        text = path.read_text(encoding="utf-8")
        if made(text, course) != text:
            found.append(
                f"{path.relative_to(root).as_posix()}: its step tables or progress lines are not the ones course.toml makes (python -m lab dev update writes them)"
            )
    return found


def _table_replaced(text, header, rows):
    """text with the rows of the table under header (past its |---| line, up to the first line that
    is no table row) replaced by rows."""
    lines = text.split("\n")
    start = lines.index(header) + 2
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    return "\n".join([*lines[:start], *rows, *lines[end:]])


def _progress_headings_replaced(text, course, lang):
    """text with each transcript line that is lang's progress heading, whatever its count, saying course's."""
    template = CATALOGUE[lang]["learner.progress_heading"]
    pattern = re.escape(template).replace(re.escape("{count}"), r"\d+").replace(re.escape("{steps}"), r"\d+/\d+")
    shown = say("learner.progress_heading", lang, count=len(course), steps=f"{PASSING_SHOWN}/{len(course)}")
    return re.compile(rf"^(    ){pattern}$", re.MULTILINE).sub(lambda found: found[1] + shown, text)
