"""What a run is written as, registered in one list (as stryker-js lists its reporters in
reporters/index.ts).

The terminal report (terminal.py) is always shown. Every file reporter is a module of this
package with OPTION (the option of ``check`` that names its file; its help is the catalogue's
options.<option>), CLASS_FILE (the name of
each learner's file that ``class`` writes, or None) and ``write(outcome, path)``; it words the
results' facts in ``outcome.lang``. ``check`` and ``watch`` (which runs ``check``) offer each
one, ``class`` writes each one that has a CLASS_FILE: a new format is one module, added to FILES.
"""

from pathlib import Path

from lab.reporters import exercism, junit, results_json

FILES = (results_json, junit, exercism)


def add_options(parser):
    """One option per file reporter: --json FILE, --junit FILE, --exercism FILE."""
    for reporter in FILES:
        parser.add_argument(reporter.OPTION, metavar="FILE")


def write_chosen(outcome, arguments):
    """Every file the command's options name."""
    for reporter, path in _chosen(arguments):
        _write(reporter, outcome, path)


def forwarded(arguments):
    """The options of the files chosen, for a `check` that another command runs (`watch`)."""
    return [part for reporter, path in _chosen(arguments) for part in (reporter.OPTION, str(Path(path).resolve()))]


def _chosen(arguments):
    for reporter in FILES:
        path = getattr(arguments, reporter.OPTION.removeprefix("--").replace("-", "_"), None)
        if path:
            yield reporter, path


def write_for_learner(outcome, folder, name):
    """The files of one learner of a class, in folder."""
    for reporter in FILES:
        if reporter.CLASS_FILE:
            _write(reporter, outcome, folder / reporter.CLASS_FILE.format(name=name))


def _write(reporter, outcome, path):
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    reporter.write(outcome, path)
