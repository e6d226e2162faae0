"""After a stress run: what the logs and the database say, checked against the contract.

Three lenses, each on what the log can prove (t0/t1 on one monotonic clock for every process,
so "A ended before B began" is a fact; calls that overlap may have run in either order):

- faults (faults.py): a call that raised or answered with nonsense is a fault of the store, not a
  broken promise, except where the contract names the exception;
- the fences of each job, as a whole: the fences handed out are 1..F (F the stored fence) with no
  repeat, and none is handed out after a higher one had been. A repeat between claims that
  overlapped is the race clause's (C4.6); between claims one after the other, the claim's own
  (C4.5), or release's (C7.2) when an accepted release came between. A claim killed between its
  COMMIT and its log line, or one that raised after its COMMIT (claim_many's other threads may
  have stored theirs), would hand out a fence nobody logged: a missing fence is accepted only
  while there are at least as many claims of that job cut short by a kill or that raised; they
  are counted as `unlogged`. (The kills of this run land before COMMIT.)
- every call (replay.py): each job's calls replayed through the contract's model in every order
  the log allows; a call no order explains is named under the clause the model decides it by;
- the stored result, read after the run: written by an accepted completion that was not itself
  a violation; a job completed by an accepted call must be stored as done.

Each violation names the contract clause it breaks and carries the last accepted writes to its
job before the call that broke it.
"""

from collections import defaultdict
from dataclasses import dataclass, field

from field import contract, faults, replay
from field.recovery import WHOLE_DB
from field.stress_log import Op, is_fence, load

__all__ = ["Findings", "Op", "load", "verify", "writes_before"]

CLAIMS = ("claim", "claim_many")
FENCE_KEYS = ("v_fence_repeat", "v_fence_lost", "v_fence_down")
FOLLOWING_KEYS = (
    "v_stale_accepted",
    "v_result_stale",
    "v_done_changed",
    "v_stored",
    "v_answer",
    "v_refused",
    "v_live_taken",
)
SHOWN_BEFORE = 3  # accepted writes shown before the call that broke the contract
# The clause a violation breaks, where its kind decides it; the replay names the clause of each
# call it blames. The database as a whole (integrity, locks, a journal, a half-written row)
# breaks the rule above the clauses: each write is one transaction.
CLAUSES = {
    "v_fence_repeat": "C4.6",
    "v_fence_lost": "C4.5",
    "v_fence_down": "C4.5",
    "v_fence_gap": "C4.5",
    "v_result_lost": "C6.1",
    "v_result_unknown": "C6.1",
    "v_result_refused": "C6.1",
    "v_not_claimable": "C4.5",
    "v_table_shrank": "C1.3",
}


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
    judged: int = 0  # calls the replay judged against the model
    undecided: int = 0  # calls it left undecided (too many at once)
    violations: list = field(default_factory=list)  # (job, key, values)
    faults: list = field(default_factory=list)  # (job, key, values): the store failed, no verdict

    def add(self, job, key, clause=None, **values):
        """One violation; values["clause"] is the contract clause it breaks (None: no single one)."""
        values["clause"] = clause if clause is not None else CLAUSES.get(key)
        self.violations.append((job, key, values))

    def fault(self, job, key, **values):
        """One fault of the store: a call that raised or answered nonsense, a row of the wrong type."""
        values.setdefault("ops", [])
        self.faults.append((job, key, values))


def verify(ops, rows, found=None, enqueued=None):
    """Check every property; rows: the database's jobs by id, read after the run. enqueued: the
    jobs in the table before any logged call (None: every job whose first call is not an enqueue)."""
    found = Findings() if found is None else found
    by_job = defaultdict(list)
    for op in ops:
        by_job[op.job].append(op)
        found.operations += op.ended
        found.interrupted += not op.ended
        if op.ended:
            found.counts[op.op] = found.counts.get(op.op, 0) + 1
    faults.sort_out(ops, found, WHOLE_DB)
    _table_kept(ops, found)
    misfits = _misfits(rows, found)  # rows of the wrong type: faults, and nothing to judge against
    jobs = sorted((job, job_ops) for job, job_ops in by_job.items() if job is not None and job not in misfits)
    start = len(found.violations)
    for job, job_ops in jobs:
        _fences(job, job_ops, rows.get(job), found)
    judged = replay.Replay()
    named = {id(op) for _, _, values in found.violations for op in values.get("ops") or []}
    for job, job_ops in jobs:
        first = min(job_ops, key=lambda op: op.t0)
        before = job in enqueued if enqueued is not None else first.op != "enqueue"
        replay.replay(job, job_ops, contract.DEFAULT if before else None, found, named, judged)
    found.judged, found.undecided = judged.judged, judged.undecided
    found.stale_tried, found.stale_accepted = judged.refused_writes, judged.accepted_writes
    for job, job_ops in jobs:
        _stored(job, job_ops, rows.get(job), judged.blamed, found)
    _follow_from_the_fences(found.violations, start)
    for job, _, values in [*found.violations, *found.faults]:
        values["before"] = writes_before(values.get("ops") or [], by_job.get(job, []))
    return found


def writes_before(shown, ops):
    """The last accepted writes to the job that ended before the latest call in shown began."""
    if not shown:
        return []
    culprit = max(shown, key=lambda o: o.t0)
    earlier = [o for o in ops if o.accepted and o.op != "enqueue" and o.t1 < culprit.t0 and o not in shown]
    return sorted(earlier, key=lambda o: o.t1)[-SHOWN_BEFORE:]


def _misfits(rows, found):
    """The ids whose stored row holds a value of a type the table's schema does not allow: faults."""
    misfits = set()
    for job, row in sorted(rows.items()):
        column = (
            contract.misfit(tuple(row.get(c) for c in contract.COLUMNS)) if set(contract.COLUMNS) <= set(row) else None
        )
        if column:
            misfits.add(job)
            found.fault(job, "f_row", column=column, value=repr(row[column]), kind=type(row[column]).__name__)
    return misfits


def _table_kept(ops, found):
    """init_db called again keeps every row: the table's rows and done jobs never become fewer (C1.3)."""
    for op in ops:
        if op.op == "init_db" and op.ended and not op.error and op.seen and isinstance(op.observed, dict):
            after = op.observed.get("table")
            if after and any(later < earlier for earlier, later in zip(op.seen, after)):
                found.add(WHOLE_DB, "v_table_shrank", before=op.seen, after=after, ops=[op])


def _released_between(ops, one, other, fence):
    """An accepted release of fence or a later one, begun after the earlier claim began and ended
    before the later one began: a release that set the fence back would let the later claim have
    fence again, C7.2's and not the claim's."""
    first, second = sorted((one, other), key=lambda o: o.t0)
    return any(
        o.op == "release" and o.accepted and _number(o.fence) >= fence and first.t0 < o.t0 and o.t1 < second.t0
        for o in ops
    )


def _number(value):
    return value if is_fence(value) else -1


def _follow_from_the_fences(violations, start):
    """A fence handed out again makes an old token valid again, and the replay follows a history the
    contract cannot have: what goes wrong on the same job from then on breaks the clause the
    repeated fence broke, not the checks of the later calls themselves."""
    broken = {}
    for job, key, values in violations[start:]:
        if key in FENCE_KEYS and values["clause"]:
            since = min(op.t0 for op in values["ops"])
            if since < broken.get(job, (float("inf"), None))[0]:
                broken[job] = (since, values["clause"])
    for job, key, values in violations[start:]:
        if key in FOLLOWING_KEYS and job in broken and min(op.t0 for op in values["ops"] or [0]) >= broken[job][0]:
            values["clause"] = broken[job][1]


def _repeat_clause(ops, holders, fence):
    """A fence that went to several claims: release's when a release of that fence or a later one
    came between two of them; the race clause when two of them raced (no order of the two lets both
    win: they overlapped in time, and each began before the other's lease, as the contract stores
    it, ran out); else the claim's own (C4.5): one after the other, the later should have got the
    next fence."""
    if any(_released_between(ops, a, b, fence) for a, b in zip(holders, holders[1:])):
        return "C7.2"
    if any(_raced(a, b) for i, a in enumerate(holders) for b in holders[i + 1 :]):
        return "C8.2" if any(h.op == "claim_many" for h in holders) else "C4.6"
    return "C4.5"


def _raced(one, other):
    overlapped = one.t0 < other.t1 and other.t0 < one.t1
    return overlapped and other.now < one.now + one.ttl and one.now < other.now + other.ttl


def _fences(job, ops, row, found):
    claims = sorted((o for o in ops if o.op in CLAIMS and o.accepted and not faults.nonsense(o)), key=lambda o: o.t0)
    given = defaultdict(list)
    for claim in claims:
        for fence in _fences_of(claim):
            given[fence].append(claim)
    found.fences += sum(len(holders) for holders in given.values())
    for fence, holders in sorted(given.items()):
        if len(holders) > 1:
            found.add(job, "v_fence_repeat", clause=_repeat_clause(ops, holders, fence), fence=fence, ops=holders)
    stored = row["fence"] if row else 0
    set_back = any(o.op == "release" and o.accepted and _left_lower(o) for o in ops)
    for claim in claims:
        for fence in _fences_of(claim):
            if not 1 <= fence <= stored:
                clause = "C7.2" if set_back else None
                found.add(job, "v_fence_lost", clause=clause, fence=fence, stored=stored, ops=[claim])
        later = next((o for o in claims if o.t0 > claim.t1 and max(_fences_of(o)) < max(_fences_of(claim))), None)
        if later:
            clause = "C7.2" if _released_between(ops, claim, later, max(_fences_of(later))) else None
            found.add(job, "v_fence_down", clause=clause, fence=max(_fences_of(later)), ops=[claim, later])
    missing = sorted(set(range(1, stored + 1)) - set(given))
    killed = [o for o in ops if o.op in CLAIMS and (not o.ended or o.error)]  # cut short, or raised midway
    if len(missing) > len(killed):
        found.add(job, "v_fence_gap", missing=", ".join(map(str, missing)), stored=stored, ops=killed)
    else:
        found.unlogged += len(missing)


def _left_lower(release):
    """Whether the row read right after this release held a lower fence than the one it released."""
    row = (release.observed or {}).get("row")
    return bool(row) and is_fence(row[2]) and is_fence(release.fence) and row[2] < release.fence


def _fences_of(claim):
    """The fences one accepted claim handed out (claim_many: every fence in its answer)."""
    return [claim.returned] if claim.op == "claim" else [r for r in claim.returned if is_fence(r)]


def _stored(job, ops, row, blamed, found):
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
    elif writer.ended and not writer.accepted and not writer.error:
        found.add(job, "v_result_refused", result=row["result"], ops=[writer])
    elif id(writer) in blamed:
        found.add(job, "v_result_stale", clause=blamed[id(writer)], result=row["result"], ops=[writer])
