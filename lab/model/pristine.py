"""The stubs as the lab ships them, whatever the learner has done to steps/ since.

steps/ is the learner's to change, so nothing that needs the stubs (the lab's self-test) may
read it. Each stub comes from git: the newest committed version of the step's file that still
holds the step's TODO, so a learner who commits their work changes nothing here. Without git
history, the working file serves only while it is still a stub.
"""

from __future__ import annotations

import subprocess
from functools import cache
from typing import TYPE_CHECKING

from lab.model.course import LAB_ROOT, load_course
from lab.model.implementation import STEP_FILE
from lab.model.prediction_file import PREDICTION_FILE, holds_a_prediction

if TYPE_CHECKING:
    from pathlib import Path

    from lab.model.course import Step


class NoPristineStub(Exception):
    """Neither git history nor the working folder holds the step's stub."""


def is_stub(text: str, number: int) -> bool:
    return f"TODO(step {number})" in text and "raise NotImplementedError" in text


def stub_text(step: Step) -> str:
    """The text of step's stub as shipped."""
    return _stub_text(step.number, step.dir)


@cache
def _stub_text(number: int, folder: str) -> str:
    relative = f"steps/{folder}/{STEP_FILE}"
    for commit in _commits_touching(relative):
        text = _git("show", f"{commit}:{relative}")
        if text is not None and is_stub(text, number):
            return text
    working = LAB_ROOT / relative
    if working.is_file() and is_stub(working.read_text(encoding="utf-8"), number):
        return working.read_text(encoding="utf-8")
    raise NoPristineStub(f"no stub of step {number} in git history or in {relative}")


def prediction_text(step: Step) -> str:
    """The text of step's prediction template as shipped: the newest committed version that holds
    no prediction, else the working file while it is still untouched."""
    relative = f"steps/{step.dir}/{PREDICTION_FILE}"
    for commit in _commits_touching(relative):
        text = _git("show", f"{commit}:{relative}")
        if text is not None and not holds_a_prediction(text):
            return text
    working = LAB_ROOT / relative
    if working.is_file() and not holds_a_prediction(working.read_text(encoding="utf-8")):
        return working.read_text(encoding="utf-8")
    raise NoPristineStub(f"no prediction template of step {step.number} in git history or in {relative}")


def write_stubs(folder: Path) -> Path:
    """A steps-like folder at `folder` holding every stub and its contracts; returns it."""
    for step in load_course():
        target = folder / step.dir
        target.mkdir(parents=True, exist_ok=True)
        (target / STEP_FILE).write_text(stub_text(step), encoding="utf-8")
        for lang in ("en", "ja"):
            path = step.contract_path(lang)
            (target / path.name).write_text(contract_text(step, lang), encoding="utf-8")
    return folder


def contract_text(step: Step, lang: str) -> str:
    """The text of step's contract: the working file, or, where it was removed, as last committed."""
    path = step.contract_path(lang)
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        committed = _git("show", f"HEAD:steps/{step.dir}/{path.name}")
        if committed is None:
            raise NoPristineStub(f"no contract of step {step.number} in git or in {path}") from None
        return committed


def _commits_touching(relative: str) -> list[str]:
    listed = _git("log", "--format=%H", "--", relative)
    return listed.split() if listed else []


def _git(*arguments: str) -> str | None:
    try:
        done = subprocess.run(["git", *arguments], cwd=LAB_ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None
