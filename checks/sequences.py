"""Arbitrary tables and call sequences for the model-based checks, and the driver that runs a
sequence against the code under test beside the model of the contract (model.py).

A call is drawn as a name and a spec whose owner, fence and now are resolved against the
model's row at the moment of the call: the current fence, a stale one or one never issued; the
holder or another owner, whose name sorts before or after it; now at, before or after until.
Each function's call strategy, its arguments once resolved and its covering calls come from its
step's rules file (rules.py); here are the builders they use and another connection's writes.
"""

import sqlite3
from contextlib import closing
from typing import NamedTuple

import pytest
import rules
from hypothesis import example, given, settings
from hypothesis import strategies as st
from model import COLUMNS, TableModel
from support import describe, open_db, stated

from lab.api import ClauseBroken, Joined, NotImplementedYet, Phrase, load_course

EXAMPLES = 30  # per step: about a quarter of a second on the reference
# Step 1 has one function and a table of its own making: fewer examples reach all of it, and
# make check-step 1 stays under a second.
STEP_1_EXAMPLES = 6

TABLE_IDS = ("a", "c", "e")
# Ids between and beyond the stored ones, one in capitals and one with a LIKE wildcard: ids are
# compared exactly.
CALL_IDS = ("a", "b", "c", "e", "f", "C", "a%")
OWNERS = ("A", "B", "b", "zed")  # names that sort either way around each other
TIMES = (10.0, 5.0, 12.5, 0.0)  # the first is drawn most: a lease that runs past most nows
# Added to every stored until of a drawn table: the small numbers above, a real clock's (seconds
# since 1970, with a fraction) and below zero; the nows aimed at those untils follow them.
EPOCHS = (0.0, 0.0, 0.0, 1_733_400_000.25, -20.0)
# The covering example's untils at a real clock's magnitude; a row at its defaults or released
# keeps until 0, so a now aimed before it is below zero, on a row with no owner and a live until.
REAL_CLOCK = 1_733_400_000.25
INDENT = "\n          "

_owner = st.sampled_from(OWNERS)
_time = st.sampled_from(TIMES)
_fence = st.integers(1, 4)
# Rows of every kind, drawn by name from a list in which repeats weigh a kind: sampled_from
# draws its items about evenly, where one_of would not.
ROW_KINDS = {
    "leased": st.fixed_dictionaries({"owner": _owner, "until": _time, "fence": _fence}),
    "done": st.fixed_dictionaries(
        {"owner": _owner, "until": _time, "fence": _fence, "result": st.just("r0"), "done": st.just(1)}
    ),
    "never claimed": st.just({}),
    "released": st.fixed_dictionaries({"fence": _fence}),  # owner NULL, until 0, fence kept
    "anything": st.fixed_dictionaries(
        {
            "owner": st.none() | _owner,
            "until": _time,
            "fence": st.integers(0, 4),
            "result": st.none() | st.just("r0"),
            "done": st.integers(0, 1),
        }
    ),
}
ROWS = st.sampled_from(("leased",) * 4 + ("done",) * 2 + ("never claimed", "released", "anything")).flatmap(
    ROW_KINDS.get
)
# At least one live lease (most clauses are about one), beside rows of any kind. Rows are
# stored in a drawn order, not by id: a query that finds a row by a range instead of the exact
# id then meets a row that is not the one it wants.
TABLES = st.tuples(
    st.sampled_from(TABLE_IDS),
    ROW_KINDS["leased"],
    st.dictionaries(st.sampled_from(TABLE_IDS), ROWS, max_size=2),
    st.booleans(),
    st.sampled_from(EPOCHS),
).map(lambda drawn: _table(*drawn))


def _table(live_id, live_row, others, backwards, epoch=0.0):
    rows = {**others, live_id: {**live_row, "until": max(live_row["until"], 5.0)}}
    shifted = ({"id": k, **v, **({"until": v["until"] + epoch} if "until" in v else {})} for k, v in rows.items())
    return sorted(shifted, key=lambda r: r["id"], reverse=backwards)


# A job: mostly a stored one that holds a live lease, else any stored one (by its place in the
# table at the moment of the call), sometimes any id.
JOB = st.tuples(st.sampled_from(("live",) * 5 + ("stored",) * 3 + ("any id",) * 2), st.integers(0, len(CALL_IDS) - 1))
ANY_ID = st.tuples(st.just("any id"), st.integers(0, len(CALL_IDS) - 1))
# What the call aims at, one argument off at a time from "the holder's current lease, before
# it expires": each aim reaches one clause's edge, whatever the rows hold.
AIMS = {
    "current": ("holder", 0, "before"),
    "at expiry": ("holder", 0, "at"),
    "expired": ("holder", 0, "after"),
    "stale fence": ("holder", -1, "before"),
    "future fence": ("holder", +1, "before"),
    "no fence": ("holder", None, "before"),
    "owner sorting below": ("below", 0, "before"),
    "owner sorting above": ("above", 0, "before"),
    "no owner": (None, 0, "before"),
}
AIM = st.sampled_from(("current", "current", *AIMS))
TTL = st.sampled_from((5.0, 0.5, 5.0, 5.0, 0.5, 5.0, 5.0, 0.5, 0, -1.0))
WRITES = st.sampled_from(
    ({"owner": "B", "until": 30.0}, {"fence": 9}, {"done": 1, "result": "ext"}, {"owner": None, "until": 0.0})
)
INSERTS = st.fixed_dictionaries(
    {}, optional={"owner": _owner, "until": _time, "fence": _fence, "result": st.just("r0"), "done": st.just(1)}
)


def one_call(name, job=JOB, **specs):
    """The strategy of one call of `name`: (name, its spec), the job and each spec drawn."""
    return st.tuples(st.just(name), st.fixed_dictionaries({"job": job, **specs}))


# Another connection's writes, beside the calls of every step's function (its rules' CALL).
WRITE_CALLS = {
    "insert": one_call("insert", job=ANY_ID, columns=INSERTS),
    "update": one_call("update", columns=WRITES),
}


def call_strategies():
    """name -> the strategy of one call: another connection's writes, and every step's function."""
    return {**WRITE_CALLS, **{function: own.CALL for function, own in rules.of_steps().items()}}


# The table of the explicit example that reaches every partition of a step's own function
# (partitions.py) by construction, whatever the 30 drawn examples reach: a row at its defaults, two
# leases of the same owner and fence, a released row and a done one, ids on either side of the
# target and a missing id between stored ones. Each step's rules give the calls (COVERING): each
# aim (a stale, future and zero fence, another owner, now at and after until) on a lease with
# fence 2; the calls that change a row come last, and a refused ttl after them (its ValueError's
# words are the code's own, shown only when it is reached).
COVERING_TABLE = _table(
    "a",
    {"owner": "A", "until": 10.0, "fence": 2},
    {
        "C": {},
        "c": {"owner": "A", "until": 10.0, "fence": 2},
        "e": {"fence": 2},
        "f": {"owner": "B", "until": 10.0, "fence": 2, "result": "r0", "done": 2},  # any done but 0 is finished
    },
    False,
    REAL_CLOCK,
)


def covering_call(job_id, name, aim="current", **spec):
    """One call of a covering example, on the id named (its place in CALL_IDS)."""
    return (name, {"job": ("any id", CALL_IDS.index(job_id)), "aim": aim, **spec})


REFUSED_AIMS = ("stale fence", "future fence", "no fence", "owner sorting below", "owner sorting above", "no owner")
COVERING_ROWS = ("b", "C", "e", "f")  # missing between a and c, at its defaults, released, done


def calls(names, focus):
    """Sequences of calls to the named functions, the step's own function drawn four times as often."""
    weighted = [focus] * 4 + [name for name in names if name != focus]
    return st.lists(st.sampled_from(weighted).flatmap(call_strategies().get), min_size=4, max_size=12)


class Drawn(NamedTuple):
    """A drawn call's spec, resolved against the model at the moment of the call: what a step's
    rules make the call's arguments of (arguments(drawn))."""

    model: TableModel
    spec: dict
    job: str | None
    owner: str | None
    fence: int
    now: float
    serial: int  # the call's place in its sequence: a result written is f"r{serial}"


def arguments(model, name, spec, serial):
    """The call's arguments after `path`, with job, owner, fence and now resolved against the model."""
    job = _job(model, spec.get("job"))
    row = model.rows.get(job) or _neighbour(model, job)
    owner, fence, now = _aimed(row, *AIMS[spec.get("aim", "current")])
    if name in WRITE_CALLS:
        return (job, spec.get("columns"))
    return rules.of(name).arguments(Drawn(model, spec, job, owner, fence, now, serial))


def _job(model, choice):
    if choice is None:  # init_db names no job
        return None
    kind, place = choice
    if kind == "any id":
        return CALL_IDS[place]
    live = sorted(j for j, r in model.rows.items() if r["owner"] is not None and not r["done"])
    candidates = (live if kind == "live" and live else sorted(model.rows)) or list(CALL_IDS)
    return candidates[place % len(candidates)]


def _neighbour(model, job):
    """For an id that is not stored: the row whose id sorts next to it, so that the call carries
    a neighbour's owner and fence; a query that finds rows by a range instead of the exact id
    then answers for the neighbour."""
    above = sorted(j for j in model.rows if job is not None and j > job)
    below = sorted(j for j in model.rows if job is not None and j < job)
    nearest = above[:1] or below[-1:]
    return model.rows[nearest[0]] if nearest else {"owner": None, "fence": 1, "until": 10.0}


def _aimed(row, who, fence_offset, when):
    """(owner, fence, now) for an aim, against the row as it is stored now."""
    holder = row["owner"] or "A"
    others = [o for o in OWNERS if o != holder]
    if who is None:
        holder = None
    elif who == "below":
        holder = max((o for o in others if o < holder), default=others[0])
    elif who == "above":
        holder = min((o for o in others if o > holder), default=others[-1])
    fence = 0 if fence_offset is None else row["fence"] + fence_offset
    until = row["until"]
    now = {"before": until - 0.5, "at": until, "after": until + 0.5}[when]
    return holder, fence, now


class Sequence:
    """One run: a database seeded with `rows`, the model beside it, and the calls made so far."""

    def __init__(self, lease, db, rows, seed_table=True):
        self.lease, self.db, self.model = lease, db, TableModel(rows)
        self.history = []
        if seed_table:
            with closing(open_db(db)) as conn, conn:
                conn.executemany(
                    f"INSERT INTO jobs ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
                    [tuple(r[c] for c in COLUMNS) for r in self.model.rows.values()],
                )
            start = "; ".join(_row_text(r) for r in self.model.rows.values()) or Phrase("empty", "空")
            self.history.append(Phrase("the table: ", "最初のテーブル: ") + start)

    def run(self, calls):
        for serial, (name, spec) in enumerate(calls):
            args = arguments(self.model, name, spec, serial)
            if name in WRITE_CALLS:
                self._write(name, *args)
            else:
                self._call(name, args)

    def _call(self, name, args):
        expected = getattr(self.model, name)(*args)
        text = describe(name, (self.db, *args))
        try:
            got = getattr(self.lease, name)(self.db, *args)
        except NotImplementedError as error:
            raise NotImplementedYet(text) from error
        except Exception as error:  # noqa: BLE001 - compared with what the contract demands
            got = error
        self.history.append(f"{text} -> {_shown(got)}")
        answered = getattr(rules.of(name), "answered", None)
        if expected.raises:
            self.expect(isinstance(got, expected.raises), got, expected)
        elif answered:
            answered(self, got, args, expected)
        else:
            self.expect(same(got, expected.value), got, expected)
        self._compare_table(expected)

    def _write(self, name, job_id, columns):
        """What another connection does: insert a row naming some columns, or commit a change."""
        expected = getattr(self.model, name)(job_id, columns)
        names = list(columns)
        if name == "insert":
            sql = f"INSERT INTO jobs ({', '.join(['id', *names])}) VALUES ({', '.join('?' * (len(names) + 1))})"
            values = (job_id, *columns.values())
        else:
            sql = f"UPDATE jobs SET {', '.join(f'{c}=?' for c in names)} WHERE id=?"
            values = (*columns.values(), job_id)
        try:
            with closing(open_db(self.db, timeout=1)) as conn, conn:
                conn.execute(sql, values)
            got = None
        except sqlite3.IntegrityError as error:
            got = error
        shown = sql.replace("?", "{!r}").format(*values)
        self.history.append(Phrase("another connection: ", "別の接続: ") + f"{shown} -> {_shown(got)}")
        self.expect(isinstance(got, expected.raises) if expected.raises else got is None, got, expected)
        self._compare_table(expected)

    def _compare_table(self, expected):
        with closing(open_db(self.db, timeout=1)) as conn:
            stored = {
                r[0]: dict(zip(COLUMNS, r)) for r in conn.execute(f"SELECT {', '.join(COLUMNS)} FROM jobs ORDER BY id")
            }
        for job_id in sorted(set(stored) | set(self.model.rows)):
            got, want = stored.get(job_id), self.model.rows.get(job_id)
            if got != want:
                differing = {c for c in COLUMNS if (got or {}).get(c) != (want or {}).get(c)}
                clause = {expected.column_clauses.get(c, expected.clause) for c in differing}
                # words, not a string: the got line shows them unquoted, as the expected line beside it
                shown = Joined(_row_text(got)) if got else Phrase("no row ", "行なし ") + repr(job_id)
                wanted = Joined(_row_text(want)) if want else Phrase("no row ", "行なし ") + repr(job_id)
                self.expect(False, shown, expected, min(clause), stored_row=wanted)

    def expect(self, ok, got, expected, clause=None, stored_row=None):
        """Nothing, when ok; else the clause broken, with the calls so far and what was expected."""
        if ok:
            return
        clause = clause or expected.clause
        wanted = Phrase(expected.en, expected.ja)
        if stored_row is not None:
            wanted = Joined(Phrase("stored ", "保存される行 "), stored_row, " (", wanted, ")")
        called = Joined.join(INDENT, self.history)
        raise ClauseBroken(clause, stated(called, got, wanted + f" [{clause}]", expected.shown))


def same(got, want):
    """Equal, and of the contract's kind: True is not 1, and a fence is an int, not True."""
    if want is None or isinstance(want, bool):
        return got is want
    if isinstance(want, int):
        return isinstance(got, int) and not isinstance(got, bool) and got == want
    return isinstance(got, type(want)) and got == want


def _shown(value):
    return f"{type(value).__name__}: {value}" if isinstance(value, BaseException) else repr(value)


def _row_text(row):
    return f"{row['id']!r}: " + ", ".join(f"{c}={row[c]!r}" for c in COLUMNS[1:])


def model_check(step, *clauses):
    """The generated check of `step`: arbitrary tables, then calls to the functions of steps
    1..step (its own drawn most) and to another connection's writes, each compared with the model.

    Step 1 starts from a file without the table instead: init_db makes it, then rows are
    inserted and changed by another connection between further calls of init_db.
    """
    functions = [s.function for s in load_course()[:step]]
    # Hypothesis derives a derandomized check's seed from its source, decorators included: the
    # examples below read as they always have, so that each check draws the examples it always drew.
    if step == 1:
        # init_db on an empty table, then on one with a row, before the drawn calls begin.
        @example(script=[("init_db", {}), ("insert", {"job": ("any id", 0), "columns": {}}), ("init_db", {})])
        @given(script=calls([*functions, "insert", "update"], "insert"))
        def check(lease, new_db, script):
            Sequence(lease, new_db(with_table=False), [], seed_table=False).run([("init_db", {}), *script])
    else:
        COVERING = {functions[-1]: rules.of(functions[-1]).COVERING}  # the name the decorator has always read

        @example(rows=COVERING_TABLE, script=COVERING[functions[-1]])
        @given(rows=TABLES, script=calls([*functions, "update"], functions[-1]))
        def check(lease, new_db, rows, script):
            Sequence(lease, new_db(), rows).run(script)

    return pytest.mark.clause(*clauses)(settings(max_examples=STEP_1_EXAMPLES if step == 1 else EXAMPLES)(check))
