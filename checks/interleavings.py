"""Another worker's claim run between any two statements of a call, deterministically.

The call runs in a process of its own and is held before its statement number k, for every k in
turn (the statements its sqlite3 connections run, BEGIN and COMMIT included: one statement, or a
read then a write, whatever the style). Meanwhile a claim runs in another process. What happens
next is decided by the locks the held call holds, never by a race of the clock:

- the write lock: no claim can come in here; the call just goes on;
- a read lock only: the claim takes the write lock and waits to commit, then the call goes on
  (a write of the call then meets the claim's lock, and SQLite refuses it rather than deadlock);
- no lock: the claim runs to its end, then the call goes on.

Afterwards the two answers and the stored row must be those of one of the two serial orders, the
claim first or the call first, as the model of the contract (model.py) computes them. When the
held call is itself a claim, a collision of the two claims (one raises, or both win one
generation: fewer new fences stored than winners) breaks the one-winner clause, C4.6, rather
than the call's own.
"""

import sqlite3
import time
from contextlib import closing

from model import TableModel
from sequences import same
from support import describe, explain, open_db, row, seed, words

from lab.api import ClauseBroken, NotImplementedYet

TIMEOUT = 5.0  # seconds one call may take, held time excluded
MOST_STATEMENTS = 24  # the boundaries tried: a call that runs more statements is tried at its first 24
LEASED = {"owner": "A", "until": 10.0, "fence": 1}

# For each function: the stored row, the held call (after db), and the racing claim (after db).
# A's lease is current at now=9 and has expired at now=10, when B claims: were A's read and
# write apart, B's claim would land between them.
SCENARIOS = {
    "claim": ({}, ("job", "A", 0.0, 5.0), ("job", "B", 5.0, 5.0)),
    "renew": (LEASED, ("job", "A", 1, 9.0, 5.0), ("job", "B", 10.0, 5.0)),
    "complete": (LEASED, ("job", "A", 1, 9.0, "A's result"), ("job", "B", 10.0, 5.0)),
    "release": (LEASED, ("job", "A", 1), ("job", "B", 10.0, 5.0)),
}


def check_interleavings(lease, new_db, name, clause, other, collision=None):
    """Race another worker's claim (`other`: code the learner did not write, so that only the
    database can keep the two apart) against `name` between each two of its statements; fail
    naming `clause`, or `collision` when two claims collide."""
    stored, args, claim_args = SCENARIOS[name]
    called, claimed = describe(name, ("db", *args)), describe("claim", ("db", *claim_args))
    orders = _serial_orders(stored, (name, args), ("claim", claim_args))
    db = _prepared(new_db, stored)
    answer, statements = lease.start(name, (db, *args)).answer(TIMEOUT)
    if isinstance(answer, NotImplementedError):
        raise NotImplementedYet(called)
    if statements is None:  # the process running the call ended or stalled: nothing to interleave
        raise ClauseBroken(
            clause, explain(called, answer, en="an answer, alone and unhurried", ja="単独で呼んだときの答え")
        )
    for k in range(min(statements or 0, MOST_STATEMENTS)):
        db = _prepared(new_db, stored)
        got = _interleaved(lease, other, db, (name, (db, *args)), ("claim", (db, *claim_args)), k, called)
        if got is None:
            continue
        if not any(all(same(g, w) for g, w in zip(got, want)) and got[2] == want[2] for want in orders.values()):
            broken = collision if collision and _collided(stored, got) else clause
            raise ClauseBroken(broken, _message(called, claimed, k, statements, got, orders))


def _prepared(new_db, stored):
    db = new_db()
    seed(db, "job", **stored)
    return db


def _serial_orders(stored, call, claim):
    """(the call's answer, the claim's answer, the stored row) for the claim first and the call first."""
    orders = {}
    for first, calls in (("claim", (claim, call)), ("call", (call, claim))):
        model = TableModel([{"id": "job", **stored}])
        answers = {id(c): getattr(model, c[0])(*c[1]).value for c in calls}
        orders[first] = (answers[id(call)], answers[id(claim)], model.rows["job"])
    return orders


def _interleaved(lease, other, db, call, claim, k, called):
    """(the call's answer, the claim's, the stored row) with the claim run at statement k of the
    call; None when the call holds the write lock there (no claim can come in)."""
    held = lease.start(*call, pause_at=k)
    if not held.paused(TIMEOUT):  # it ended before statement k
        held.answer(TIMEOUT)
        return None
    lock = _lock_held(db)
    if lock == "write":
        held.resume()
        held.answer(TIMEOUT)
        return None
    if lock is None:
        (claimed,) = other.race(claim[0], [claim[1]], TIMEOUT)
        held.resume()
        answer, _ = held.answer(TIMEOUT)
    else:
        racing = other.start(*claim)
        deadline = time.monotonic() + TIMEOUT
        while not racing.done() and not _waiting_to_commit(db) and time.monotonic() < deadline:
            time.sleep(0.002)
        held.resume()
        answer, _ = held.answer(TIMEOUT)
        claimed, _ = racing.answer(TIMEOUT)
    if isinstance(answer, NotImplementedError) or isinstance(claimed, NotImplementedError):
        raise NotImplementedYet(called)
    return answer, claimed, row(db, "job")


def _collided(stored, got):
    """True when one of two racing claims raised, or both returned a fence while the stored
    fence grew by less than two (both won the same generation)."""
    *answers, after = got
    if any(isinstance(answer, BaseException) for answer in answers):
        return True
    winners = sum(answer is not None for answer in answers)
    return winners == 2 and after is not None and after["fence"] - stored.get("fence", 0) < winners


def _lock_held(db):
    """'write' when another connection holds the write lock, 'read' when it holds a read lock
    only, None when it holds none (in WAL mode a reader blocks no writer: None too)."""
    with closing(open_db(db, timeout=0, isolation_level=None)) as conn:
        for lock, begin in (("write", "BEGIN IMMEDIATE"), ("read", "BEGIN EXCLUSIVE")):
            try:
                conn.execute(begin)
            except sqlite3.OperationalError:
                return lock
            conn.execute("ROLLBACK")
    return None


def _waiting_to_commit(db):
    """True while another connection waits to commit (it holds the pending lock: no new reader)."""
    with closing(open_db(db, timeout=0)) as conn:
        try:
            conn.execute("SELECT count(*) FROM jobs").fetchone()
        except sqlite3.OperationalError:
            return True
    return False


def _message(called, claimed, k, statements, got, orders):
    name = called.split("(")[0]
    when = words(
        f"{called}, held before its statement {k + 1} of {statements}, while {claimed} ran in another process",
        f"{called} を {statements} 個の文のうち {k + 1} 番目の直前で止め、その間に別のプロセスで {claimed} を実行",
    )
    labels = {
        "claim": words("B's claim first", "B の claim が先"),
        "call": words(f"A's {name} first", f"A の {name} が先"),
    }
    # The nearer order first: the list of what differs is made against it.
    near, far = sorted(orders, key=lambda order: sum(g != w for g, w in zip(got, orders[order])))
    return explain(
        when,
        got,
        en=f"{orders[near]} ({labels[near].en}) or {orders[far]} ({labels[far].en}): (A's answer, B's answer, the stored row) of one of the two orders, nothing raised",
        ja=f"{orders[near]} ({labels[near].ja}) または {orders[far]} ({labels[far].ja}): (A の答え, B の答え, 保存される行) が 2 つの順序のどちらかと同じで、例外なし",
        want=orders[near],
    )
