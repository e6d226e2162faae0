"""A step's prediction file: where it lives in a steps-like folder, and whether it holds a
prediction or is still the template as shipped (the stubs' reader and the graders ask both)."""

from __future__ import annotations

import ast
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
