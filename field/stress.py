"""`make stress`: several worker processes, stalls, clock jumps and SIGKILLs; then the verdict.

It runs any implementation that loads (the checks are one lens, this is the other). The seed
fixes the schedule: which jobs the workers pick, which plays they make (stress_plays.py), who
stalls and when, who is killed after how many calls. The processes' interleaving is the
machine's, so the same seed replays the same plan, not the same run; the plan is built so that
a broken claim, renewal, completion or release loses every time. Afterwards every call of the
log is judged against the contract (invariants.py, replay.py): each violation is shown under the
contract clause it breaks, with the calls that broke it and the last accepted writes to its job
before them. A store that raises or answers with nonsense is at fault (faults.py): no verdict on
its promises, an exit status of its own. The run's folder is removed when nothing was found,
else kept, and its path is printed either way something stops the run.
"""

import random
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from field import invariants, recovery
from field.artifact import ArtifactBroken, import_file, materialize
from field.fleet import Fleet
from field.stress_report import render
from field.stress_worker import Plan
from lab.model.status import ExitStatus
from lab.text.messages import words_of

__all__ = ["Summary", "main", "render", "run"]


@dataclass
class Summary:
    seed: int
    seconds: float
    workers: int
    folder: Path
    started: int = 0
    jumps: int = 0
    kills: list = field(default_factory=list)
    kills_survived: int = 0
    reclaimed: int = 0
    began: int = 0  # time.monotonic_ns() when the workers began
    found: invariants.Findings = field(default_factory=invariants.Findings)

    @property
    def passed(self):
        return not self.found.violations and not self.found.faults

    @property
    def status(self):
        if self.found.faults:
            return ExitStatus.STORE_FAULT
        return ExitStatus.SOME_FAIL if self.found.violations else ExitStatus.ALL_PASS


def run(impl_path, label, seconds=3.0, seed=None, workers=4, keep=None, lang="en"):
    """One stress run; its Summary. The folder is removed unless kept or something was found."""
    seed = seed if seed is not None else random.SystemRandom().randrange(1, 1_000_000)
    folder = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="lab-stress-"))
    (folder / "logs").mkdir(parents=True, exist_ok=True)
    for old in [*(folder / "logs").glob("*.jsonl"), *folder.glob("jobs.db*")]:
        old.unlink()
    plan = Plan(
        str(materialize(impl_path, label, folder)), str(folder / "jobs.db"), str(folder / "logs"), seed, seconds
    )
    summary = Summary(seed, seconds, workers, folder)
    enqueued = [f"race-{number}" for number in range(plan.rounds)]
    lease = _set_up(plan, enqueued, summary.found, lang)
    if lease is None:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)  # nothing ran: nothing to look at
        return summary
    try:
        fleet = Fleet(plan, workers)
        fleet.run()
        summary.began = int(fleet.clock.start * 1e9)
        _judge(summary, fleet, plan, lease, set(enqueued))
    except BaseException:
        print(words_of("field", lang)("stress_stopped", folder=folder), file=sys.stderr)
        raise
    if summary.passed and not keep:
        shutil.rmtree(folder, ignore_errors=True)
    return summary


def _set_up(plan, jobs, found, lang):
    """The artifact imported, its table made twice (a restart calls init_db again: C1.3) and the
    race rounds' jobs enqueued; None when the store failed before any worker could run."""
    try:
        lease = import_file(plan.artifact, lang)
    except ArtifactBroken as error:  # the implementation's fault, reported as such
        found.fault(recovery.WHOLE_DB, "f_import", text=str(error))
        return None
    try:
        lease.init_db(plan.db)
    except Exception as error:  # noqa: BLE001
        found.fault(recovery.WHOLE_DB, "f_setup", function="init_db", error=f"{type(error).__name__}: {error}")
        return None
    try:
        lease.init_db(plan.db)
    except Exception as error:  # noqa: BLE001 - the contract names it: a second call raises nothing
        found.add(recovery.WHOLE_DB, "v_raised", clause="C1.3", error=f"{type(error).__name__}: {error}", ops=[])
    try:
        for job in jobs:
            lease.enqueue(plan.db, job)
    except Exception as error:  # noqa: BLE001
        found.fault(recovery.WHOLE_DB, "f_setup", function="enqueue", error=f"{type(error).__name__}: {error}")
        return None
    return lease


def _judge(summary, fleet, plan, lease, enqueued):
    summary.started, summary.jumps, summary.kills = fleet.started, fleet.jumps, fleet.kills
    found = summary.found
    ops, found.torn_lines = invariants.load(plan.logs)
    for owner, problem in fleet.problems:  # problem: (key, values), worded in the report's language
        found.fault(recovery.WHOLE_DB, "f_worker", owner=owner, problem=problem)
    rows = recovery.inspect(plan.db, found)
    invariants.verify(ops, rows, found, enqueued)
    summary.reclaimed = recovery.claim_again(plan.db, lease, rows, fleet.clock.now(), plan.ttl, found)
    named = {job for job, _, _ in found.violations}
    in_flight = {(op.worker, op.seq): op.job for op in ops if not op.ended}
    if recovery.WHOLE_DB not in named:
        summary.kills_survived = sum(in_flight.get((owner, seq), "") not in named for owner, _, seq in fleet.kills)


def main(impl_path, label, seconds, seed, workers, keep, lang="en"):
    summary = run(impl_path, label, seconds, seed, workers, keep, lang)
    render(summary, label, lang)
    return summary.status
