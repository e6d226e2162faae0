"""The contract's model, checks/model.py, applied to one call of a stress log on one job's row.

The checks run the code under test beside that model and compare after every call; the stress
judge (replay.py) does the same with the calls of its log, so the rule of each function is
written once, in its step's rules file (checks/rules_<NN>_<function>.py). A row here is a tuple
(owner, until, fence, result, done), or None when the job is not in the table.
"""

import importlib
import sys

from field.stress_log import is_fence
from lab.model.course import LAB_ROOT

CHECKS = LAB_ROOT / "checks"
COLUMNS = ("owner", "until", "fence", "result", "done")
DEFAULT = (None, 0.0, 0, None, 0)
ANY = "<not seen>"  # a column of an observed row that the read does not vouch for
TYPES = {
    "owner": (str, type(None)),
    "until": (int, float),
    "fence": (int,),
    "result": (str, type(None)),
    "done": (int,),
}


def _model():
    """checks/model.py, imported as the checks import it (checks/ on the path): each function's
    rule lives in its step's rules file, which the model collects through course.toml."""
    if str(CHECKS) not in sys.path:
        sys.path.insert(0, str(CHECKS))
    return importlib.import_module("model")


def expect(op, row):
    """What the contract says op must do on row: (the model's Expected, the row after it)."""
    table = _model().TableModel([] if row is None else [{"id": op.job, **dict(zip(COLUMNS, row))}])
    call = {
        "enqueue": lambda: table.enqueue(op.job),
        "state": lambda: table.state(op.job),
        "claim": lambda: table.claim(op.job, op.owner, op.now, op.ttl),
        "renew": lambda: table.renew(op.job, op.owner, op.fence, op.now, op.ttl),
        "complete": lambda: table.complete(op.job, op.owner, op.fence, op.now, op.result),
        "release": lambda: table.release(op.job, op.owner, op.fence),
        "claim_many": lambda: table.claim_many(op.job, op.owners, op.now, op.ttl),
    }[op.op]
    expected = call()
    after = _frozen(table.rows.get(op.job))
    if op.op == "claim_many" and after != row and after is not None:
        winner = _winner(op)  # the model stores owners[0]; the contract, the owner at the winning index
        after = (op.owners[winner] if winner is not None else after[0], *after[1:])
    return expected, after


def answered(op, expected):
    """Whether op's answer is the one expected (its exception, its value)."""
    if expected.raises is not None:
        return bool(op.error) and op.error.split(":", 1)[0] == expected.raises.__name__
    if op.error:
        return False
    got = op.returned
    if op.op == "claim_many":
        if not isinstance(got, list) or len(got) != len(op.owners):
            return False
        return [g for g in got if g is not None] == ([] if expected.value is None else [expected.value])
    if op.op == "state":
        return got is None if expected.value is None else _same_state(got, expected.value)
    if op.op == "claim":
        return got is None if expected.value is None else is_fence(got) and got == expected.value
    return got is expected.value


def followed(op, row):
    """The row after op as the store's own answer says it went (where the model was not followed)."""
    if op.error or not op.accepted:
        return row
    owner, until, fence, result, done = row or DEFAULT
    if op.op == "enqueue":
        return DEFAULT
    if op.op in ("claim", "claim_many"):
        won = op.returned if op.op == "claim" else max(r for r in op.returned if is_fence(r))
        winner = op.owner if op.op == "claim" else op.owners[op.returned.index(won)]
        return (winner, op.now + op.ttl, won, result, done)
    if op.op == "renew":
        return (owner, op.now + op.ttl, fence, result, done)
    if op.op == "complete":
        return (owner, until, fence, op.result, 1)
    if op.op == "release":
        return (None, 0.0, fence, result, done)
    return row


def differs(row, other):
    """The columns in which two rows differ (until to a part in 10^12: the same sum, stored as REAL);
    a column that either row holds as ANY is not compared."""
    if row is None or other is None:
        return [] if row is other else list(COLUMNS)
    return [
        name
        for name, mine, theirs in zip(COLUMNS, row, other)
        if not (mine == theirs or ANY in (mine, theirs) or name == "until" and _close(mine, theirs))
    ]


def merged(row, seen):
    """row, with every column seen vouches for taken from seen."""
    if seen is None or row is None or ANY not in seen:
        return seen
    return tuple(mine if theirs == ANY else theirs for mine, theirs in zip(row, seen))


def misfit(row):
    """The first column of a stored row whose type the table's schema does not allow, or None."""
    if row is None:
        return None
    return next((name for name, value in zip(COLUMNS, row) if not isinstance(value, TYPES[name])), None)


def _close(mine, theirs):
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (mine, theirs))
    return numbers and abs(mine - theirs) <= 1e-12 * max(1.0, abs(mine), abs(theirs))


def _same_state(got, want):
    if not isinstance(got, dict) or set(got) != set(want):
        return False
    return got["id"] == want["id"] and not differs(tuple(got[c] for c in COLUMNS), tuple(want[c] for c in COLUMNS))


def _winner(op):
    got = op.returned if isinstance(op.returned, list) else []
    winners = [i for i, r in enumerate(got) if is_fence(r)]
    return winners[0] if len(winners) == 1 else None


def _frozen(row):
    return None if row is None else tuple(row[c] for c in COLUMNS)
