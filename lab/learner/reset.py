"""`make reset-step N` and `make restore-step N`: start a step again, and change your mind.

Reset saves the step's files (step.py, and prediction.py when there is one) to a new timestamped
folder under `.lab/backups/<step folder>/`, then writes the stub as shipped, taken from git
(lab/model/pristine.py), never from the working file, led by the command's language
(lab/model/starter.py). The prediction is saved but kept in place: it
is written before the code, and starting the code again does not undo it. Restore saves the
current files the same way, then copies back the newest backup that restore did not make itself
(so that a second restore never brings back the stub the first one replaced), or the one AT names.
Each backup folder records who made it in MADE_BY. Nothing is ever deleted.
"""

import shutil
from datetime import UTC, datetime

from lab.model.implementation import STEP_FILE
from lab.model.prediction_file import PREDICTION_FILE, holds_a_prediction
from lab.model.pristine import NoPristineStub, is_stub, stub_text
from lab.model.starter import lead_with, swapped
from lab.model.status import ExitStatus
from lab.store import shown
from lab.text.messages import words_of

SAVED_FILES = (STEP_FILE, PREDICTION_FILE)
MADE_BY = ".made-by"  # "reset" or "restore": which command saved the folder


def backups_dir(step, store):
    return store.folder / "backups" / step.dir


def back_up(step, store, made_by="reset"):
    """Copy the step's files to a new timestamped folder; returns it."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H-%M-%S")
    folder = backups_dir(step, store) / stamp
    suffix = 1
    while folder.exists():  # two resets within one second: both kept
        suffix += 1
        folder = backups_dir(step, store) / f"{stamp}-{suffix}"
    folder.mkdir(parents=True)
    for name in SAVED_FILES:
        source = store.root / "steps" / step.dir / name
        if source.is_file():
            shutil.copy2(source, folder / name)
    (folder / MADE_BY).write_text(made_by + "\n", encoding="utf-8")
    return folder


def saved(step, store):
    """Every backup folder of the step, newest first."""
    folder = backups_dir(step, store)
    return sorted((p for p in folder.iterdir() if p.is_dir()), reverse=True) if folder.is_dir() else []


def made_by(folder):
    try:
        return (folder / MADE_BY).read_text(encoding="utf-8").strip() or "reset"
    except OSError:  # a backup made before MADE_BY existed: by reset-step
        return "reset"


def reset(step, store, lang="en"):
    """(exit status, lines): 0 when the stub is in place (reset now, or already)."""
    words = words_of("learner", lang)
    try:
        shipped = stub_text(step)
    except NoPristineStub:
        return ExitStatus.SOME_FAIL, [words("no_stub", n=step.number)]
    stub = lead_with(shipped, lang)  # the stub led by the command's language
    file = store.root / "steps" / step.dir / STEP_FILE
    if file.is_file() and file.read_text(encoding="utf-8", errors="replace") in (shipped, swapped(shipped)):
        return ExitStatus.ALL_PASS, [words("already_stub", n=step.number)]
    folder = back_up(step, store, made_by="reset")
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(stub, encoding="utf-8")
    return ExitStatus.ALL_PASS, [
        words("backed_up", n=step.number, folder=shown(folder, store.root)),
        words("reset_done", n=step.number, file=shown(file, store.root)),
    ]


def restore(step, store, lang="en", at=None):
    """(exit status, lines): a backup back in place, the current files saved first: the one `at`
    names (its folder name, or its number in `make backups N`), else the newest that restore did
    not make itself."""
    words = words_of("learner", lang)
    existing = saved(step, store)
    if not existing:
        return ExitStatus.SOME_FAIL, [
            words("no_backup", n=step.number, folder=shown(backups_dir(step, store), store.root))
        ]
    if at:
        chosen = [f for i, f in enumerate(existing, start=1) if at.strip() in (f.name, str(i))]
        if not chosen:
            return ExitStatus.USAGE, [words("no_such_backup", at=at, n=step.number)]
    else:
        chosen = [f for f in existing if made_by(f) != "restore"] or existing
    source = chosen[0]
    current = back_up(step, store, made_by="restore")
    for name in SAVED_FILES:
        if (source / name).is_file():
            shutil.copy2(source / name, store.root / "steps" / step.dir / name)
    lines = [
        words("backed_up", n=step.number, folder=shown(current, store.root)),
        words("restored", n=step.number, folder=shown(source, store.root)),
    ]
    return ExitStatus.ALL_PASS, lines + [words("backups_hint", n=step.number)]


def listing(step, store, lang="en"):
    """(exit status, lines) of `make backups N`: every backup, newest first, what made it and what it holds."""
    words = words_of("learner", lang)
    existing = saved(step, store)
    if not existing:
        return ExitStatus.ALL_PASS, [
            words("no_backup", n=step.number, folder=shown(backups_dir(step, store), store.root))
        ]
    lines = [
        words("backups_heading", n=step.number, count=len(existing), folder=shown(backups_dir(step, store), store.root))
    ]
    for number, folder in enumerate(existing, start=1):
        by = words("made_by_restore" if made_by(folder) == "restore" else "made_by_reset")
        lines.append(f"  {number:>2}. {folder.name}  {by}: {_holds(step, folder, words)}")
    return ExitStatus.ALL_PASS, lines + [words("backups_restore", n=step.number, at=existing[0].name)]


def _holds(step, folder, words):
    parts = []
    code = folder / STEP_FILE
    if code.is_file():
        text = code.read_text(encoding="utf-8", errors="replace")
        parts.append(
            words("holds_stub") if is_stub(text, step.number) else words("holds_code", lines=len(text.splitlines()))
        )
    prediction = folder / PREDICTION_FILE
    if prediction.is_file():
        written = holds_a_prediction(prediction.read_text(encoding="utf-8", errors="replace"))
        parts.append(words("holds_prediction" if written else "holds_template"))
    return words("separator").join(parts) or words("holds_nothing")
