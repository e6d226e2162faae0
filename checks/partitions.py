"""The kinds of input and stored state each function's clauses tell apart, and the instrument that
counts which of them the checks reach.

Each step's rules file (rules.py) names in PARTITIONS each kind of its function with a test of
one call: its arguments after `path`, and the table just before it (id -> row, or None when the
file has no jobs table); the kinds shared by several functions are built here. Every kind must
be reached by the checks of that function's own step (tests/test_partitions.py runs them against
the reference with LEASE_LAB_PARTITIONS naming a file, and the `lease` fixture records every call
through `Recording`): counted from the calls made, never read from the checks' code.
"""

import json
import os
import sqlite3
from contextlib import closing

import rules
from model import COLUMNS, DEFAULTS

RECORD_VARIABLE = "LEASE_LAB_PARTITIONS"


def target(args, rows):
    """The stored row of the job a call names (its first argument after path), or None."""
    return (rows or {}).get(args[0]) if args else None


def _either_side(args, rows):
    """Stored ids sort below and above the one named: a match by a range finds the wrong row."""
    ids = rows or {}
    return any(i < args[0] for i in ids) and any(i > args[0] for i in ids)


def missing_between(args, rows):
    return args[0] not in (rows or {}) and _either_side(args, rows)


def at_defaults(args, rows):
    row = target(args, rows)
    return row is not None and all(row[c] == v for c, v in DEFAULTS.items())


def leased(args, rows):
    row = target(args, rows)
    return row is not None and row["owner"] is not None and not row["done"]


def _released(args, rows):
    row = target(args, rows)
    return row is not None and row["owner"] is None and row["fence"] > 0 and not row["done"]


def done(args, rows):
    row = target(args, rows)
    return row is not None and bool(row["done"])


def _when(compare):
    """now (the argument at `at`) against the stored until of a leased row."""

    def test(args, rows, at):
        return leased(args, rows) and compare(args[at], target(args, rows)["until"])

    return test


now_before, now_at, now_after = (
    _when(lambda now, until: now < until),
    _when(lambda now, until: now == until),
    _when(lambda now, until: now > until),
)


def _fence(kind):
    """The fence argument (after job and owner) against the stored one, the owner being the holder."""

    def test(args, rows):
        row = target(args, rows)
        if row is None or row["done"] or row["owner"] != args[1]:
            return False
        given, stored = args[2], row["fence"]
        return {
            "current": given == stored,
            "stale": 0 < given < stored,
            "future": given > stored,
            "zero": given == 0 and stored > 0,
        }[kind]

    return test


def _other_owner_same_fence(args, rows):
    row = target(args, rows)
    return leased(args, rows) and row["owner"] != args[1] and row["fence"] == args[2]


def _several_with_same_owner_and_fence(args, rows):
    """Another stored row, not done, holds the same owner and fence as the call names."""
    return target(args, rows) is not None and any(
        i != args[0] and r["owner"] == args[1] and r["fence"] == args[2] and not r["done"]
        for i, r in (rows or {}).items()
    )


def _no_owner_live(at):
    """A row with no owner whose until is still ahead of now: no one holds it, yet it is not free."""

    def test(args, rows):
        row = target(args, rows)
        return row is not None and row["owner"] is None and not row["done"] and row["until"] > args[at]

    return test


def clock(at):
    """now at the magnitudes a caller passes: a real clock's (seconds since 1970), and below zero."""
    return {
        "now at a real clock's magnitude": lambda args, rows: args[at] >= 1e9,
        "now below zero": lambda args, rows: args[at] < 0,
        "a row with no owner and a live until": _no_owner_live(at),
    }


def owner_none(args, rows):
    """owner=None named on a row with no owner: None matches no row."""
    row = target(args, rows)
    return args[1] is None and row is not None and row["owner"] is None


def ttl_refused(at):
    return lambda args, rows: args[at] <= 0


ROW_KINDS = {
    "missing id, stored ids on either side": missing_between,
    "row at its defaults": at_defaults,
    "leased row": leased,
    "released row (fence kept, no owner)": _released,
    "done row": done,
    "done row whose done is neither 0 nor 1": lambda args, rows: done(args, rows) and target(args, rows)["done"] != 1,
    "stored ids on either side of the target": lambda args, rows: (
        target(args, rows) is not None and _either_side(args, rows)
    ),
}
FENCES = {
    "current fence": _fence("current"),
    "stale fence (below the stored one)": _fence("stale"),
    "future fence (above the stored one)": _fence("future"),
    "fence 0 against an issued one": _fence("zero"),
    "another owner with the same fence": _other_owner_same_fence,
    "several jobs with the same owner and fence": _several_with_same_owner_and_fence,
}


def times(at):
    return {
        "now before until": lambda args, rows: now_before(args, rows, at),
        "now at until": lambda args, rows: now_at(args, rows, at),
        "now after until": lambda args, rows: now_after(args, rows, at),
    }


# A kind told apart by what happened between two calls at one path, not by one call's arguments
# and table: Recording compares the file at the path with the file the previous call left there.
# A step whose function tells it apart names it in its ACROSS_CALLS.
REPLACED = "the file at the path replaced since the previous call"


def partitions():
    """function -> {kind: its test of one call}, every step's, in the course's order."""
    return {function: own.PARTITIONS for function, own in rules.of_steps().items()}


def _across_calls(name):
    return getattr(rules.of(name), "ACROSS_CALLS", ())


def declared(name):
    """Every partition of `name`: those of one call, then those across calls."""
    return [*rules.of(name).PARTITIONS, *_across_calls(name)]


def reached(name, args, rows, replaced=False):
    """The partitions of `name` that one call with these arguments, on this table, is in."""
    across = [REPLACED] if replaced and REPLACED in _across_calls(name) else []
    return [kind for kind, test in rules.of(name).PARTITIONS.items() if test(args, rows)] + across


def _identity(path):
    """Which file is at the path (device and inode), or None when there is none."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def table(path):
    """The stored rows, id -> row, read without creating the file; None when there is no table."""
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)) as conn:
            return {r[0]: dict(zip(COLUMNS, r)) for r in conn.execute(f"SELECT {', '.join(COLUMNS)} FROM jobs")}
    except sqlite3.Error:
        return None


class Recording:
    """The module under test, with each call of its functions recorded (the check's step,
    the function, the partitions its arguments and the table before it are in) as a JSON line."""

    def __init__(self, module, step, record):
        self._module, self._step, self._record = module, step, record
        self._left = {}  # path -> the file the previous call left there

    def __getattr__(self, name):
        attribute = getattr(self._module, name)
        if name not in rules.of_steps():
            return attribute

        def recorded(path, *args):
            now_there = _identity(path)
            replaced = path in self._left and self._left[path] != now_there
            kinds = reached(name, args, table(path), replaced)
            with open(self._record, "a", encoding="utf-8") as out:
                out.write(json.dumps({"step": self._step, "function": name, "partitions": kinds}) + "\n")
            try:
                return attribute(path, *args)
            finally:
                self._left[path] = _identity(path)

        return recorded
