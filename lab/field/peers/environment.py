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

PACKAGES = ("litequeue==0.9", "persist-queue==1.1.0")
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
