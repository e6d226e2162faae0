"""In the compare phase: where the learner's function differs from the reference's, if it does.

Only a difference in what the code does is worth a look: the two functions are compared as
syntax trees (comments, blank lines, quotes and docstrings aside), and only when they differ is a
short unified diff of their source shown, reference first.
"""

import ast
import difflib
from pathlib import Path

from lab.model.implementation import STEP_FILE, display_path
from lab.model.mutants import SOLUTIONS_DIR

LIMIT = 14  # diff lines shown; the rest is counted


def differences(folder, step):
    """(the learner's file as shown, the diff lines, how many more) or None when they match."""
    folder = Path(folder)
    if not folder.is_dir() or folder.resolve() == SOLUTIONS_DIR.resolve():
        return None
    file = folder / step.dir / STEP_FILE
    mine = _function(file, step.function)
    reference = _function(SOLUTIONS_DIR / step.dir / STEP_FILE, step.function)
    if mine is None or reference is None or _shape(mine[0]) == _shape(reference[0]):
        return None
    lines = [
        line
        for line in difflib.unified_diff(reference[1], mine[1], lineterm="", n=1)
        if not line.startswith(("---", "+++"))
    ]
    return display_path(file), lines[:LIMIT], max(0, len(lines) - LIMIT)


def _function(path, name):
    """(the function's tree, its source lines) or None when the file does not define it."""
    try:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None
    found = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    if not found:
        return None
    node = found[-1]
    return node, text.splitlines()[node.lineno - 1 : node.end_lineno]


def _shape(node):
    """The function's tree without its docstring: what it does, not how it is written down."""
    body = (
        node.body[1:]
        if node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
        and isinstance(node.body[0].value.value, str)
        else node.body
    )
    return ast.dump(ast.Module(body=body, type_ignores=[])) + ast.dump(node.args)
