"""README.md's parts made from course.toml: each language's step table, and the first line of
each `make progress` transcript (the course's step count, as progress says it).

`dev update` writes them (lab/dev/generated.py); `dev check` holds README.md to them, so that no
hand keeps a list of the steps or their count.
"""

import re

from lab.text.messages import CATALOGUE, say

README = "README.md"
# The header of each language's step table; the table's rows are the course's steps.
STEP_TABLE = {"en": "| step | folder | function | you build |", "ja": "| ステップ | フォルダ | 関数 | 作るもの |"}
PASSING_SHOWN = 3  # the transcripts show a learner three steps in


def made(text, course):
    """README.md's text with its step tables and progress headings made from course."""
    for lang, header in STEP_TABLE.items():
        text = _progress_headings_replaced(_table_replaced(text, header, step_table(course, lang)), course, lang)
    return text


def step_table(course, lang):
    """The rows of lang's step table: number, folder, signature and what the learner builds."""
    return [
        f"| {step.number} | `steps/{step.dir}/` | `{step.function}({', '.join(step.parameters)})` | {step.builds[lang]} |"
        for step in course
    ]


def problems(root, course):
    """README.md at root against what course.toml makes of it: one sentence, or none."""
    path = root / README
    if not path.is_file():
        return []
    text = path.read_text(encoding="utf-8")
    missing = [header for header in STEP_TABLE.values() if header not in text.split("\n")]
    if missing:
        return [f"{README}: no step table headed {header}" for header in missing]
    if made(text, course) != text:
        return [
            f"{README}: its step tables or progress lines are not the ones course.toml makes (python -m lab dev update writes them)"
        ]
    return []


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
