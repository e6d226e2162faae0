"""The engine's one door for course code: what the course's checks (checks/) may use of lab/, and
nothing else; tests/test_layers.py holds checks/ to it. The engine, for its part, names no
function of the course: what a step needs of the sandbox is asked for by name through the
module a check is given (its `lease` fixture).

What a check is given and may ask of its module (a learner's, opened in a learner process of its
own; the lab's own code, a LocalModule in this process): the functions of the course by name, and
``slow_down_writes()``, ``watch(function, patience, lead)`` and ``watched()`` (whether a function's
calls overlap, counted where the code under test cannot reach; `lead` names a call, by its
arguments, that the calls it meets wait for, and that returns after every other), ``race(name, arg_lists,
timeout)`` and ``start(name, args, pause_at)``.

What a check raises or shows: ClauseBroken (a clause of the contract is broken), NotImplementedYet,
CallRaised, and the worded values Phrase, Words, Joined, shown and alone (lab/model/results.py).

What a check reads of the course: load_course, step_of_check, checks_of, rules_module (the module
of a step's own rules), the plan and targets it runs under (Plan, Target), the reference's folder
(SOLUTIONS_DIR) and the lab's loader (read, load).
"""

from lab.model.checks import checks_of, rules_module
from lab.model.course import load_course, step_of_check
from lab.model.implementation import load, read
from lab.model.mutants import SOLUTIONS_DIR
from lab.model.outcomes import CallRaised, ClauseBroken, NotImplementedYet
from lab.model.results import Joined, Phrase, Words, alone, shown
from lab.model.targets import Plan, Target
from lab.sandbox.local import LocalModule
from lab.sandbox.opened import opened

__all__ = [
    "SOLUTIONS_DIR",
    "CallRaised",
    "ClauseBroken",
    "Joined",
    "LocalModule",
    "NotImplementedYet",
    "Phrase",
    "Plan",
    "Target",
    "Words",
    "alone",
    "checks_of",
    "load",
    "load_course",
    "opened",
    "read",
    "rules_module",
    "shown",
    "step_of_check",
]
