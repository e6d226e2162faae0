"""Helpers of the step checks: arrange and observe rows with plain sqlite3, call the code under test,
and state a failure as "called …; got …; expected …": facts (lab/model/results.py) that the
reporters word in the learner's language."""

import os
import sqlite3
import stat
import subprocess
import sys
from contextlib import closing, contextmanager

from hypothesis import strategies as st

from lab.api import CallRaised, Joined, NotImplementedYet, Phrase, Words, alone, load_course, shown

COLUMNS = ("id", "owner", "until", "fence", "result", "done")
DEFAULT_ROW = {"owner": None, "until": 0, "fence": 0, "result": None, "done": 0}
# Every ttl the contract refuses: zero and below, as integers and as floats.
NON_POSITIVE_TTLS = st.one_of(st.integers(-1000, 0), st.floats(-1e6, 0.0, allow_nan=False))
PARAMETERS = {step.function: step.parameters for step in load_course()}  # course.toml's signatures


def open_db(db, **options):
    """sqlite3.connect to a database the checks made, in its folder of its own: the folder and the
    file are looked at first (lstat), and a link or anything but a regular file there is refused.
    The learner's code can write that folder; the checks never follow what it plants there."""
    for place, kind in ((os.path.dirname(db), stat.S_ISDIR), (db, stat.S_ISREG)):
        try:
            mode = os.lstat(place).st_mode
        except FileNotFoundError:  # a file the code under test removed is made anew, as SQLite does
            continue
        if not kind(mode):
            raise AssertionError(Words("checks.db_not_a_file", path=os.path.basename(place)))
    return sqlite3.connect(db, **options)


def seed(db, job_id, **columns):
    """Insert one job row directly, with the given columns and the table's defaults for the rest."""
    names = ["id", *columns]
    with closing(open_db(db)) as conn, conn:
        conn.execute(
            f"INSERT INTO jobs ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
            (job_id, *columns.values()),
        )


def row(db, job_id):
    """The stored row as a dict, read through a connection of the check's own, or None."""
    with closing(open_db(db, timeout=1)) as conn:
        found = conn.execute(f"SELECT {', '.join(COLUMNS)} FROM jobs WHERE id=?", (job_id,)).fetchone()
    return dict(zip(COLUMNS, found)) if found else None


def count_rows(db):
    with closing(open_db(db, timeout=1)) as conn:
        return conn.execute("SELECT count(*) FROM jobs").fetchone()[0]


def counted_rows(db):
    """'2 rows': how many rows the table holds, in the learner's language."""
    return Words("checks.rows", count=count_rows(db))


def describe(name, args):
    """claim(db, job_id='job', owner='B', now=10, ttl=5): the call as a learner would read it."""
    parts = [
        "db" if parameter == "path" else f"{parameter}={value!r}" for parameter, value in zip(PARAMETERS[name], args)
    ]
    return f"{name}({', '.join(parts)})"


def call(lease, name, *args):
    """Call the function under test; return (result, description of the call).

    Whatever it raises comes back as CallRaised, which names the call, so that the report says
    which call blew up; SystemExit and KeyboardInterrupt included, so the run goes on.
    """
    text = describe(name, args)
    try:
        return getattr(lease, name)(*args), text
    except BaseException as error:
        if type(error).__name__ == "CheckTimeout":
            raise
        if isinstance(error, NotImplementedError):
            raise NotImplementedYet(text) from error
        raise CallRaised(text, error) from error


def raised(lease, name, *args):
    """Call the function under test and return (the exception it raised or None, description)."""
    text = describe(name, args)
    try:
        result = getattr(lease, name)(*args)
    except Exception as error:
        if isinstance(error, NotImplementedError):
            raise NotImplementedYet(text) from error
        return error, text
    return result, text


def words(en, ja):
    """A short phrase of a check's own, in every language of the lab."""
    return Phrase(en, ja)


def then(first, second):
    """'claim(...), then state(...)': two steps of a call sequence."""
    return Words("checks.then", first=first, second=second)


def on(called, stored):
    """'claim(...) on {row}': a call made on a stored row."""
    return Words("checks.on", called=called, stored=stored)


NOTHING = object()  # no value named: the expected text says what the contract expects


def explain(called, got, en, ja, want=NOTHING):
    """The failure message: what was called, what came back, what the contract expects.

    want: the value en and ja show first, when they show one: where it and what came back are
    lists, tuples or dicts, the report lists the items that differ (lab/reporters/diff.py)."""
    return stated(called, got, Phrase(en, ja), want)


def stated(called, got, expected, want=NOTHING):
    """explain() with what the contract expects as facts of its own (a Text). The values are
    shown as their reprs, with any phrase inside them worded in the learner's language and any
    exception as what was raised; a got that is itself words (what changed in a row) is said
    unquoted, as the expected words beside it are."""
    wanted = {} if want is NOTHING else {"want": shown(want)}
    return Words("checks.explain", called=called, got=alone(got), expected=expected, **wanted)


MISSING = object()  # past the end of a list


def first_difference(got, allowed):
    """'first difference, at index 2' and the got and expected lines of that index: the first index
    where the list got holds a value that allowed (a list of the values each index may hold) does
    not name; "" when there is none, or got is not a list. Added after an explain() of a list of
    results (explain(...) + first_difference(got, allowed)), for a check that names no want."""
    if not isinstance(got, list | tuple):
        return ""
    for index in range(max(len(got), len(allowed))):
        have = got[index] if index < len(got) else MISSING
        may = allowed[index] if index < len(allowed) else []
        if not any(_same(have, value) for value in may):
            expected = Joined.join(Words("checks.or"), map(shown, may)) if may else Words("checks.nothing")
            have = Words("checks.nothing") if have is MISSING else shown(have)
            return Joined("\n", Words("checks.first_difference", index=index, got=have, expected=expected))
    return ""


def one_winner(got, fence, count):
    """What each of `count` racers' results may be when exactly one wins `fence` and the others get
    None: the first `fence` in got is the winner; before it, `fence` or None; after it, None."""
    won = next((at for at, value in enumerate(got) if _same(value, fence)), count) if isinstance(got, list) else count
    return [[fence, None]] * min(won, count) + [[fence]] * (won < count) + [[None]] * (count - won - 1)


def _same(got, value):
    """Equal and of the same type: True is not the fence 1."""
    return type(got) is type(value) and got == value


def racing(called, racers, attempt, across="threads"):
    """'claim(...) from 8 threads at once [...] (round 1, writes slowed down)': a call made by
    several racers at the same moment (across "threads" or "processes")."""
    return Words(f"checks.racing_{across}", called=called, count=len(racers), racers=str(racers), round=attempt + 1)


def slowed(called, attempt):
    """'claim_many(...) (round 1, writes slowed down)': one round of a call repeated with slowed writes."""
    return Words("checks.slowed_round", called=called, round=attempt + 1)


def changes(before, after):
    """'fence 2 -> 0, owner 'A' -> None': how a stored row differs from what it was, as words (a
    failure says them unquoted); "" when it does not differ."""
    if after is None:
        return Words("checks.row_gone")
    if before is None:
        return Words("checks.row_created")
    differing = [f"{k} {before[k]!r} -> {after[k]!r}" for k in COLUMNS if before[k] != after[k]]
    return Joined(", ".join(differing)) if differing else ""


def assert_unchanged(db, job_id, before, called, en, ja):
    """The stored row must be exactly as it was before the call."""
    after = row(db, job_id)
    assert after == before, explain(called, changes(before, after), en, ja)


HOLD = (
    "import os, sqlite3, stat, sys, time\n"
    "assert stat.S_ISREG(os.lstat(sys.argv[1]).st_mode)\n"  # no link followed here either
    "conn = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
    "conn.execute('BEGIN IMMEDIATE')\n"
    "print('held', flush=True)\n"
    "time.sleep(float(sys.argv[2]))\n"
    "conn.execute('COMMIT')\n"
)


@contextmanager
def write_lock_held(db, seconds=0.2):
    """Another connection holds the database's write lock for `seconds` while racers start.

    Racers that read outside the write lock all read "free" meanwhile, and their writes queue
    up behind the lock: a claim that does not read and update inside one BEGIN IMMEDIATE then
    lets two racers win, whatever its code does to its own connections (the slowed writes are
    a hint inside the learner's process; this lock is the database's own). The holder is a
    process of its own: a thread inside SQLite while racers are forked would deadlock them.
    """
    holder = subprocess.Popen([sys.executable, "-I", "-S", "-c", HOLD, db, str(seconds)], stdout=subprocess.PIPE)
    try:
        holder.stdout.readline()  # "held"
        yield
    finally:
        holder.wait(timeout=30)
        holder.stdout.close()


def in_processes(lease, name, arg_lists, called, timeout=5.0):
    """name(*args) for each args, each in a process of its own, all started at the same moment.

    The processes share no lock or memory: only the database can keep them apart. Returns what
    each call returned, in input order, or the exception it raised; a process that does not
    answer within `timeout` seconds answers TimeoutError. A stub's NotImplementedError is
    reported as such, for the call described by `called`.
    """
    answers = lease.race(name, arg_lists, timeout)
    if any(isinstance(answer, NotImplementedError) for answer in answers):
        raise NotImplementedYet(called)
    return answers
