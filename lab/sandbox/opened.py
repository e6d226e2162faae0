"""What one check calls: a target's module, opened where its code may run."""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING

from lab.model.targets import implementation_of
from lab.sandbox import remote
from lab.sandbox.local import LocalModule

if TYPE_CHECKING:
    from collections.abc import Collection, Iterator

    from lab.model.targets import Target
    from lab.sandbox.shapes import Settings


@contextmanager
def opened(
    target: Target, step: int, plan: Settings, needs: Collection[str] = frozenset()
) -> Iterator[LocalModule | remote.RemoteModule]:
    """The module one check of `step` calls, which calls its functions `needs`: the learner's files
    in a learner process of their own (lab/sandbox/remote.py), the lab's own code in this one
    (lab/sandbox/local.py)."""
    if target.impl:
        with remote.opened(target, implementation_of(target), step, plan, needs) as learners:
            yield learners
        return
    module = LocalModule(target.module_for(step, needs))
    try:
        yield module
    finally:
        module.close()
