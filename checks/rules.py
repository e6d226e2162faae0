"""Each step's own rules, found through course.toml: checks/rules_<NN>_<function>.py beside the
step's checks (test_<NN>_<function>.py), in the course's order. A step adds its rules by adding
its file; the shared modules hold only the machinery and ask here for every step's part:

- PARTITIONS (and, where a kind lies between two calls, ACROSS_CALLS): the kinds of input and
  stored state its function's clauses tell apart (partitions.py);
- rule(model, *arguments): what one call must do, the model's rule of its function (model.py);
- CALL, arguments(drawn) and COVERING: the strategy of one call, its arguments after `path` once
  drawn, and the calls of the covering example (sequences.py); answered(sequence, got, arguments,
  expected), where an answer is compared otherwise than for equality.
"""

import functools
import importlib

from lab.api import load_course, rules_module


@functools.cache
def of_steps():
    """function -> its step's rules module, in the course's order."""
    return {step.function: importlib.import_module(rules_module(step)) for step in load_course()}


def of(function):
    """The rules module of the step whose function this is."""
    return of_steps()[function]
