"""`make reset-step N` and `make restore-step N`: start a step again, and change your mind.

Reset saves the step's files (step.py, and prediction.py when there is one) to a new timestamped
folder under `.lab/backups/<step folder>/`, then writes the stub as shipped, taken from git
(lab/model/pristine.py), never from the working file. The prediction is saved but kept in place: it
is written before the code, and starting the code again does not undo it. Restore saves the
current files the same way, then copies the newest other backup back. Nothing is ever deleted.
"""

import shutil
from datetime import datetime, timezone

from lab.model.course import LAB_ROOT
from lab.model.implementation import STEP_FILE
from lab.learner.store import shown, state_dir
from lab.model.pristine import NoPristineStub, stub_text
from lab.model.status import ExitStatus
from lab.text.messages import words_of

SAVED_FILES = (STEP_FILE, "prediction.py")


def backups_dir(step, root=LAB_ROOT):
    return state_dir(root) / "backups" / step.dir


def back_up(step, root=LAB_ROOT):
    """Copy the step's files to a new timestamped folder; returns it."""
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H-%M-%S")
    folder = backups_dir(step, root) / stamp
    suffix = 1
    while folder.exists():  # two resets within one second: both kept
        suffix += 1
        folder = backups_dir(step, root) / f"{stamp}-{suffix}"
    folder.mkdir(parents=True)
    for name in SAVED_FILES:
        source = root / "steps" / step.dir / name
        if source.is_file():
            shutil.copy2(source, folder / name)
    return folder


def reset(step, lang="en", root=LAB_ROOT):
    """(exit status, lines): 0 when the stub is in place (reset now, or already)."""
    words = words_of("learner", lang)
    try:
        stub = stub_text(step)
    except NoPristineStub:
        return ExitStatus.SOME_FAIL, [words("no_stub", n=step.number)]
    file = root / "steps" / step.dir / STEP_FILE
    if file.is_file() and file.read_text(encoding="utf-8", errors="replace") == stub:
        return ExitStatus.ALL_PASS, [words("already_stub", n=step.number)]
    folder = back_up(step, root)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(stub, encoding="utf-8")
    return ExitStatus.ALL_PASS, [words("backed_up", n=step.number, folder=shown(folder, root)), words("reset_done", n=step.number, file=shown(file, root))]


def restore(step, lang="en", root=LAB_ROOT):
    """(exit status, lines): the newest backup back in place, the current files saved first."""
    words = words_of("learner", lang)
    existing = sorted(p for p in backups_dir(step, root).glob("*") if p.is_dir()) if backups_dir(step, root).is_dir() else []
    if not existing:
        return ExitStatus.SOME_FAIL, [words("no_backup", n=step.number, folder=shown(backups_dir(step, root), root))]
    latest = existing[-1]
    saved = back_up(step, root)
    for name in SAVED_FILES:
        if (latest / name).is_file():
            shutil.copy2(latest / name, root / "steps" / step.dir / name)
    return ExitStatus.ALL_PASS, [words("backed_up", n=step.number, folder=shown(saved, root)), words("restored", n=step.number, folder=shown(latest, root))]
