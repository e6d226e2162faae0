"""Running a learner's files in a learner process, and what went wrong per step while doing so
(facts, lab/model/results.py: worded by whoever reports them, in their language)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lab.model.course import load_course
from lab.model.implementation import MAX_FILE, defined_by, display_path, standing_in
from lab.model.results import Words
from lab.sandbox.channel import REPLY_GRACE, ChannelLost, Stalled

if TYPE_CHECKING:
    from collections.abc import Mapping

    from lab.model.implementation import Implementation, SourceFile
    from lab.model.results import Text
    from lab.sandbox.channel import LearnerProcess
    from lab.sandbox.shapes import FileToRun, Problem, Settings


def load(
    process: LearnerProcess,
    implementation: Implementation,
    known: Mapping[int, Text],
    settings: Settings,
    one_by_one: bool = False,
) -> tuple[list[FileToRun], set[str], dict[int, Text]]:
    """Run the implementation's files into a fresh module of process.

    Returns (the files that ran, the callable names, step -> problem). A file with a known
    problem (it hangs or ends the process, found by the runner's probe) is not run again. A file
    that serves no step stands in for the steps that went wrong before it (standing_in).
    one_by_one: a request per file, so that the one that hangs or ends the process is named
    (the probe); otherwise one request for all.
    """
    problems: dict[int, Text] = {}
    to_run: list[tuple[SourceFile, FileToRun]] = []
    for file in implementation.files:
        shown = display_path(file.path)
        problem = next((known[n] for n in file.steps if n in known), None)
        if problem is None and file.text is not None:
            to_run.append((file, {"filename": str(file.path), "shown": shown, "text": file.text}))
        else:  # a known problem (facts, never empty), or a file that was not read
            why = problem or Words(file.refused or "missing", file=shown, limit=MAX_FILE >> 20)
            problems.update(dict.fromkeys(file.steps, why))
    batches = [[item] for item in to_run] if one_by_one else [to_run]
    callables: set[str] = set()
    stood_in: set[int] = set()
    for index, batch in enumerate(batches):
        try:
            reply = process.ask(
                "load",
                settings.time_limit + (0 if one_by_one else REPLY_GRACE),
                files=[r for _, r in batch],
                fresh=index == 0,
            )
        except (Stalled, ChannelLost) as stopped:
            failed, asked = batch[0] if len(batch) == 1 else (None, {"shown": implementation.label})
            raise LoadStopped(failed, _stopped_message(stopped, asked["shown"], settings.time_limit)) from None
        for (file, request), ran in zip(batch, reply["files"]):
            problem, callables = _problem(ran["problem"], request["shown"]), set(ran["callables"])
            for number in file.steps:
                function = load_course()[number - 1].function
                if problem:
                    problems[number] = problem
                elif function not in callables:
                    problems[number] = Words("defines_no", file=request["shown"], function=function)
            if not file.steps and not problem and file.text is not None:
                stood_in |= standing_in(problems, defined_by(file.text))
    for number in stood_in:
        problems.pop(number, None)
    return [request for _, request in to_run], callables, problems


class LoadStopped(Exception):
    """Running one file hung or ended the learner process; message: its facts."""

    def __init__(self, file: SourceFile | None, message: Words) -> None:
        super().__init__(message)
        self.file, self.message = file, message


def _stopped_message(stopped: Stalled | ChannelLost, shown: str, limit: float) -> Words:
    if isinstance(stopped, Stalled):
        return Words("load_hung", file=shown, limit=limit)
    return Words("load_died", file=shown, code=stopped.code)


def _problem(found: Problem | None, shown: str) -> Words | None:
    if found is None:
        return None
    if found["kind"] == "syntax":
        return Words("syntax", file=shown, line=found["line"], kind=found["type"], error=found["error"])
    where = Words("where", line=found["line"]) if found["line"] else ""
    return Words("raised", file=shown, where=where, kind=found["type"], error=found["error"])
