"""Implementations written by others from README.md and the CONTRACT.md files alone
(tests/fixtures/independent/): correct ones, each checked on the steps whose functions it defines,
and wrong ones, each naming on its first lines the clause it breaks (``breaks: C4.6``).

A fixture may define the functions of a few steps only: it is checked with the reference's
functions standing in for those it lacks. So a new step brings its own fixtures, one correct and
one wrong at least, and no fixture of another step changes; `dev check` names a step that has none.
"""

import ast
import re

FOLDER = ("tests", "fixtures", "independent")
BREAKS = re.compile(r"breaks: (C(\d+)\.\d+)")


def defined(text, course):
    """The steps whose function the module defines at its top level, in course order."""
    names = {node.name for node in ast.parse(text).body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
    return tuple(step.number for step in course if step.function in names)


def breaks(text):
    """(the clause a wrong fixture breaks, its step), or None when its first lines name none."""
    found = BREAKS.search(text)
    return (found.group(1), int(found.group(2))) if found else None


def problems(root, course):
    """A step no correct fixture defines, or no wrong fixture breaks, one sentence each. A tree
    without the fixtures' folder (a learner's checkout) has none to name."""
    folder = root.joinpath(*FOLDER)
    if not folder.is_dir():
        return []
    shown = "/".join(FOLDER)
    covered = {n for path in sorted((folder / "correct").glob("*.py")) for n in _defined(path, course)}
    broken = {found[1] for path in sorted((folder / "wrong").glob("*.py")) if (found := breaks(_text(path)))}
    found = []
    for step in course:
        if step.number not in covered:
            found.append(
                f"step {step.number}: no correct implementation in {shown}/correct/ defines {step.function} "
                "(have one written from the contracts alone, by someone who has not read checks/ or solutions/)"
            )
        if step.number not in broken:
            found.append(
                f"step {step.number}: no wrong implementation in {shown}/wrong/ says `breaks: C{step.number}.<n>` "
                "on its first lines (have one written from the contracts alone)"
            )
    return found


def _defined(path, course):
    try:
        return defined(_text(path), course)
    except SyntaxError:
        return ()


def _text(path):
    return path.read_text(encoding="utf-8")
