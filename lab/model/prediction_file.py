"""A step's prediction file: where it lives in a steps-like folder, and whether it holds a
prediction or is still the template as shipped (the stubs' reader and the graders ask both)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import os

    from lab.model.course import Step

PREDICTION_FILE = "prediction.py"
TEST_NAME = "test_my_prediction"


def prediction_path(impl: str | os.PathLike[str], step: Step) -> Path | None:
    """Where step's prediction lives in a steps-like folder; None for a one-file implementation."""
    impl = Path(impl)
    return impl / step.dir / PREDICTION_FILE if impl.is_dir() else None


def holds_a_prediction(text: str | None) -> bool:
    """False for a missing file or the template as shipped: test_my_prediction whose body only
    raises NotImplementedError (or passes); True for anything else, even code that does not parse
    (running it will say what is wrong)."""
    if text is None:
        return False
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return True
    found = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == TEST_NAME]
    if not found:
        return bool([n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")])
    return not all(_placeholder(statement) for statement in found[-1].body)


def _placeholder(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):  # a docstring or ...
        return True
    if isinstance(statement, ast.Raise) and statement.exc is not None:
        raised = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
        return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"
    return False


# pytest's explanation of a failed assert names the functions and the database file by their
# reprs: the target's functions read `lease.claim` (lab/running/prediction_plugin.py: Call), a
# function of the lab's own code `<function claim at 0x7f…>`, and the database a scratch path
# (`'/…/db-1a2b3c/jobs.db'`): the learner wrote lease.claim and db.
FUNCTION_REPR = re.compile(r"<function (\w+) at 0x[0-9a-f]+>")
SCRATCH_DB = re.compile(r"'/[^']*/(?:db-[^'/]+/jobs\.db|pytest-of-[^']*?/jobs-\d+\.db)'")


def tidy(message: str) -> str:
    """A failed prediction's message with the functions named as the learner calls them, the
    scratch database as `db`, and pytest's lines that only restate where a function came from dropped."""
    lines = []
    for line in message.splitlines():
        line = SCRATCH_DB.sub("db", FUNCTION_REPR.sub(r"lease.\1", line))
        if re.fullmatch(r"\s*\+\s+where lease\.\w+ = (?:<module 'lease'>|lease)\.\w+", line):
            continue
        lines.append(line)
    return "\n".join(lines)
