"""What the checks run against: the learner's code, the reference, a pre-built mutant or a module file.

The parent process writes a plan (JSON) naming the targets; the checks' ``lease`` fixture is
parametrised over them inside the child process that runs pytest.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from lab.model.course import load_course
from lab.model.defaults import TIME_LIMIT
from lab.model.implementation import Implementation, SourceFile, load, read
from lab.model.mutants import SOLUTIONS_DIR, apply, load_mutants
from lab.model.outcomes import LoadFailure
from lab.model.results import Words, as_json, from_json

if TYPE_CHECKING:
    import types
    from collections.abc import Callable, Collection, Mapping
    from typing import Any

    import pytest

    from lab.model.implementation import LoadedImplementation
    from lab.model.results import Text

PLAN_VARIABLE = "LEASE_LAB_PLAN"


@dataclass(frozen=True)
class Target:
    id: str
    steps: tuple[int, ...]  # the steps whose checks run against this target
    impl: str | None = None  # a steps-like folder or a .py file
    mutant: str | None = None  # the id of a pre-built mutant
    module_file: str | None = None  # one module file of the lab's own: a mutmut mutant, staged whole
    known_problems: tuple[tuple[int, Text], ...] = ()  # (step, facts): files that hang or end the process when run
    checks: tuple[str, ...] | None = None  # the names of the checks to run, when not every check of the steps
    # The learner's files as the grading parent read them, (steps, path, text, refused) each:
    # the checks never read a learner's folder themselves, so they need not see it.
    files: tuple[tuple[tuple[int, ...], str, str | None, str | None], ...] = ()

    def load(self) -> LoadedImplementation:
        """A fresh module for one check, with the problems found while building it."""
        return load(implementation_of(self), known=dict(self.known_problems))

    def module_for(self, step: int, needs: Collection[str] = frozenset()) -> types.ModuleType:
        """A fresh module for one check of `step` that calls the functions `needs`; LoadFailure
        when a file it needs does not load (see stop_if_blocked)."""
        loaded = self.load()
        stop_if_blocked(step, loaded.problems, needs)
        return loaded.module


def stop_if_blocked(step: int, problems: Mapping[int, Text], needs: Collection[str]) -> None:
    """LoadFailure, with its facts, when a check of `step` cannot run: its step's file does
    not load or does not define its function, or an earlier step's file whose function the check
    calls (`needs`) does not: a check of step 7 that calls complete cannot run without step 6's.
    problems: {step: what went wrong with its file}."""
    earlier = [s for s in sorted(problems) if s < step and load_course()[s - 1].function in needs]
    blocking = step if step in problems else next(iter(earlier), None)
    if blocking is not None:
        function = load_course()[blocking - 1].function
        raise LoadFailure(Words("cannot_check", step=step, problem=problems[blocking], function=function))


@cache
def implementation_of(target: Target) -> Implementation:
    """The files of a target: the learner's, the reference's, a mutant's or a module file."""
    if target.files:
        return Implementation(
            target.id,
            tuple(SourceFile(steps, Path(path), text, refused) for steps, path, text, refused in target.files),
        )
    if target.mutant:
        mutant = next(m for m in load_mutants() if m.id == target.mutant)
        return apply(mutant)
    # Every target that is loaded names its source; a plan's own copy of one (a prediction's host) may not.
    return read(target.impl or target.module_file, label=target.id)  # type: ignore[arg-type]


@dataclass
class Plan:
    """Everything a child process needs to know; written as JSON by the parent."""

    # Targets in the plan a child reads (from_file); their asdict() in the one a parent writes and dumps.
    targets: list[Target] | list[dict[str, Any]]
    events: int | None = None  # the descriptor of the pipe the recorder writes its JSON lines to
    skip: list[str] = field(default_factory=list)  # node ids already settled by an earlier child
    time_limit: float = TIME_LIMIT
    scratch: str | None = None  # the folder the checks and the learner processes share (databases)
    confined: bool = False  # learner processes run inside bubblewrap

    def parametrize(self, metafunc: pytest.Metafunc, step: Callable[[pytest.Function], int | None]) -> None:
        """Run a check (or a prediction) of `step` once for every target that covers the step,
        with the target's id: the one pytest_generate_tests of the checks and the predictions."""
        if "lease" not in metafunc.fixturenames:
            return
        name = metafunc.definition.originalname
        read: list[Target] = self.targets  # type: ignore[assignment]  # a child's plan, from_file's
        targets = [t for t in read if step(metafunc.definition) in t.steps and (t.checks is None or name in t.checks)]
        metafunc.parametrize("lease", targets, ids=[t.id for t in targets], indirect=True)

    def dump(self, path: Path) -> None:
        # the facts of the targets' known problems as JSON too (lab/model/results.py)
        path.write_text(json.dumps(asdict(self), default=as_json), encoding="utf-8")

    @classmethod
    def from_environment(cls) -> Plan:
        """The plan the parent wrote, or by default: the reference against every step."""
        path = os.environ.get(PLAN_VARIABLE)
        if not path:
            every_step = tuple(step.number for step in load_course())
            return cls([Target("solutions", every_step, impl=str(SOLUTIONS_DIR))], scratch=_own_scratch())
        return cls.from_file(path)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Plan:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        data["targets"] = [_target(t) for t in data["targets"]]
        data["scratch"] = data.get("scratch") or _own_scratch()
        return cls(**data)


def _own_scratch() -> str:
    """A scratch folder for a plan that names none (``pytest checks/`` run by hand, a test's own
    plan): the checks' databases go there, not loose in the system's temporary folder, and it is
    removed when the process ends."""
    folder = tempfile.mkdtemp(prefix="lease-lab-scratch-")
    atexit.register(shutil.rmtree, folder, True)
    return folder


def _target(data: dict[str, Any]) -> Target:
    known = tuple((step, from_json(message)) for step, message in data.get("known_problems", ()))
    checks = None if data.get("checks") is None else tuple(data["checks"])
    files = tuple((tuple(steps), path, text, refused) for steps, path, text, refused in data.get("files", ()))
    return Target(**{**data, "steps": tuple(data["steps"]), "known_problems": known, "checks": checks, "files": files})
