"""After a stress run: what the logs and the database say, checked against the contract.

The logs hold every call with t0/t1 (one monotonic clock for all processes), so "A ended before
B began" is a fact, while calls that overlap in time are left unjudged. A write is *stale* when,
before it began, a higher fence had been handed out for its job, or the job had been completed,
or (renew, complete) its own lease had expired by its own `now`. The checks:

- fences: per job, the fences handed out are 1..F (F the stored fence) with no repeat, and none
  is handed out after a higher one had been. A claim killed between its COMMIT and its log line
  would hand out a fence nobody logged: a missing fence is accepted only while there are at least
  as many claims of that job with a begin line and no end line (cut short by a kill); they are
  counted as `unlogged`. (The kills of this run land before COMMIT, so they stay at 0.)
- stale writes: every stale renew, complete and release must be refused.
- done stays done: after a job's first accepted completion nothing is accepted on it again.
- the stored result: written by an accepted completion that was not stale (its fence held the
  current lease then); a job completed by an accepted call must be stored as done.

Each violation names the contract clause it breaks (CLAUSES, refined by the call and the reason)
and carries the last accepted writes to its job before the call that broke it.
"""

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

WRITES = ("renew", "complete", "release")
FENCE_KEYS = ("v_fence_repeat", "v_fence_lost", "v_fence_down")
FOLLOWING_KEYS = ("v_stale_accepted", "v_result_stale", "v_done_changed")
SHOWN_BEFORE = 3  # accepted writes shown before the call that broke the contract
# The clause a violation breaks. A stale write accepted, or a write on a done job, depends on the
# call and why it was stale: STALE_CLAUSES. The database as a whole (integrity, locks, a journal,
# a half-written row) breaks the rule above the clauses: each write is one transaction.
CLAUSES = {
    "v_raised": None,
    "v_fence_repeat": "C4.6",
    "v_fence_lost": "C4.5",
    "v_fence_down": "C4.5",
    "v_fence_gap": "C4.5",
    "v_result_lost": "C6.1",
    "v_result_unknown": "C6.1",
    "v_result_refused": "C6.1",
    "v_not_claimable": "C4.5",
}
STALE_CLAUSES = {
    ("renew", "r_expired"): "C5.3",
    ("renew", "r_superseded"): "C5.4",
    ("renew", "r_finished"): "C5.5",
    ("complete", "r_expired"): "C6.2",
    ("complete", "r_superseded"): "C6.3",
    ("complete", "r_finished"): "C6.4",
    ("release", "r_superseded"): "C7.3",
    ("release", "r_finished"): "C7.4",
    ("claim", "r_finished"): "C4.3",
}


@dataclass
class Op:
    worker: str  # the process that called (w<slot>.<generation>): owner names repeat across workers
    owner: str
    pid: int
    seq: int
    op: str
    job: str
    fence: object
    now: float
    ttl: object
    result: object
    t0: int
    ended: bool = False
    returned: object = None
    error: object = None
    t1: int = 0

    @property
    def accepted(self):
        if not self.ended or self.error:
            return False
        if self.op == "claim":
            return isinstance(self.returned, int) and not isinstance(self.returned, bool)
        return self.returned is True

    def trace(self, killed):
        """The call as one line of the report; killed: the word for a call a SIGKILL cut short."""
        shown = f"fence={self.fence}, " if self.fence is not None else ""
        returned = repr(self.returned) if self.ended else killed
        return f"{self.worker}#{self.seq} {self.op}({self.job}, {self.owner}, {shown}now={self.now:.3f}) -> {returned} [pid {self.pid}]"


@dataclass
class Findings:
    operations: int = 0
    interrupted: int = 0
    torn_lines: int = 0
    counts: dict = field(default_factory=dict)  # op -> calls that ended
    fences: int = 0
    unlogged: int = 0
    stale_tried: int = 0
    stale_accepted: int = 0
    violations: list = field(default_factory=list)  # (job, key, values)

    def add(self, job, key, clause=None, **values):
        """One violation; values["clause"] is the contract clause it breaks (None: no single one)."""
        values["clause"] = clause if clause is not None else CLAUSES.get(key)
        self.violations.append((job, key, values))


def load(folder):
    """Every call in the logs under folder, and how many lines a kill left torn."""
    ops, torn = {}, 0
    for path in sorted(Path(folder).glob("*.jsonl")):
        text = path.read_text(encoding="utf-8", errors="replace")
        lines, tail = text.split("\n")[:-1], text.split("\n")[-1]
        torn += bool(tail)
        for line in lines:
            record = json.loads(line)
            key = (record["worker"], record["seq"])
            if record["phase"] == "begin":
                fields = ("worker", "owner", "pid", "seq", "op", "job", "fence", "now", "ttl", "result", "t0")
                ops[key] = Op(**{name: record[name] for name in fields})
            elif key in ops:
                ops[key].ended, ops[key].t0 = True, record["t0"]
                ops[key].returned, ops[key].error, ops[key].t1 = record["returned"], record["error"], record["t1"]
    return list(ops.values()), torn


def verify(ops, rows, found=None):
    """Check every invariant; rows: the database's jobs by id, read after the run."""
    found = Findings() if found is None else found
    by_job = defaultdict(list)
    for op in ops:
        by_job[op.job].append(op)
        found.operations += op.ended
        found.interrupted += not op.ended
        if op.ended:
            found.counts[op.op] = found.counts.get(op.op, 0) + 1
        if op.error:
            found.add(op.job, "v_raised", clause="C4.6" if op.op == "claim" else None, error=op.error, ops=[op])
    start = len(found.violations)
    for job, job_ops in sorted(by_job.items()):
        _fences(job, job_ops, rows.get(job), found)
        _writes(job, job_ops, found)
        _done(job, job_ops, found)
        _stored(job, job_ops, rows.get(job), found)
    _follow_from_the_fences(found.violations, start)
    for job, _, values in found.violations:
        values["before"] = writes_before(values.get("ops") or [], by_job.get(job, []))
    return found


def writes_before(shown, ops):
    """The last accepted writes to the job that ended before the latest call in shown began."""
    if not shown:
        return []
    culprit = max(shown, key=lambda o: o.t0)
    earlier = [o for o in ops if o.accepted and o.op != "enqueue" and o.t1 < culprit.t0 and o not in shown]
    return sorted(earlier, key=lambda o: o.t1)[-SHOWN_BEFORE:]


def _released_between(ops, one, other):
    """An accepted release of the job that ended between the two claims' ends (they may overlap):
    the second claim then got a fence that a release had set back, C7.2's and not the claim's."""
    low, high = sorted((one.t1, other.t1))
    return any(o.op == "release" and o.accepted and low < o.t1 < high for o in ops)


def _follow_from_the_fences(violations, start):
    """A fence handed out again makes an old token valid again: the stale writes it lets in, on
    the same job, break the clause the repeated fence broke, not the checks of the write itself."""
    broken = {}
    for job, key, values in violations[start:]:
        if key in FENCE_KEYS and values["clause"]:
            broken.setdefault(job, values["clause"])
    for job, key, values in violations[start:]:
        if key in FOLLOWING_KEYS and job in broken:
            values["clause"] = broken[job]


def _fences(job, ops, row, found):
    claims = sorted((o for o in ops if o.op == "claim" and o.accepted), key=lambda o: o.t0)
    found.fences += len(claims)
    given = defaultdict(list)
    for claim in claims:
        given[claim.returned].append(claim)
    for fence, holders in sorted(given.items()):
        if len(holders) > 1:
            clause = "C7.2" if _released_between(ops, holders[0], holders[-1]) else "C4.6"
            found.add(job, "v_fence_repeat", clause=clause, fence=fence, ops=holders)
    stored = row["fence"] if row else 0
    released = any(o.op == "release" and o.accepted for o in ops)
    for claim in claims:
        if not 1 <= claim.returned <= stored:
            found.add(
                job,
                "v_fence_lost",
                clause="C7.2" if released else None,
                fence=claim.returned,
                stored=stored,
                ops=[claim],
            )
        later = next((o for o in claims if o.t0 > claim.t1 and o.returned < claim.returned), None)
        if later:
            clause = "C7.2" if _released_between(ops, claim, later) else None
            found.add(job, "v_fence_down", clause=clause, fence=later.returned, ops=[claim, later])
    missing = sorted(set(range(1, stored + 1)) - set(given))
    killed = [o for o in ops if o.op == "claim" and not o.ended]
    if len(missing) > len(killed):
        found.add(job, "v_fence_gap", missing=", ".join(map(str, missing)), stored=stored, ops=killed)
    else:
        found.unlogged += len(missing)


def stale_reason(write, ops):
    """Why this write could not hold the current lease when it began, or None."""
    for claim in ops:
        if claim.op == "claim" and claim.accepted and claim.returned > write.fence and claim.t1 < write.t0:
            return "r_superseded", {"fence": claim.returned, "by": claim}
    for done in ops:
        if done.op == "complete" and done.accepted and done.t1 < write.t0:
            return "r_finished", {"by": done}
    if write.op == "release":
        return None
    until = None
    for own in sorted(ops, key=lambda o: o.seq):  # the worker's own claim and renews, in its order
        if own.worker == write.worker and own.seq < write.seq and own.accepted:
            if (own.op == "claim" and own.returned == write.fence) or (own.op == "renew" and own.fence == write.fence):
                until = own.now + own.ttl
    if until is not None and write.now >= until:
        return "r_expired", {"until": round(until, 6)}
    return None


def _writes(job, ops, found):
    for write in ops:
        if write.op in WRITES and write.ended and not write.error:
            reason = stale_reason(write, ops)
            if reason:
                found.stale_tried += 1
                if write.accepted:
                    found.stale_accepted += 1
                    key, values = reason
                    by = values.pop("by", None)
                    clause = STALE_CLAUSES.get((write.op, key))
                    found.add(
                        job, "v_stale_accepted", clause=clause, why=(key, values), ops=[write] + ([by] if by else [])
                    )


def _done(job, ops, found):
    completes = sorted((o for o in ops if o.op == "complete" and o.accepted), key=lambda o: o.t1)
    if not completes:
        return
    first = completes[0]
    for later in ops:
        if later is not first and later.accepted and later.op != "enqueue" and later.t0 > first.t1:
            found.add(job, "v_done_changed", clause=STALE_CLAUSES[(later.op, "r_finished")], ops=[first, later])


def _stored(job, ops, row, found):
    if row is None:
        return
    accepted = [o for o in ops if o.op == "complete" and o.accepted]
    if not row["done"]:
        if accepted:
            found.add(job, "v_result_lost", ops=accepted)
        return
    writer = next((o for o in ops if o.op == "complete" and o.result == row["result"]), None)
    if writer is None:
        found.add(job, "v_result_unknown", result=row["result"], ops=[])
    elif writer.ended and not writer.accepted:
        found.add(job, "v_result_refused", result=row["result"], ops=[writer])
    elif writer.ended and (reason := stale_reason(writer, ops)):
        found.add(
            job, "v_result_stale", clause=STALE_CLAUSES[("complete", reason[0])], result=row["result"], ops=[writer]
        )
