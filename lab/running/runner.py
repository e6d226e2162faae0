"""Run the checks against targets in child processes, and collect one result per check and target.

A child runs pytest with the recorder plugin and appends JSON lines as it goes; the parent
watches it (lab/running/child_process.py). When a child dies in the middle of a check
(``os._exit``, a crash) or hangs past the time limit where the in-process alarm cannot reach (a
deadlock in C code), the parent records that check as crashed or timed out and starts a new
child for the checks still to run.

That loss is the check's verdict: the code under test may run in the checks' child (the
reference and the mutants do: lab/sandbox/local.py). A prediction's child runs only the
learner's own test, its targets each in a learner process of their own (lab/running/
prediction_host.py), so its loss says nothing of the target: the test runs once more in a new
child, and a second loss leaves it without a verdict (Result.complete is False), which no total
counts and the cache store never keeps. Neither is a check the budget cut short.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING

from lab.clock import Deadline
from lab.model.checks import check_files, checks_of
from lab.model.course import LAB_ROOT
from lab.model.defaults import TIME_LIMIT
from lab.model.implementation import read
from lab.model.results import CheckStatus, Result, Words
from lab.model.targets import Plan, implementation_of
from lab.running import spare
from lab.running.child_process import parent_folder, run_child, scratch_folder
from lab.running.probe import find_problems
from lab.sandbox import confinement

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from lab.model.targets import Target
    from lab.running.probe import SharedProbe

CHECKS_CHILD = "lab.running.child"  # the module of the checks' child (it has a waiting mode: lab/running/spare.py)
LOST_LIMIT = 2  # checks of one step that may crash or hang their process before the rest is skipped
# pytest's options for a run of the checks, never of the learner's own tests (the predictions): no
# report of exceptions raised where nobody can catch them (in a __del__), which would only be
# warnings no check's verdict reads, at the cost of two full garbage collections as the run ends.
CHECKS_ONLY = ("-p", "no:unraisableexception")
NOT_RUN = Words("not_run")  # the message of a check collected but never settled


class LabBroken(Exception):
    """The checks themselves could not run: a bug in the lab, not in the code under test."""


def run(
    targets: Sequence[Target],
    time_limit: float = TIME_LIMIT,
    budget: float | None = None,
    arguments: Sequence[str] | None = None,
    confined: bool | None = None,
    deadline: Deadline | None = None,
    readable: Iterable[str | os.PathLike[str]] = (),
    child: str = CHECKS_CHILD,
    probe: SharedProbe | None = None,
) -> list[Result]:
    """Every check of every target, in collection order.

    budget: seconds the whole run may take (one submission of a class); checks still to run
    when it is used up are reported as timed out, without running them. deadline: the moment that
    budget ends (lab/clock.py: Deadline), when it began before this run (the first read of the files).
    arguments: what pytest collects instead of the checks (the learners' predictions, with their plugin).
    confined: the children run inside bubblewrap (by default, wherever it works).
    readable: when arguments name learner tests (predictions), the folders they are in.
    child: the module the child runs: the checks, or the prediction host that runs the learner's
    tests as learner code runs (lab/running/prediction_host.py, named by its caller).
    probe: a SharedProbe (lab/running/probe.py) when this run is one of the parts of a run, all
    checking the same files: the learner's files are then probed once for all of them.
    """
    if deadline is None and budget:
        deadline = Deadline(budget)
    confined = confinement.available() if confined is None else confined
    kind = _Child(confined, _seen_by_child(targets, readable), child)
    # The checks' child starts now, while the learner's files are read and probed; or it started
    # before this run, by `make watch`'s next check.
    probing = any(target.impl for target in targets) and (probe is None or probe.wants_a_process())
    ready = spare.take(kind) or (spare.start(kind, probing) if child == CHECKS_CHILD else None)
    workdir = ready.workdir if ready else parent_folder()
    scratch = scratch_folder(workdir, confined)
    try:
        settings = Plan([], None, [], time_limit, scratch, confined)
        find = probe.find_problems if probe else find_problems
        targets = [_probed(t, settings, ready.take_probing() if ready and t.impl else None, find) for t in targets]
        plan = Plan([asdict(t) for t in targets], None, [], time_limit, scratch, confined)
        arguments = arguments or [*CHECKS_ONLY, *_check_files(targets)]
        return _run_until_settled(plan, workdir, (deadline, budget), arguments, kind, ready)
    finally:
        if ready:
            ready.end()  # when the run stopped before its first child
        shutil.rmtree(workdir, ignore_errors=True)


def prestart(children: int = 1) -> None:
    """Start the checks' children of the next run of this process before that run: as many as
    it may run at once (lab/running/spare.py)."""
    spare.prestart(_Child(confinement.available(), _seen_by_child((), ()), CHECKS_CHILD), children)


@dataclass(frozen=True)
class _Child:
    """How the runner starts its child: confined or not, seeing which folders, running which module."""

    confined: bool
    readable: tuple
    module: str

    @property
    def losses_judge(self):
        """A lost child is the verdict of the check it was running: true of the checks' child,
        where the code under test may run, not of a prediction's (the module docstring)."""
        return self.module == CHECKS_CHILD

    def lost_together(self, target, step):
        """What the losses of one process are counted by: the checks of one step against one
        target (that target's code ends it), or a prediction's runs against every target (its
        test ends it, whatever the target)."""
        return (target, step) if self.losses_judge else (step,)

    def waiting_command(self):
        """The command line of a spare child, which reads its plan and arguments from its stdin."""
        waiting = [*confinement.lab_python(self.module), spare.WAITING, "{events}"]
        return [*confinement.verdict_sandbox(None, self.readable), *waiting] if self.confined else waiting

    def command(self, plan_path, arguments):
        """The command line; "{events}" stands for the descriptor of the events pipe."""
        python = confinement.lab_python(self.module)
        if not self.confined:
            return [*python, str(plan_path), "{events}", *arguments]
        return [
            *confinement.verdict_sandbox(plan_path, self.readable),
            *python,
            confinement.PLAN_INSIDE,
            "{events}",
            *arguments,
        ]


# What a child needs of the lab: its code, the checks, the reference and the mutants; never the
# learners' folders, reports or cache that may lie beside them in the lab's folder.
LAB_PARTS = ("lab", "checks", "solutions", "mutants", "course.toml")


def _seen_by_child(targets, readable):
    """The folders a child sees read-only: the lab's parts, the virtual environment, the module
    files of the targets (mutmut's mutants, staged by the lab) and `readable`; never a learner's."""
    own = [target.module_file for target in targets if target.module_file]
    return tuple(dict.fromkeys([*(str(LAB_ROOT / part) for part in LAB_PARTS), sys.prefix, *own, *map(str, readable)]))


def _probed(target, settings, probing=None, find=find_problems):
    """The learner's target with its files, read here once, and those that hang or end the
    process when run found first.

    Its path made absolute, links kept (the reader refuses files that are links or lie in a
    linked folder): the children do not run in this folder, and never read it. probing: a
    private learner process started for the probe before (lab/running/spare.py), or None. find:
    the probe (probe.find_problems, or a SharedProbe's when the target is one part of a run).
    """
    if not target.impl:
        return target
    impl = os.path.abspath(target.impl)
    try:
        # Files the grading parent already chose (a step's credit, lab/grading/credit.py) are kept.
        implementation = implementation_of(target) if target.files else read(impl, label=target.id)
    except BaseException:
        if probing:
            probing.kill()
        raise
    files = tuple((f.steps, str(f.path), f.text, f.refused) for f in implementation.files)
    return replace(target, impl=impl, files=files, known_problems=find(implementation, settings, probing))


def _check_files(targets):
    """The check files of the steps the targets cover: pytest need not collect the others."""
    steps = sorted({step for target in targets for step in target.steps})
    return [str(path) for step in steps for path in check_files(step)]


def _run_until_settled(plan, workdir, budget, arguments, child, ready=None):
    """ready: a spare child for the first attempt (lab/running/spare.py), or None."""
    results, checks, skip, losses, retried = {}, {}, [], {}, set()
    alone = None  # a lost check of a prediction's child, run once more by itself
    deadline, seconds = budget
    time_limit = plan.time_limit
    for attempt in range(1, 1000):
        if checks and len(results) == len(checks):
            break  # the rest of a step was given up: no child is needed to say so
        plan = replace(plan, skip=skip)
        outcome = ready.run(plan, arguments, time_limit, deadline) if ready and attempt == 1 else None
        if outcome is None:
            plan_path = workdir / f"plan-{attempt}.json"
            plan.dump(plan_path)
            outcome = run_child(child.command(plan_path, arguments), workdir, time_limit, deadline)
        started = None
        for event in outcome.events:
            if event.get("event") == "collected":
                checks.update((item["nodeid"], item) for item in event["items"] if item["nodeid"] not in checks)
            elif event.get("event") == "start":
                started = event["nodeid"]
            elif event.get("event") == "result":
                results[event["nodeid"]] = Result(**{k: v for k, v in event.items() if k != "event"})
                started = None
        if outcome.out_of_time:
            checks = checks or _uncollected(plan)
            for nodeid in checks:
                results.setdefault(
                    nodeid,
                    Result(
                        **checks[nodeid],
                        status=CheckStatus.TIMEOUT,
                        message=Words("budget", budget=seconds),
                        duration=0.0,
                        complete=False,
                    ),
                )
            break
        if not checks and outcome.returncode not in (0, 1):
            raise LabBroken(f"the checks could not start (pytest exit {outcome.returncode}):\n{outcome.stderr}")
        if started is None or started in results:
            if alone is None:
                break
            alone, skip = None, list(results)  # it ran again: on with the others
            continue
        if not child.losses_judge and started not in retried:
            # Once more, by itself, in a new child: the loss may have been the machine's.
            retried.add(started)
            alone, skip = started, [nodeid for nodeid in checks if nodeid != started]
            continue
        alone = None
        lost = results[started] = _lost(checks[started], outcome, time_limit, child.losses_judge)
        _give_up_after(lost, losses, checks, results, child)
        skip = list(results)
    # A check collected but never settled (its process lost, for any reason) is no pass.
    for nodeid, check in checks.items():
        results.setdefault(
            nodeid,
            Result(**check, status=CheckStatus.ERROR, message=NOT_RUN, duration=0.0, complete=child.losses_judge),
        )
    return [results[nodeid] for nodeid in checks]


def _uncollected(plan):
    """{node id: check} of every check the plan's targets would run, named from the check files:
    the budget ran out before pytest collected them, and each is reported, none forgotten."""
    return {
        f"{target['id']}::{step}::{name}": {
            "nodeid": f"{target['id']}::{step}::{name}",
            "check": name,
            "target": target["id"],
            "step": step,
            "clauses": [],
        }
        for target in plan.targets
        for step in target["steps"]
        for name in checks_of(step)
        if target.get("checks") is None or name in target["checks"]
    }


def _give_up_after(lost, losses, checks, results, child):
    """After LOST_LIMIT checks of one step and target killed or hung their process (of one
    prediction, whatever the target), skip the rest of them: each would cost a new process, and
    a time limit, for the same news."""
    key = child.lost_together(lost.target, lost.step)
    losses[key] = losses.get(key, 0) + 1
    if losses[key] < LOST_LIMIT:
        return
    # A prediction's other targets: the same news as its lost runs.
    message = Words("not_run_after_losses", count=LOST_LIMIT) if child.losses_judge else lost.message
    for nodeid, check in checks.items():
        if child.lost_together(check["target"], check["step"]) == key:
            results.setdefault(
                nodeid, Result(**check, status=lost.status, message=message, duration=0.0, complete=lost.complete)
            )


def _lost(check, outcome, time_limit, judged=True):
    """The result of a check during which the child process died or hung; judged: that is its
    verdict (the checks' child), else the result is incomplete (a prediction's child, lost twice)."""
    if outcome.hung:
        status, message = CheckStatus.TIMEOUT, Words("hung" if judged else "lost_run_hung", limit=time_limit)
    elif judged:
        status, message = CheckStatus.CRASHED, Words("crashed", code=outcome.returncode)
    else:  # a prediction's host ends with status 1 whatever ended its child: no code to show
        status, message = CheckStatus.CRASHED, Words("lost_run")
    return Result(**check, status=status, message=message, duration=0.0, complete=judged)
