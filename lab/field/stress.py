"""`make stress`: several worker processes, stalls, clock jumps and SIGKILLs; then the verdict.

It runs any implementation that loads (the checks are one lens, this is the other). The seed
fixes the schedule: which jobs the workers pick, who stalls and when, who is killed after how
many calls. The processes' interleaving is the machine's, so the same seed replays the same
plan, not the same run; the plan is built so that a broken claim, renewal, completion or release
loses every time. Each violation is shown under the contract clause it breaks, with the calls
that broke it and the last accepted writes to its job before them.
"""

import random
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from lab.field import invariants, recovery
from lab.field.artifact import import_file, materialize
from lab.field.fleet import Fleet
from lab.field.stress_worker import Plan
from lab.model.course import all_clauses
from lab.model.status import ExitStatus
from lab.text.messages import words_of

SHOWN_PER_KIND = 3
WORDED = ("why", "problem")
NOT_SHOWN = (
    "ops",
    "before",
    "clause",
    *WORDED,
)  # a violation's values that are not placeholders of its sentence  # a violation's values given as (key, values): worded in the report's language


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
    found: invariants.Findings = field(default_factory=invariants.Findings)

    @property
    def passed(self):
        return not self.found.violations


def run(impl_path, label, seconds=3.0, seed=None, workers=4, keep=None):
    """One stress run; its Summary. The folder is removed unless kept or something failed."""
    seed = seed if seed is not None else random.SystemRandom().randrange(1, 1_000_000)
    folder = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="lab-stress-"))
    (folder / "logs").mkdir(parents=True, exist_ok=True)
    for old in [*(folder / "logs").glob("*.jsonl"), *folder.glob("jobs.db*")]:
        old.unlink()
    plan = Plan(
        str(materialize(impl_path, label, folder)), str(folder / "jobs.db"), str(folder / "logs"), seed, seconds
    )
    summary = Summary(seed, seconds, workers, folder)
    lease = import_file(plan.artifact)
    try:
        lease.init_db(plan.db)
        for number in range(plan.rounds):
            lease.enqueue(plan.db, f"race-{number}")
    except Exception as error:  # noqa: BLE001 - the implementation's problem, reported as such
        summary.found.add(recovery.WHOLE_DB, "v_setup", error=f"{type(error).__name__}: {error}", ops=[])
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)  # nothing ran: nothing to look at
        return summary
    fleet = Fleet(plan, workers)
    fleet.run()
    _judge(summary, fleet, plan, lease)
    if summary.passed and not keep:
        shutil.rmtree(folder, ignore_errors=True)
    return summary


def _judge(summary, fleet, plan, lease):
    summary.started, summary.jumps, summary.kills = fleet.started, fleet.jumps, fleet.kills
    found = summary.found
    ops, found.torn_lines = invariants.load(plan.logs)
    for owner, problem in fleet.problems:  # problem: (key, values), worded in the report's language
        found.add(recovery.WHOLE_DB, "v_worker", owner=owner, problem=problem, ops=[])
    rows = recovery.inspect(plan.db, found)
    invariants.verify(ops, rows, found)
    summary.reclaimed = recovery.claim_again(plan.db, lease, rows, fleet.clock.now(), plan.ttl, found)
    named = {job for job, _, _ in found.violations}
    in_flight = {(op.worker, op.seq): op.job for op in ops if not op.ended}
    if recovery.WHOLE_DB not in named:
        summary.kills_survived = sum(in_flight.get((owner, seq), "") not in named for owner, _, seq in fleet.kills)


def render(summary, label, lang="en", out=print):
    found, words = summary.found, words_of("field", lang)
    out(words("stress_heading", impl=label, workers=summary.workers, seconds=summary.seconds, seed=summary.seed))
    counts = ", ".join(f"{op} {count}" for op, count in sorted(found.counts.items()))
    rows = [
        ("s_processes", {"count": summary.started, "restarted": len(summary.kills)}),
        ("s_operations", {"count": found.operations, "counts": counts or "-", "killed": found.interrupted}),
        ("s_fences", {"count": found.fences, "unlogged": found.unlogged}),
        ("s_jumps", {"count": summary.jumps}),
        ("s_stale_tried", {"count": found.stale_tried}),
        ("s_stale_accepted", {"count": found.stale_accepted}),
        ("s_kills", {"count": len(summary.kills), "survived": summary.kills_survived, "reclaimed": summary.reclaimed}),
        ("s_seed", {"seed": summary.seed}),
    ]
    for key, values in rows:
        out("  " + words(key, **values))
    if summary.passed:
        out(words("stress_passed"))
        return
    _render_violations(found.violations, lang, out)
    kept = summary.folder.exists()
    out(
        words(
            "stress_failed" if kept else "stress_failed_early",
            count=len(found.violations),
            folder=summary.folder,
            seed=summary.seed,
        )
    )


def _render_violations(violations, lang, out):
    """Grouped by the clause they break (in the contract's order), each kind in the order it was found."""
    words, clauses = words_of("field", lang), all_clauses(lang)
    by_kind = {}
    for job, key, values in violations:
        by_kind.setdefault((values.get("clause") or "", key), []).append((job, values))
    for (clause, key), found in sorted(by_kind.items(), key=lambda item: (not item[0][0], _clause_order(item[0][0]))):
        if clause:
            out(words("v_kind_clause", clause=clause, kind=words(key + "_title"), count=len(found)))
            out("      " + words("v_clause", clause=clause, text=clauses.get(clause, "")))
        else:
            out(words("v_kind", kind=words(key + "_title"), count=len(found)))
        for job, values in found[:SHOWN_PER_KIND]:
            shown = {k: v for k, v in values.items() if k not in NOT_SHOWN}
            shown |= {k: words(values[k][0], **values[k][1]) for k in WORDED if k in values}
            where = words("v_db", text=words(key, **shown)) if job == recovery.WHOLE_DB else None
            out("    " + (where or words("v_job", job=job, text=words(key, **shown))))
            for op in values.get("ops", []):
                out(f"        {op.trace(words('op_killed'))}")
            if values.get("before"):
                out("        " + words("v_before"))
                for op in values["before"]:
                    out(f"          {op.trace(words('op_killed'))}")
        if len(found) > SHOWN_PER_KIND:
            out("    " + words("v_more", count=len(found) - SHOWN_PER_KIND))


def _clause_order(clause):
    """'C6.3' -> (6, 3), so that C10.1 would follow C9.1."""
    return tuple(int(part) for part in clause[1:].split(".")) if clause else ()


def main(impl_path, label, seconds, seed, workers, keep, lang="en"):
    summary = run(impl_path, label, seconds, seed, workers, keep)
    render(summary, label, lang)
    return ExitStatus.ALL_PASS if summary.passed else ExitStatus.SOME_FAIL
