"""What one check calls: a target's module, opened where its code may run."""

from contextlib import contextmanager

from lab.model.targets import implementation_of
from lab.sandbox import remote
from lab.sandbox.local import LocalModule


@contextmanager
def opened(target, step, plan, needs=frozenset()):
    """The module one check of `step` calls, which calls its functions `needs`: the learner's files
    in a learner process of their own (lab/sandbox/remote.py), the lab's own code in this one
    (lab/sandbox/local.py)."""
    if target.impl:
        with remote.opened(target, implementation_of(target), step, plan, needs) as module:
            yield module
        return
    module = LocalModule(target.module_for(step, needs))
    try:
        yield module
    finally:
        module.close()
