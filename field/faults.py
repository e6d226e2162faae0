"""Faults of the store: calls that raised or answered with what no contract allows, rows of the wrong type.

A fault is not a broken promise, and stress does not judge promises on top of it: it reports the
faults apart, under an exit status of their own (lab/model/status.py), and leaves the faulty
calls out of the replay (replay.py). Three kinds of exception are the contract's own business and
stay violations:

- ValueError for ttl <= 0, which the contract asks for (C4.1, C5.1, C8.3): the model judges it;
- init_db raising when the table is there (C1.3: a second call raises nothing), and enqueue raising
  because the id is already there (C2.2);
- SQLite's errors about a lock it could not get or a transaction it could not begin or end, in a
  call that raced another call on the same job: the race clauses say the call raises nothing
  because of the race. claim_many's threads race each other: any error of SQLite's it raises
  that claim never raised alone in the run is theirs (C8.2), such as a second BEGIN on one
  connection they share.
"""

from field.stress_log import is_fence

RACE_CLAUSES = {"claim": "C4.6", "renew": "C5.6", "complete": "C6.5", "release": "C7.5", "claim_many": "C8.2"}
RACE_WORDS = ("locked", "busy", "transaction")  # SQLite's words for a lock or a transaction it could not have
SQLITE_ERRORS = ("OperationalError", "DatabaseError", "ProgrammingError", "IntegrityError", "InterfaceError")
ASKED_TO_RAISE = ("claim", "renew", "claim_many")  # with ttl <= 0: ValueError


def unjudged(op):
    """The call raised where the contract gives an answer, or answered with nonsense: a fault or a
    race error, not an answer the model can judge."""
    return op.ended and (bool(op.error) and not asked_to_raise(op) or nonsense(op))


def asked_to_raise(op):
    return op.op in ASKED_TO_RAISE and isinstance(op.ttl, int | float) and op.ttl <= 0


def nonsense(op):
    """An answer of a type the contract never gives (a fence that is a string, a renew that returns 1)."""
    if not op.ended or op.error or asked_to_raise(op):
        return False
    got = op.returned
    if op.op == "claim":
        return not (got is None or is_fence(got))
    if op.op == "claim_many":
        return not (isinstance(got, list) and len(got) == len(op.owners) and all(g is None or is_fence(g) for g in got))
    if op.op == "state":
        return not (got is None or isinstance(got, dict))
    return op.op != "init_db" and not isinstance(got, bool)


def sort_out(ops, found, whole):
    """Each call that raised or answered with nonsense: a violation of the clause that names it, or a fault."""
    spans = {}
    for op in ops:
        spans.setdefault(op.job, []).append(op)
    own = {op.error for op in ops if op.op == "claim" and op.error}  # what claim raises by itself
    for op in ops:
        if not unjudged(op):
            continue
        job = op.job if op.op != "init_db" else whole
        if op.error:
            clause = _named_by_the_contract(op, spans.get(op.job, []), own)
            if clause:
                found.add(job, "v_raised", clause=clause, error=op.error, ops=[op])
            else:
                found.fault(job, "f_raised", function=op.op, error=op.error, ops=[op])
        else:
            found.fault(job, "f_nonsense", function=op.op, returned=repr(op.returned), ops=[op])


def _named_by_the_contract(op, same_job, own):
    kind = op.error.split(":", 1)[0]
    if op.op == "init_db":
        return "C1.3"
    if op.op == "enqueue" and kind == "IntegrityError":
        return "C2.2"
    if kind not in SQLITE_ERRORS:
        return None
    if op.op == "claim_many" and len(op.owners or ()) > 1 and op.error not in own:
        return "C8.2"  # an error of SQLite's that claim never raises alone: its threads met
    if not any(word in op.error.lower() for word in RACE_WORDS):
        return None
    raced = any(
        other is not op and other.t0 < op.t1 and op.t0 < (other.t1 if other.ended else float("inf"))
        for other in same_job
    )
    return RACE_CLAUSES.get(op.op) if raced else None
