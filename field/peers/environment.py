"""The peers' own virtual environment, .lab/peers-venv: made once, never the lab's .venv.

Its packages are pinned (PACKAGES): a new version of a queue could change the story, and the
table of docs/field.md says which versions it shows. The venv is remade only when PACKAGES change (a
stamp file holds them); a lock file keeps two commands from building it at the same time.
"""

import fcntl
import subprocess
import sys
from pathlib import Path

from lab.model.course import LAB_ROOT
from lab.store import Store

# litequeue and persist-queue: small SQLite queues with an acknowledgement, the first with a reaper as
# its visibility timeout. huey: the task queue people pick for this job on one machine without
# Redis (SqliteHuey, huey.storage.SqliteStorage); pure Python, no dependencies, installs on 3.11 with
# no service; it takes a task by deleting its row and stores results by key, so it shows the third
# way a late worker gets in: a result store where the last write wins.
PACKAGES = ("litequeue==0.9", "persist-queue==1.1.0", "huey==3.5.4")
INSTALL_SECONDS = 300  # pip on a slow network; a hung install ends here


class PeersUnavailable(Exception):
    """The venv could not be made or the packages not installed: pip's last words."""


def folder():
    return Store(LAB_ROOT).folder / "peers-venv"


def python():
    """The peers venv's python, after making the venv if it is missing or its packages changed."""
    where = folder()
    interpreter, stamp = where / "bin" / "python", where / ".installed"
    wanted = "\n".join(PACKAGES) + "\n"
    where.parent.mkdir(parents=True, exist_ok=True)
    with open(where.parent / f"{where.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if interpreter.exists() and stamp.exists() and stamp.read_text() == wanted:
            return interpreter
        _run([sys.executable, "-m", "venv", "--clear", str(where)])
        _run([str(interpreter), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *PACKAGES])
        stamp.write_text(wanted)
    return interpreter


def _run(command):
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_SECONDS)
    except subprocess.TimeoutExpired:
        raise PeersUnavailable(f"{' '.join(command[:4])}: no answer after {INSTALL_SECONDS} s") from None
    if done.returncode != 0:
        said = [
            line
            for line in (done.stderr or done.stdout).splitlines()
            if line.strip() and not line.startswith("WARNING")
        ]
        raise PeersUnavailable(f"{' '.join(command[:4])}: {' / '.join(said[-3:]) or f'exit status {done.returncode}'}")


CONTENDER = Path(__file__).with_name("contender.py")


def contender(verb, scratch, artifact):
    """The command line that runs contender.py's verb in the peers' python (made if need be)."""
    return [str(python()), str(CONTENDER), verb, str(scratch), str(artifact)]
