"""Each job's calls replayed through the contract's model (contract.py), in every order the log allows.

What the log proves. t0 is read before a call and t1 after it, on one monotonic clock for every
process, so a call that ended before another began took effect before it; calls that overlap
may have taken effect in either order. Each call carries its own `now`, so the model decides
every call from the row before it and its own arguments. The row a worker read right after its
call (stress_log.py) is the row that call left when no other call that may write the job
(accepted, cut short by a kill, or raising) overlapped the two; and whatever overlapped, a row
that shows a claim's owner and fence shows the until that claim stored (only its holder could
have renewed it since, and the holder had not made its next call yet).

So a job's calls are cut into clusters, the calls that overlap one another. Between clusters the
order is known. Within one, every order that keeps the real-time order is tried (a search over
the calls placed so far and the row they left, small because a cluster is small: the claims of
one race round, a holder's call overlapping a claim), from every row the clusters before could
have left. A store is consistent with the contract when some order gives every call the model's
answer and every observed row. Every promise is judged this way, each where the model decides it:

- one live holder at a time: a claim while until > now must give None (C4.4); claim_many too (C8.1);
- fences grow by one: a claim of an expired, released or new job returns the old fence + 1 and
  stores until = now + ttl (C4.5); release keeps the fence (C7.2, seen in the row after it);
- only the current holder writes: renew, complete and release are refused for another owner, another
  fence (C5.4, C6.3, C7.3), at or after until (C5.3, C6.2), on a done job (C5.5, C6.4, C7.4);
- what must succeed does: a claim at now == until wins (C4.5), the holder's renew and complete before
  until are accepted (C5.2, C6.1), its release too (C7.1), one claim_many owner wins (C8.2);
- ttl <= 0 raises ValueError and stores nothing (C4.1, C5.1, C8.3); enqueue (C2.1-C2.3), state (C3.1, C3.2).

When no order fits, the calls to blame are the fewest that, taken as the store answered them (and
as their observed rows show), let every other call fit: each is named under the clause by which
the model decides it from the row before it. The replay then goes on from there, so that one
broken call is reported once, not with every call after it.

What stays undecided, and is counted, not judged: a cluster of more than MOST_CALLS calls, one
whose orders take more than MOST_STEPS steps to try, or one that needs more than MOST_BLAMED
calls to blame; the job's calls after it, until a call whose observed row gives the row back. A
call a kill cut short stored nothing: the kill lands before its COMMIT (stress_worker.py). A call
that raised or answered nonsense (faults.py) is not judged, and may have stored what the contract
says, or nothing, unless its observed row tells.
"""

from dataclasses import dataclass, field, replace

from field import contract, faults
from field.stress_log import is_fence

MOST_CALLS = 24
MOST_STEPS = 50_000
MOST_STATES = 16
MOST_BLAMED = 6  # calls blamed in one cluster; a cluster that needs more is left undecided
WRITES = ("renew", "complete", "release")


class Undecided(Exception):
    """Too many orders to try."""


@dataclass
class Replay:
    """What the replay of every job found: its violations go to the run's Findings."""

    judged: int = 0
    undecided: int = 0
    refused_writes: int = 0  # renew, complete and release calls the contract refuses (stale, foreign, late)
    accepted_writes: int = 0  # of those, the ones the store accepted
    blamed: dict = field(default_factory=dict)  # id(op) -> the clause it was named under


def replay(job, ops, start, found, named, result=None):
    """Judge one job's calls (sorted by t0 here); start: its row before the run (None: not enqueued).
    named: ids of calls a violation already names (reported once). Returns the Replay."""
    result = result or Replay()
    ops = sorted((part for op in ops if op.op != "init_db" for part in _parts(op)), key=lambda op: op.t0)
    states = {start}
    for cluster in _clusters(ops):
        if states is None:  # the row is unknown: wait for a call that shows it
            result.undecided += len(cluster)
            states = _seen_after(cluster, ops)
            continue
        try:
            states = _judge(cluster, states, ops, found, named, result, job)
        except Undecided:
            result.undecided += len(cluster)
            states = _seen_after(cluster, ops)
        if states is not None and len(states) > MOST_STATES:
            states = None
    return result


def _parts(op):
    """claim_many as the claims it makes, one per owner: each may take effect at its own moment
    between the call's t0 and t1 (another process may claim between two of them)."""
    if op.op != "claim_many" or not op.ended or faults.unjudged(op) or faults.asked_to_raise(op) or not op.owners:
        return [op]
    return [
        replace(op, op="claim", owner=owner, returned=got, owners=None, whole=op)
        for owner, got in zip(op.owners, op.returned)
    ]


def _clusters(ops):
    cluster, end = [], None
    for op in ops:
        if cluster and op.t0 > end:
            yield cluster
            cluster = []
        end = op.end if not cluster else max(end, op.end)
        cluster.append(op)
    if cluster:
        yield cluster


def _seen_after(cluster, ops):
    row = _observed(cluster[-1], ops)
    return None if len(cluster) > 1 or row is False or row is not None and contract.ANY in row else {row}


def _observed(op, ops):
    """The row op left, as its worker read it, when nothing else could have written the job meanwhile;
    of a claim that the row shows as the holder, its owner, until and fence whatever ran meanwhile
    (only that holder may renew them: contract.ANY for the others); False when the read does not tell."""
    seen = op.observed
    if not op.ended or not isinstance(seen, dict) or "row" not in seen:
        return False
    row = None if seen["row"] is None else tuple(seen["row"])
    if contract.misfit(row):
        return False
    for other in ops:
        if other is not op and _may_write(other) and other.t0 <= op.t2 and other.end >= op.t0:
            return _held(op, row)
    return row


def _held(op, row):
    if (
        row is None
        or op.op != "claim"
        or not op.accepted
        or faults.unjudged(op)
        or (row[0], row[2]) != (op.owner, op.returned)
    ):
        return False
    return (row[0], row[1], row[2], contract.ANY, contract.ANY)


def _bound(op):
    """(fence, done) of the row read after op: neither ever goes down in a store that keeps the
    contract, so the row at op's own moment held no more of either; None when there is no such read."""
    seen = op.observed
    if not op.ended or not isinstance(seen, dict) or not seen.get("row") or contract.misfit(tuple(seen["row"])):
        return None
    return seen["row"][2], seen["row"][4]


def _may_write(op):
    return not op.ended or bool(op.error) or op.accepted


class _Orders:
    """Every order of one cluster's calls that keeps real time, in which each call gives the model's
    answer, but for at most `budget` calls taken as the store answered (the calls to blame); the
    steps tried count against MOST_STEPS whatever the budget."""

    def __init__(self, cluster, ops):
        self.ops, self.full = cluster, (1 << len(cluster)) - 1
        self.before = [sum(1 << j for j, o in enumerate(cluster) if o.ended and o.t1 < op.t0) for op in cluster]
        self.seen = [_observed(op, ops) for op in cluster]
        self.bounds = [_bound(op) for op in cluster]
        self.memo, self.cache, self.steps = {}, {}, 0

    def moves(self, i, row, budget):
        """(the row after call i, whether it was taken as the store answered) for each way it may go."""
        if (i, row) not in self.cache:
            bound = self.bounds[i]
            fits, blamed = self._moves(i, row)
            if bound is not None:
                fits, blamed = ([m for m in moves if _under(m[0], bound)] for moves in (fits, blamed))
            self.cache[i, row] = fits, blamed
        fits, blamed = self.cache[i, row]
        return fits + (blamed if budget else [])

    def _moves(self, i, row):
        op, seen = self.ops[i], self.seen[i]
        if not op.ended:  # a kill lands before COMMIT: the call stored nothing
            return [(row, False)], []
        if faults.unjudged(op):  # it raised or answered nonsense: it stored what it says nothing about
            if seen is not False:
                return [(contract.merged(row, seen), False)], []
            expected, after = contract.expect(op, row)
            if expected.raises or after == row:
                return [(row, False)], []
            owners = op.owners if op.op == "claim_many" else [after[0]]
            return [(row, False)] + [((owner, *after[1:]), False) for owner in owners], []
        expected, after = contract.expect(op, row)
        if contract.answered(op, expected) and (seen is False or not contract.differs(after, seen)):
            return [(after, False)], []
        followed = contract.followed(op, row)
        return [], [(followed if seen is False else contract.merged(followed, seen), True)]

    def ends(self, placed, row, budget):
        key = (placed, row, budget)
        if key not in self.memo:
            self.steps += 1
            if self.steps > MOST_STEPS:
                raise Undecided
            if placed == self.full:
                self.memo[key] = frozenset([row])
            else:
                found = set()
                for i in self._ready(placed):
                    for after, blamed in self.moves(i, row, budget):
                        found |= self.ends(placed | 1 << i, after, budget - blamed)
                self.memo[key] = frozenset(found)
        return self.memo[key]

    def _ready(self, placed):
        return [i for i in range(len(self.ops)) if not placed >> i & 1 and not self.before[i] & ~placed]

    def all_ends(self, states, budget):
        return set().union(*(self.ends(0, row, budget) for row in states))

    def path(self, states, budget):
        """One order that fits, as (index, the row before it, whether it is to blame)."""
        row = next(s for s in states if self.ends(0, s, budget))
        placed, steps = 0, []
        while placed != self.full:
            i, after, blamed = next(
                (i, after, blamed)
                for i in self._ready(placed)
                for after, blamed in self.moves(i, row, budget)
                if self.ends(placed | 1 << i, after, budget - blamed)
            )
            steps.append((i, row, blamed))
            placed, row, budget = placed | 1 << i, after, budget - blamed
        return steps


def _under(row, bound):
    return row is None or row[2] <= bound[0] and row[4] <= bound[1]


def _judge(cluster, states, ops, found, named, result, job):
    """The rows the cluster may leave; the calls to blame, where no order fits, go to found."""
    if len(cluster) > MOST_CALLS:
        raise Undecided
    orders = _Orders(cluster, ops)
    for budget in range(MOST_BLAMED + 1):  # the fewest calls that, taken as the store answered, let the rest fit
        ends = orders.all_ends(states, budget)
        if ends:
            path = orders.path(states, budget)
            for i, row, blamed in path:
                if blamed:
                    _blame(cluster[i], row, orders.seen[i], found, named, result, job)
            _count(orders, path, result)
            return ends
    raise Undecided


def _count(orders, path, result):
    for i, row, blamed in path:
        op = orders.ops[i]
        result.judged += op.ended and not faults.unjudged(op) and (op.whole is None or op.owner == op.whole.owners[0])
        if not blamed and op.op in WRITES and op.ended and not faults.unjudged(op):
            result.refused_writes += contract.expect(op, row)[0].value is False


def _blame(op, row, seen, found, named, result, job):
    """Name op, taken as the store answered it from row, under the clause the model decides it by;
    one owner's claim inside a claim_many is named as claim_many[index] under C8.1 or C8.2."""
    expected, after = contract.expect(op, row)
    if op.op in WRITES and expected.value is False:
        result.refused_writes += 1
        result.accepted_writes += op.accepted
    whole = op.whole or op
    if id(whole) in named:
        return
    said = {"en": expected.en, "ja": expected.ja}
    columns = contract.differs(after, seen) if seen is not False else []
    if contract.answered(op, expected) and columns:  # the answer fits; the row it left does not
        clause = expected.column_clauses.get(columns[0], expected.clause)
        if op.whole is not None:  # claim_many passes now and ttl to claim (C8.3): the until is claim's
            clause = "C4.5" if columns[0] == "until" else "C8.2"
        cells = {"stored": _cell(seen, columns[0]), "wanted": _cell(after, columns[0])}
        found.add(job, "v_stored", clause=clause, column=columns[0], **cells, expected=said, ops=[whole])
    else:
        clause, function = expected.clause, op.op
        if op.whole is not None:
            clause = "C8.1" if expected.value is None else "C8.2"
            function = f"claim_many[{op.whole.owners.index(op.owner)}]"
        got = op.error or repr(op.returned)
        found.add(job, _kind(op, expected), clause=clause, function=function, got=got, expected=said, ops=[whole])
    result.blamed[id(whole)] = clause


def _cell(row, column):
    return "-" if row is None else repr(row[contract.COLUMNS.index(column)])


def _kind(op, expected):
    if expected.raises:
        return "v_no_error"
    if op.op in WRITES and op.accepted and expected.value is False:
        return "v_stale_accepted"
    if op.op in ("claim", "claim_many") and op.accepted and expected.value is None:
        return {"C4.3": "v_done_changed", "C4.4": "v_live_taken", "C8.1": "v_live_taken"}.get(
            expected.clause, "v_answer"
        )
    succeeds = expected.value is True or is_fence(expected.value)
    if succeeds and not op.accepted and op.returned in (False, None, [None] * len(op.owners or [None])):
        return "v_refused"
    return "v_answer"
