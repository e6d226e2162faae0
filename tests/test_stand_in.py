"""The routing that brings every call of a watched function to its stand-in
(lab/sandbox/learner/stand_in.py), on its own and through the lab's own LocalModule: a call through
the module's name, a default argument, an alias or a partial reaches the stand-in; the undo gives
the function its code back; a function with a closure is left to the module's name."""

import functools
import types

from lab.sandbox.learner.stand_in import ROUTED, kept_copy, route_calls, stand_in_for
from lab.sandbox.local import LocalModule

LEARNER = """
import functools
def claim(path, job_id, owner, now, ttl):
    return f"{owner} claimed {job_id}"
alias = claim
by_partial = functools.partial(claim, "db")
def by_default(owner, _claim=claim):
    return _claim("db", "job", owner, 1, 2)
def claim_many(path, job_id, owners, now, ttl, _claim=claim):
    return [_claim(path, job_id, owner, now, ttl) for owner in owners]
"""


def module():
    made = types.ModuleType("lease")
    exec(LEARNER, made.__dict__)
    return made


def test_every_name_the_function_is_held_by_reaches_the_stand_in_and_the_undo_puts_it_back():
    lease, seen = module(), []
    real = kept_copy(lease.claim)

    def stand_in(*args, **kwargs):
        seen.append(args[2])
        return real(*args, **kwargs)

    undo = route_calls(lease.claim, stand_in)
    answers = [
        lease.claim("db", "job", "a", 1, 2),
        lease.alias("db", "job", "b", 1, 2),
        lease.by_partial("job", "c", 1, 2),
        lease.by_default("d"),
    ]
    assert answers == [f"{owner} claimed job" for owner in "abcd"] and seen == list("abcd")
    assert lease.claim.__name__ == "claim" and type(lease.claim) is types.FunctionType
    undo()
    assert lease.by_default("e") == "e claimed job" and seen == list("abcd")
    assert ROUTED not in lease.__dict__


def test_a_function_with_a_closure_is_not_routed_and_a_kept_copy_keeps_its_attributes():
    def outer():
        kept = "closed over"

        def inner(path, job_id, owner, now, ttl):
            return kept

        return inner

    assert route_calls(outer(), print) is None and route_calls(print, print) is None
    wrapped = module().claim
    wrapper = functools.wraps(wrapped)(lambda *args: wrapped(*args))
    copy = kept_copy(wrapper)
    assert copy.__wrapped__ is wrapped and copy("db", "job", "a", 1, 2) == "a claimed job"


def test_the_labs_own_module_counts_the_calls_made_through_a_default_argument():
    lease = module()
    watched = LocalModule(lease)
    watched.watch("claim", patience=0.05)
    assert watched.claim_many("db", "job", ["a", "b"], 1, 2) == ["a claimed job", "b claimed job"]
    assert len(watched.watched().calls) == 2
    watched.close()
    assert lease.claim_many("db", "job", ["c"], 1, 2) == ["c claimed job"] and ROUTED not in lease.__dict__


def test_a_function_that_cannot_be_routed_is_stood_in_for_through_the_modules_name():
    lease = module()
    exec("def made():\n    kept = 'closed over'\n    return lambda *args: kept\nclaim = made()", lease.__dict__)
    function = lease.claim
    undo = stand_in_for(lease, "claim", lambda *args: "stood in")
    assert lease.claim("db", "job", "a", 1, 2) == "stood in"
    undo()
    assert lease.claim is function and lease.claim() == "closed over"
