"""Which part of a module a step's checks can reach, so that cached verdicts outlive edits elsewhere.

A check calls the code under test by name (``call(lease, "claim", ...)``, ``lease.claim``); a
function may call others of the same module (claim_many calls claim). The functions that the
checks of some steps can reach are those named in the steps' check files, closed over the
module's own calls. A verdict of those checks depends only on the text of those functions and
of the module-level code (imports, constants), so that is the text a cache is keyed on.

Names are found by over-approximation: any string constant, attribute or bare name equal to a
function's name counts as a call. tests/test_mutation_reach.py compares the map with the functions
that the checks actually call on the reference.
"""

import ast
import functools
import re

from lab.model.course import LAB_ROOT, load_course

CHECKS_DIR = LAB_ROOT / "checks"
CHECK_FILE = re.compile(r"^test_(\d+)_\w*\.py$")  # test_07_release.py holds checks of step 7
MODEL_CHECK = "model_check"


def check_files(step):
    """The check files of a step, by the course's naming: test_<step number>_<anything>.py."""
    return sorted(p for p in CHECKS_DIR.glob("test_*.py") if (m := CHECK_FILE.match(p.name)) and int(m[1]) == step)


@functools.cache
def named_by_checks(step):
    """The course functions named anywhere in the step's check files.

    conftest.py and support.py are left out: they call only the function a check names
    (support.call(lease, name)), and support.PARAMETERS names every one of them. A step's
    generated check (sequences.model_check) calls every function of the steps up to its own.
    """
    course = {s.function for s in load_course()}
    named = set()
    for path in check_files(step):
        named |= _names(ast.parse(path.read_text(encoding="utf-8")))
    if MODEL_CHECK in named:  # it drives every function of the steps up to its own
        named |= {s.function for s in load_course()[:step]}
    return frozenset(named & course)


def reachable(steps, tree):
    """The names of the module's top-level functions that the checks of these steps can reach."""
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
    todo = [name for step in steps for name in named_by_checks(step) if name in functions]
    # module-level code runs on import and is always kept: what it names is reached too
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            todo.extend(_names(node) & functions.keys())
    seen = set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(_names(functions[name]) & functions.keys())
    return seen


@functools.lru_cache(maxsize=1024)  # a report asks for each mutant's key twice (see matrix.peek)
def relevant_text(text, steps):
    """The module text minus the bodies of the functions the checks of these steps cannot reach."""
    if not text:
        return ""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    keep = reachable(steps, tree)
    lines = text.splitlines(keepends=True)
    parts = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name not in keep:
            # Its decorators and default values still run on import: keep all but the body.
            node.body = [ast.Expr(ast.Constant(...))]
            parts.append(ast.unparse(node))
            continue
        start = (node.decorator_list[0].lineno if getattr(node, "decorator_list", None) else node.lineno) - 1
        parts.append("".join(lines[start : node.end_lineno]))
    return "\n".join(parts)


def _names(tree):
    """Every identifier-like word the code uses: names, attributes, string constants."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.add(node.value)
    return found
