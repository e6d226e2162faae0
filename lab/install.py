"""The first step of `make` on a fresh clone: the lab's virtual environment, made by uv where uv
can be had, else by pip, as before.

Run by the interpreter the Makefile was given (``python3 -m lab.install .venv``) before
anything is installed: standard library only, and the catalogue's words (lab/text/), in the
language every command speaks (lab/text/language.py), or the one ``--lang`` names.

uv is the one on PATH, else one that pip installs for this run alone into a temporary folder.
uv does not read pip's configuration, and the index pip is set up with (pip.conf files and PIP_*
variables, as `pip config list` reports them) is the one this machine reaches packages through:
each of pip's settings is handed to uv as its own option, and a setting uv has no equivalent
for sends the install to pip. pip takes the newest version across all its indexes, where uv by
default takes the first index that has the package: --index-strategy unsafe-best-match makes uv
choose as pip does. Whatever uv cannot do (fetched, configured, run), pip does, after one line
that says why.

Bytecode: the checks run in sandboxes that see the environment read-only and start Python with
-B, so a module without its .pyc is compiled again in every check run. pip compiles every file it
installs. uv compiles on request, and here only the project's own dependencies, which the checks
import; the dev extras (ruff, mutmut, matplotlib, ...) run outside the sandbox, where Python
compiles what they import on first use.

Files: uv copies each one into the environment (--link-mode copy) instead of linking it to its
cache, as it does by default. A file linked there shares its inode with the cache and with every
other environment made from it, and installing any of those changes the file's change time: a
class run that compares the installed files before and after (lab/sandbox/integrity.py) would
then report the lab as changed while nothing in it was.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from lab.text.language import LANGUAGES, chosen
from lab.text.messages import words_of

INSTALL_SECONDS = 900  # one install on a slow network; a hung one ends here and pip takes over
# pip's settings and uv's options for them, by how each is given: a list of values (one option
# each), a flag, or a variable of uv's environment.
AS_OPTIONS = {"extra-index-url": "--extra-index-url", "find-links": "--find-links", "constraint": "--constraint"}
AS_OPTION = {"index-url": "--index-url"}
AS_FLAG = {"no-index": "--no-index"}
AS_VARIABLE = {
    "cert": "SSL_CERT_FILE",
    "client-cert": "SSL_CLIENT_CERT",
    "proxy": "HTTPS_PROXY",
    "timeout": "UV_HTTP_TIMEOUT",
    "default-timeout": "UV_HTTP_TIMEOUT",
    "no-cache-dir": "UV_NO_CACHE",
}
# Settings of how pip talks, not of what it installs or from where (cache-dir: uv keeps a cache of its own).
IGNORED = {
    "disable-pip-version-check",
    "no-color",
    "progress-bar",
    "quiet",
    "verbose",
    "root-user-action",
    "no-input",
    "cache-dir",
}
SECTION_RANK = {"global": 0, "install": 1, ":env:": 2}  # a later one overrides: pip's own order


class CannotUseUv(Exception):
    """uv is not to be had, cannot follow pip's settings, or failed: the words of why."""


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m lab.install", description=__doc__.splitlines()[0])
    parser.add_argument("venv", type=Path)
    parser.add_argument("--lang", choices=LANGUAGES)
    arguments = parser.parse_args(argv)
    words = words_of("install", arguments.lang or chosen())
    try:
        with_uv(arguments.venv, sys.executable)
    except CannotUseUv as why:
        print(words("with_pip", why=why), flush=True)
        shutil.rmtree(arguments.venv, ignore_errors=True)
        with_pip(arguments.venv, sys.executable)
    return 0


def with_uv(venv, python):
    """The environment made and filled by uv, following pip's settings."""
    options, variables = uv_settings(pip_settings(python))
    with tempfile.TemporaryDirectory(prefix="lab-uv-") as place:
        uv = shutil.which("uv") or fetched_uv(python, Path(place))
        environment = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", **variables}
        shutil.rmtree(venv, ignore_errors=True)
        _run_uv("uv venv", [uv, "venv", "--quiet", "--python", python, str(venv)], environment)
        install = [uv, "pip", "install", "--quiet", "--link-mode", "copy", "--python", str(venv / "bin" / "python")]
        install += options
        _run_uv("uv pip install", [*install, "--compile-bytecode", "-e", "."], environment)
        _run_uv("uv pip install", [*install, "-e", ".[dev]"], environment)


def with_pip(venv, python):
    """The environment as the lab made it before uv: venv, then pip (which compiles everything)."""
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip"]
    subprocess.run([*pip, "install", "--quiet", "--disable-pip-version-check", "-e", ".[dev]"], check=True)


def fetched_uv(python, place):
    """uv installed by pip into place, for this run alone."""
    command = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target", str(place), "uv"]
    _run_uv("pip install uv", [*command, "--root-user-action=ignore"], dict(os.environ))
    return str(place / "bin" / "uv")


def pip_settings(python):
    """pip's settings that apply to an install, by name: `pip config list`'s lines ranked as pip
    ranks them (global, then install, then PIP_* variables; among equals, the later file)."""
    try:
        done = subprocess.run(
            [python, "-m", "pip", "config", "list"], capture_output=True, text=True, timeout=60, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return {}  # no pip to ask: no pip settings for uv to follow
    return parsed_settings(done.stdout)


def parsed_settings(listed):
    ranked = {}
    for line in listed.splitlines():
        where, _, value = line.partition("=")
        section, _, name = where.rpartition(".")
        if section in SECTION_RANK and value:
            rank = SECTION_RANK[section]
            if rank >= ranked.get(name, (-1, ""))[0]:
                ranked[name] = (rank, value.strip().strip("'\""))
    return {name: value for name, (_, value) in ranked.items()}


def uv_settings(settings):
    """(uv's options, uv's environment variables) for pip's settings; CannotUseUv names the first
    setting uv has no equivalent for."""
    options = ["--index-strategy", "unsafe-best-match"]
    variables = {}
    for name, value in settings.items():
        if name in AS_OPTIONS:
            options += [part for each in value.split() for part in (AS_OPTIONS[name], each)]
        elif name in AS_OPTION:
            options += [AS_OPTION[name], value]
        elif name in AS_FLAG:
            options += [AS_FLAG[name]] if value.lower() in ("1", "true", "yes", "on") else []
        elif name in AS_VARIABLE:
            variables[AS_VARIABLE[name]] = value
        elif name not in IGNORED:
            raise CannotUseUv(f"pip's setting {name}={value}")
    return options, variables


def _run_uv(what, command, environment):
    """Run one command of the uv route; CannotUseUv with its last words when it fails."""
    try:
        done = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=INSTALL_SECONDS)
    except (OSError, subprocess.SubprocessError) as error:
        raise CannotUseUv(f"{what}: {error}") from error
    if done.returncode:
        said = (done.stderr.strip() or done.stdout.strip() or f"exit status {done.returncode}").splitlines()[-1]
        raise CannotUseUv(f"{what}: {said}")


if __name__ == "__main__":
    sys.exit(main())
