"""The course as course.toml lists it: steps in order, their titles, contract clauses and each
clause's hints, and the closing questions with their model answers."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from lab.text.messages import say

if TYPE_CHECKING:
    from collections.abc import Collection
    from typing import Any

LAB_ROOT = Path(__file__).resolve().parent.parent.parent
FORMAT_VERSION = 2  # the course.toml format this lab reads (2: hints per clause)

# A clause is one bullet of a contract file: "- **C4.5** Otherwise ... returns the new fence."
CLAUSE_LINE = re.compile(r"^- \*\*(C(\d+)\.(\d+))\*\* (.+)$", re.MULTILINE)
# A learner's prediction runs as a copy named after its step, with no clause of its own.
PREDICTION_TEST = "test_prediction_{:02d}.py"
PREDICTION_TEST_NAME = re.compile(r"test_prediction_(\d+)\.py$")


class CourseFormatError(Exception):
    """course.toml is written in a format this lab does not read: the lab itself is broken."""


# The lab's own folders a command needs beside course.toml, each a catalogue key that says why:
# a learner's repository made from the template without one of them is told which and why.
PARTS = ("checks", "solutions", "mutants")


def missing_parts(root: Path = LAB_ROOT) -> list[str]:
    """The lab's own folders that are not there (a folder each, in PARTS' order)."""
    return [part for part in PARTS if not (root / part).is_dir()]


@dataclass(frozen=True)
class Step:
    number: int
    dir: str
    function: str
    title: dict[str, str]  # language -> the step's title
    # clause id -> language -> its questions, more specific each, in the contract's order
    hints: dict[str, dict[str, tuple[str, ...]]]
    parameters: tuple[str, ...] = ()  # the function's signature: its parameters' names, in order
    snippet: str = ""  # the broken change to review, as the worksheet quotes it
    unmutated: dict[str, str] = field(default_factory=dict)  # clause id -> why no mutant breaks it
    points: int = 1  # the step's weight in grades.csv and in GitHub Classroom's score
    builds: dict[str, str] = field(default_factory=dict)  # language -> what the learner builds (README's step tables)

    def contract_path(self, lang: str = "en", root: Path = LAB_ROOT) -> Path:
        name = "CONTRACT.md" if lang == "en" else f"CONTRACT.{lang}.md"
        return root / "steps" / self.dir / name

    def clauses(self, lang: str = "en", root: Path = LAB_ROOT) -> dict[str, str]:
        """The step's contract clauses, id -> text, in the order the contract file gives them;
        none where the file was removed or cannot be read: a report then names the clauses
        without their text."""
        try:
            text = self.contract_path(lang, root).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return {}
        return {match[1]: match[4].strip() for match in CLAUSE_LINE.finditer(text)}

    def questions(self, clause: str, lang: str = "en") -> tuple[str, ...]:
        """The hints of one clause in lang; none where course.toml has none."""
        return self.hints.get(clause, {}).get(lang, ())


@dataclass(frozen=True)
class ClosingQuestion:
    """One of the worksheet's closing questions: language -> text, for the question and for the
    model answer shown beside the learner's own once they have answered."""

    question: dict[str, str]
    answer: dict[str, str]


def _manifest(root: Path) -> dict[str, Any]:
    """course.toml at root, read afresh: load_course and closing_questions each cache their part."""
    try:
        manifest = tomllib.loads((root / "course.toml").read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise CourseFormatError(say("course_unreadable", file=root / "course.toml", error=error)) from None
    found = manifest.get("format_version")
    if found != FORMAT_VERSION:
        raise CourseFormatError(say("unknown_format", file=root / "course.toml", found=found, known=FORMAT_VERSION))
    return manifest


@cache
def load_course(root: Path = LAB_ROOT) -> tuple[Step, ...]:
    """All steps in course order. Numbers come from the order, never from the folder names."""
    return tuple(
        Step(
            number,
            entry["dir"],
            entry["function"],
            entry["title"],
            {
                clause: {lang: tuple(asked) for lang, asked in by_lang.items()}
                for clause, by_lang in entry["hints"].items()
            },
            tuple(entry.get("parameters", ())),
            entry.get("snippet", ""),
            entry.get("unmutated", {}),
            entry.get("points", 1),
            entry.get("builds", {}),
        )
        for number, entry in enumerate(_manifest(root)["steps"], start=1)
    )


def course_commands(root: Path = LAB_ROOT) -> tuple[str, ...]:
    """The modules of the course's own verbs (course.toml's `commands`), beside the engine's."""
    return tuple(_manifest(root).get("commands", ()))


@cache
def closing_questions(root: Path = LAB_ROOT) -> tuple[ClosingQuestion, ...]:
    """The closing questions in order, each with its model answer (lines as course.toml wraps them)."""
    return tuple(
        ClosingQuestion(entry["question"], {lang: text.strip("\n") for lang, text in entry["answer"].items()})
        for entry in _manifest(root)["closing"]
    )


def step_of_clause(clause_id: str) -> int:
    """'C4.5' -> 4."""
    return int(clause_id[1:].split(".")[0])


def step_of_check(clauses: Collection[str], file_name: str = "") -> int | None:
    """The step a check belongs to: the last step whose clauses it checks (C2.1 and C4.5 -> 4).
    A learner's prediction names no clause; it belongs to the step its file is named after
    (test_prediction_04.py -> 4). None when a check says neither."""
    if clauses:
        return max(step_of_clause(c) for c in clauses)
    found = PREDICTION_TEST_NAME.search(file_name)
    return int(found[1]) if found else None


def all_clauses(lang: str = "en", root: Path = LAB_ROOT) -> dict[str, str]:
    """Every clause of the course, id -> text."""
    return {cid: text for step in load_course(root) for cid, text in step.clauses(lang, root).items()}
