"""Which part of a module a check can reach, so that cached verdicts outlive edits elsewhere.

A check names some functions of the code under test (lab.model.checks); a function may call
others of the same module (claim_many calls claim). The functions that one check can reach are
those it names, closed over the module's own calls; a step's checks reach the union of theirs.
A verdict depends only on the text of those functions and of the module-level code (imports,
constants), when nothing else can reach a function (lab/grading/static_reading.py; when something
can, every function counts as reached), so that is the text a cache is keyed on: an edit to renew re-runs the checks that
can call renew, not every check of the steps after it.

A verdict also shows where the code under test raised ("at steps/04-claim/step.py, line 12"),
so a key may hold the places too (``starts``): each piece kept whole is keyed with its file and
its line there. An edit that moves a reached piece (a line added above it in its own file)
changes the key; one that moves only pieces of other files, or none that is kept, does not.
"""

import ast
import bisect
import copy
import functools

from lab.grading.static_reading import statically_readable
from lab.model.checks import checks_of, named_by_checks, names_in

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def reachable(steps, tree):
    """The names of the module's top-level functions that the checks of these steps can reach."""
    return reachable_from(frozenset().union(*(named_by_checks(step) for step in steps)), tree)


def reachable_from(named, tree):
    """The names of the module's top-level functions that code naming these functions can reach."""
    return _closed(named, *_call_graph(tree))


def _call_graph(tree, pieces=None):
    """({function: the module's functions it names, in any of its definitions}, the functions
    that run on import: named by module-level code, or by a function's decorators, defaults and
    annotations, which run when the function is defined). pieces: each top-level node's text
    (see _piece), when the caller has them."""
    names = {node.name for node in tree.body if node.__class__ in FUNCTIONS}
    graph, on_import = {name: set() for name in names}, set()
    for index, node in enumerate(tree.body):
        named, on_definition = _named_by(node) if pieces is None else _piece(pieces[index], node)[:2]
        if node.__class__ in FUNCTIONS:
            graph[node.name] |= named & names
            if node.decorator_list:  # a decorator is handed the function itself, and may keep it
                on_import.add(node.name)
        on_import |= on_definition & names
    return graph, on_import


def _named_by(node):
    """(what a top-level node names, what of that runs when it is defined: all of it, for a
    function only its signature)."""
    named = names_in(node)
    return named, names_in(_signature(node)) if node.__class__ in FUNCTIONS else named


_PIECES = {}  # what _piece found, by the piece's text and place (emptied when it holds PIECES_KEPT)
PIECES_KEPT = 4096


def _piece(text, node):
    """(what a top-level piece of the module names, what of that runs when it is defined, its text
    without a function's body, whether it compiles): found once for every module that has it, as
    a mutant has all its pieces but one in common with its neighbours."""
    key = (text, node.__class__, node.col_offset, node.end_col_offset)  # two statements may share a line
    if key not in _PIECES:
        if len(_PIECES) >= PIECES_KEPT:
            _PIECES.clear()
        function = node.__class__ in FUNCTIONS
        stub = ast.unparse(_signature(node)) if function else text
        _PIECES[key] = (*_named_by(node), stub, not function or _compiles(text))
    return _PIECES[key]


def _signature(node):
    """A function without its body, which is all of it that runs when it is defined."""
    stub = copy.copy(node)
    stub.body = [ast.Expr(ast.Constant(...))]
    return stub


def _closed(named, graph, on_import):
    todo, seen = [*(name for name in named if name in graph), *on_import], set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(graph[name])
    return seen


def relevant_text(text, steps, starts=None):
    """The module text minus the bodies of the functions the checks of these steps cannot reach
    (with the places of the rest, when starts is given: see text_reached_from)."""
    return text_reached_from(text, frozenset().union(*(named_by_checks(step) for step in steps)), starts)


def check_text(text, step, check, starts=None):
    """The module text minus the bodies of the functions that one check of the step cannot reach
    (with the places of the rest, when starts is given: see text_reached_from)."""
    return text_reached_from(text, checks_of(step)[check], starts)


@functools.lru_cache(maxsize=4096)  # pending() and results() ask for the same keys
def text_reached_from(text, named, starts=None):
    """The module text minus the bodies of the functions that code naming `named` cannot reach.

    starts: the lines of text on which its files begin, in order ((1,) for a text of one file);
    given, each piece kept whole is preceded by its place: which file, and its first line there."""
    shape = _shape(text)
    if shape is None:  # not Python: all of it counts, in place
        return text
    pieces, graph, on_import = shape
    keep = _closed(named, graph, on_import)
    return "\n".join(
        _placed(line, starts) + whole if function is None or function in keep else stub
        for function, whole, stub, line in pieces
    )


def _placed(line, starts):
    if starts is None:
        return ""
    file = bisect.bisect_right(starts, line) - 1
    if file < 0:  # before the first file: the heading the assembler writes
        return f"@{line}\n"
    return f"@{file}:{line - starts[file] + 1}\n"


@functools.lru_cache(maxsize=256)
def _shape(text):
    """A module text cut once, for every check that asks: its top-level pieces in order (function
    name or None, the piece's text, the text of a function without its body, its first line), its
    call graph, and what is always reached. None when it does not parse.

    A function whose own text does not compile (``break`` outside a loop, which the parser lets
    through) stops the module from loading at all: it counts as reached by every check. So does
    every function of a module that a reading of its text cannot follow (``globals()``, ``getattr``,
    ``exec`` of a built string, ...: lab/grading/static_reading.py): its checks key on the whole text."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    lines = text.splitlines(keepends=True)
    wholes = ["".join(lines[first_line(node) - 1 : node.end_lineno]) for node in tree.body]
    graph, on_import = _call_graph(tree, wholes)
    if not statically_readable(tree):
        on_import |= set(graph)
    pieces = []
    for node, whole in zip(tree.body, wholes):
        _, _, stub, compiles = _piece(whole, node)
        function = node.name if node.__class__ in FUNCTIONS else None
        pieces.append((function, whole, stub, first_line(node)))
        if function and not compiles:
            on_import.add(function)
    return pieces, graph, on_import


def _compiles(piece):
    try:
        compile(piece, "<piece>", "exec")
    except (SyntaxError, ValueError):
        return False
    return True


def first_line(node):
    """The line a top-level statement starts on, its decorators included."""
    decorators = getattr(node, "decorator_list", None)
    return decorators[0].lineno if decorators else node.lineno
