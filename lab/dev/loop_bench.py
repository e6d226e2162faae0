"""`make bench-loop`: how long the learner's loop takes, each figure a ratio to a warm
`make check-step 1`, all measured in one run on this machine.

The unit is `python -m lab check 1` (what `make check-step 1` runs) right after an edit to step 1's
function, so that step 1's checks run even where verdicts are reused. Against it, in the order of a
repetition:
- `make watch N`: from the save of an edit to step N's function to the report's last line, the
  save made a few seconds after the report before it, as a learner reads it (READS_THE_REPORT);
  the watcher's own first run settles the edits of the repetition before;
- `check N` with nothing changed since the last check N;
- `check N` after an edit to step N's function;
- `check N` after an edit to an earlier step's function (step 4's claim, which the generated checks
  of steps 4-8 and the races reach);
- the unit;
- the first `make check-step 1` on a fresh clone of the lab (git clone, so what is committed), its
  uv and pip caches empty as on a machine that never installed the lab; it needs the package index.

Every figure is measured once per repetition, the kinds in turn (ABAB), and each repetition's
figures are divided by that repetition's unit: a busy moment of the machine falls on both. The
table shows the medians over the repetitions.

The lab's own commands run, in a temporary copy of this lab whose steps/ holds the reference
(solutions/) and the prediction templates as shipped: never the learner's steps/. An edit is a real
statement inserted at the top of the function's body (a number assigned to a local name, new at
every edit, so no earlier verdict can stand for it): a comment would not change what the checks
reach. The copy, with its edits, is removed at the end.
"""

import ast
import itertools
import os
import queue
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lab.model.course import LAB_ROOT, load_course
from lab.model.implementation import STEP_FILE
from lab.model.mutants import SOLUTIONS_DIR
from lab.model.prediction_file import PREDICTION_FILE
from lab.model.pristine import prediction_text
from lab.process import spawn

# The kinds of figure, in the order of the table, and the goal of issue 23 for each, as a ratio
# to the unit (None: the unit itself, and the fresh clone, whose goal is half of the time before).
# An edit to claim: 4×, as decided on 2026-12-05 (DEVELOPERS.md), no longer issue 23's 3×.
KINDS = ("unit", "watch", "unchanged", "own_edit", "earlier_edit", "fresh_clone")
GOALS = {"unit": None, "watch": 1.0, "unchanged": 1.0, "own_edit": 1.5, "earlier_edit": 4.0, "fresh_clone": None}
COMMAND_SECONDS = 900  # one command, the fresh clone's set-up included; a hung one ends the bench
WATCH_STOPS = 30  # seconds the watcher has to stop after Ctrl-C
PROBE = "bench-loop-probe.md"  # saved under steps/ until the watcher sees it
PROBE_EVERY = 1.0  # seconds between two saves of the probe
# Seconds between the last line of a report and the watched save: a learner reads the report and
# edits before saving again, and the watcher's next check gets ready meanwhile (a save made at
# the very moment a report ends waits for it to start, about a second).
READS_THE_REPORT = 3.0
RUN_STARTS = "\x1b[2J"  # the watcher clears the screen as a run starts
NOT_COPIED = (".git", ".venv", "build", "reports", ".mutmut-stage", "__pycache__", ".lab", ".hypothesis", "steps")
# make's variables of the `make bench-loop` that started this: a fresh clone's make must not see them.
MAKE_VARIABLES = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "LAB_LANG")


class BenchFailed(Exception):
    """A command of the bench did not do what it measures: what it printed last."""


@dataclass
class Figure:
    kind: str
    seconds: list = field(default_factory=list)  # one per repetition
    ratios: list = field(default_factory=list)  # each over the unit of its repetition

    @property
    def goal(self):
        return GOALS[self.kind]

    def median_seconds(self):
        return statistics.median(self.seconds)

    def median_ratio(self):
        return statistics.median(self.ratios)

    def met(self):
        """Whether the median ratio is within the goal; None where there is no goal."""
        return None if self.goal is None else self.median_ratio() <= self.goal

    def record(self):
        return asdict(self) | {
            "median_seconds": self.median_seconds(),
            "median_ratio": self.median_ratio(),
            "goal": self.goal,
            "met": self.met(),
        }


@dataclass(frozen=True)
class Plan:
    step: int = 8  # the step checked and watched: the last
    earlier: int = 4  # the earlier step whose function is edited
    repetitions: int = 3
    fresh_clone: bool = True
    check_flags: tuple = ()  # passed to every check (the self-test's --no-mutants)

    def kinds(self):
        return tuple(kind for kind in KINDS if kind != "fresh_clone" or self.fresh_clone)


def measure(plan, root=LAB_ROOT, progress=None):
    """Every figure of the plan, by kind; progress(kind, repetition, seconds) after each."""
    figures = {kind: Figure(kind) for kind in plan.kinds()}
    with tempfile.TemporaryDirectory(prefix="lab-bench-loop-") as scratch:
        lab = Lab(reference_copy(root, Path(scratch) / "lab"), plan.check_flags)
        lab.check(1)  # the caches of step 1's mutants, then of step N's, filled before anything counts
        last_line = lab.check(plan.step)[1][-1]
        for repetition in range(plan.repetitions):
            taken = {"watch": lab.watch(plan.step, last_line)}
            taken["unchanged"] = lab.check(plan.step)[0]
            lab.edit(plan.step)
            taken["own_edit"] = lab.check(plan.step)[0]
            lab.edit(plan.earlier)
            taken["earlier_edit"] = lab.check(plan.step)[0]
            lab.edit(1)
            taken["unit"] = lab.check(1)[0]
            if plan.fresh_clone:
                taken["fresh_clone"] = fresh_clone(root, Path(scratch) / f"clone-{repetition}")
            for kind, seconds in taken.items():
                figures[kind].seconds.append(seconds)
                figures[kind].ratios.append(seconds / taken["unit"])
                if progress:
                    progress(kind, repetition, seconds)
    return [figures[kind] for kind in plan.kinds()]


def reference_copy(root, copy):
    """This lab at `copy`, its steps/ the reference with the contracts and prediction templates."""
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(*NOT_COPIED))
    for step in load_course(root):
        folder = copy / "steps" / step.dir
        folder.mkdir(parents=True)
        shutil.copyfile(SOLUTIONS_DIR / step.dir / STEP_FILE, folder / STEP_FILE)
        (folder / PREDICTION_FILE).write_text(prediction_text(step), encoding="utf-8")
        for lang in ("en", "ja"):
            shutil.copyfile(step.contract_path(lang, root), folder / step.contract_path(lang, root).name)
    return copy


def edited(text, function, mark):
    """text with `_edited_by_bench_loop = mark` as the first statement of function's body (after
    its docstring)."""
    tree = ast.parse(text)
    found = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function)
    body = found.body
    first = body[1] if ast.get_docstring(found) is not None and len(body) > 1 else body[0]
    lines = text.splitlines(keepends=True)
    statement = " " * first.col_offset + f"_edited_by_bench_loop = {mark}\n"
    return "".join(lines[: first.lineno - 1] + [statement] + lines[first.lineno - 1 :])


class Lab:
    """The reference copy: its commands, timed, and edits to its steps' functions."""

    def __init__(self, folder, check_flags=()):
        self.folder = folder
        self.check_flags = list(check_flags)
        self.steps = {step.number: step for step in load_course(folder)}
        self.pristine = {n: self._file(n).read_text(encoding="utf-8") for n in self.steps}
        self.marks = itertools.count(1)
        self.environment = {k: v for k, v in os.environ.items() if k not in MAKE_VARIABLES}

    def _file(self, number):
        return self.folder / "steps" / self.steps[number].dir / STEP_FILE

    def edit(self, number):
        """A new statement in step number's function, in place of the bench's last one there."""
        step = self.steps[number]
        self._file(number).write_text(edited(self.pristine[number], step.function, next(self.marks)), encoding="utf-8")

    def _command(self, verb, number):
        return [sys.executable, "-m", "lab", verb, str(number), "--lang", "en", *self.check_flags]

    def check(self, number):
        """(seconds, the lines it printed) of `python -m lab check number`."""
        return timed(self._command("check", number), self.folder, self.environment, statuses=(0,))

    def watch(self, number, last_line):
        """Seconds from the save of an edit to step number's function until `make watch number`
        prints last_line, the last line of its report, once the watcher is watching (see probe),
        the save made READS_THE_REPORT after the last report."""
        with Watcher(self._command("watch", number), self.folder, self.environment) as watcher:
            watcher.until(last_line)
            self.probe(watcher)
            watcher.until(last_line)
            time.sleep(READS_THE_REPORT)
            self.edit(number)
            saved = time.perf_counter()
            return watcher.until(last_line) - saved

    def probe(self, watcher):
        """Save a file of no step under steps/ until the watcher starts a run for it: from then on
        it is watching, as when a learner saves. (It starts watching only after its first run:
        what is saved before that is not seen.)"""
        for mark in itertools.count():
            (self.folder / "steps" / PROBE).write_text(f"{mark}\n", encoding="utf-8")
            if watcher.run_started(within=PROBE_EVERY):
                return


def timed(command, folder, environment, statuses):
    """(seconds, the lines it printed) of a command that must end with one of statuses."""
    started = time.perf_counter()
    child = spawn(command, cwd=folder, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        out, _ = child.communicate(timeout=COMMAND_SECONDS)
    except subprocess.TimeoutExpired:
        child.end()
        raise BenchFailed(f"{' '.join(command[1:])}: still running after {COMMAND_SECONDS} s") from None
    seconds = time.perf_counter() - started
    lines = out.decode(errors="replace").splitlines()
    if child.returncode not in statuses:
        raise BenchFailed(f"{' '.join(command[1:])}: exit status {child.returncode}\n" + "\n".join(lines[-20:]))
    return seconds, lines


class Watcher:
    """`python -m lab watch N` running, its output read line by line as it comes, each line timed."""

    def __init__(self, command, folder, environment):
        self.command = command
        self.child = spawn(command, cwd=folder, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.lines = queue.Queue()
        self.seen = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.child.stdout:
            self.lines.put((time.perf_counter(), line.decode(errors="replace").rstrip("\n")))
        self.lines.put((time.perf_counter(), None))

    def _next(self, deadline):
        """(when, the next line), or None when no line came by deadline; BenchFailed when the
        watcher ended."""
        try:
            when, line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None
        if line is None:
            said = "\n".join(self.seen[-20:])
            raise BenchFailed(f"{' '.join(self.command[1:])}: ended\n{said}")
        self.seen.append(line)
        return when, line

    def until(self, wanted):
        """When the next line equal to wanted came."""
        deadline = time.monotonic() + COMMAND_SECONDS
        while came := self._next(deadline):
            when, line = came
            if line.rsplit("\x1b[H", 1)[-1] == wanted:
                return when
        said = "\n".join(self.seen[-20:])
        raise BenchFailed(f"{' '.join(self.command[1:])}: no line {wanted!r} in {COMMAND_SECONDS} s\n{said}")

    def run_started(self, within):
        """Whether a run started (the screen was cleared) within that many seconds."""
        deadline = time.monotonic() + within
        while came := self._next(deadline):
            if came[1].startswith(RUN_STARTS):
                return True
        return False

    def __enter__(self):
        return self

    def __exit__(self, *_):
        if self.child.poll() is None:
            os.kill(self.child.pid, signal.SIGINT)  # as Ctrl-C stops it
            try:
                self.child.wait(timeout=WATCH_STOPS)
            except subprocess.TimeoutExpired:
                pass
        self.child.end()


def fresh_clone(root, folder):
    """Seconds of the first `make check-step 1` in a fresh clone of root, with empty caches."""
    environment = {k: v for k, v in os.environ.items() if k not in (*MAKE_VARIABLES, "VIRTUAL_ENV")}
    timed(["git", "clone", "--quiet", str(root), str(folder)], root, environment, statuses=(0,))
    caches = folder.parent / f"{folder.name}-caches"
    environment |= {"UV_CACHE_DIR": str(caches / "uv"), "PIP_NO_CACHE_DIR": "1", "LAB_LANG": "en"}
    seconds, lines = timed(["make", "-s", "check-step", "1"], folder, environment, statuses=(0, 1, 2))
    if not (folder / ".venv" / ".installed").is_file():
        raise BenchFailed("make check-step 1 on a fresh clone did not set up .venv\n" + "\n".join(lines[-20:]))
    return seconds
