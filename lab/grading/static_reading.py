"""Whether reading a module's text finds every way into its functions: the condition under which
lab/grading/reach.py may key a check's verdict on less than the whole text.

A function's body runs only when its object is called. Its object is made when its ``def`` runs,
bound to its name in the module's globals and handed to its decorators; from there, code can get
it only by naming it (which the reach rule follows), or by looking it up by a string or through
the interpreter's own structures: ``globals()``, ``vars``, ``getattr``, ``eval``/``exec`` of a built
string, ``__dict__`` and ``__globals__``, a frame's ``f_globals``, ``sys.modules``, ``importlib``.
A verdict may also depend on a function that ran in an earlier check of the same learner process,
through state it left in a module of the standard library (an adapter registered with sqlite3,
a hook set on threading).

So a module is *statically readable* only when none of those can happen: it imports only from
modules known to offer no such way in (``IMPORTS``, no star, no relative import); it names no
built-in that looks up or runs by string (``DYNAMIC_BUILTINS``) and no dunder name but
``__name__``; it reads no attribute that is private (``_x``), a frame's, a traceback's or a
generator's (``f_``, ``tb_``, ``gi_``, ``cr_``, ``ag_``) or one that reaches process-wide state
(``PROCESS_WIDE``); and no top-level function assigns or deletes an attribute but a connection's
settings (``conn.row_factory = ...``; a class's body is always part of every key, as is
module-level code). Anything else keys on the whole text, which
is sound for any code: this rule can only make a key narrower when it is safe, never wrong.
"""

import ast

IMPORTS = frozenset(
    {
        "__future__",
        "collections",
        "collections.abc",
        "concurrent",
        "concurrent.futures",
        "contextlib",
        "dataclasses",
        "datetime",
        "enum",
        "functools",
        "itertools",
        "json",
        "math",
        "queue",
        "sqlite3",
        "sqlite3.dbapi2",
        "threading",
        "time",
        "typing",
    }
)
DYNAMIC_BUILTINS = frozenset(
    {
        "__import__",
        "breakpoint",
        "compile",
        "delattr",
        "dir",
        "eval",
        "exec",
        "getattr",
        "globals",
        "hasattr",
        "help",
        "input",
        "locals",
        "open",
        "setattr",
        "vars",
    }
)
FRAME_PREFIXES = ("_", "f_", "tb_", "gi_", "cr_", "ag_")
PROCESS_WIDE = frozenset(
    {
        "ForwardRef",
        "adapters",
        "converters",
        "currentframe",
        "enable_callback_tracebacks",
        "enumerate",
        "excepthook",
        "get_type_hints",
        "modules",
        "register_adapter",
        "register_converter",
        "setprofile",
        "setprofile_all_threads",
        "settrace",
        "settrace_all_threads",
        "stack_size",
    }
)
# What a top-level function may assign: the settings of a connection or cursor, which no object
# shared by the whole process has.
CONNECTION_SETTINGS = frozenset({"autocommit", "isolation_level", "row_factory", "text_factory"})
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def statically_readable(tree):
    """True when no function of the module can be reached but by its name (see the docstring)."""
    for node in ast.walk(tree):
        if not _plain(node):
            return False
    return not any(_writes_attributes(node) for node in tree.body if node.__class__ in FUNCTIONS)


def _plain(node):
    if isinstance(node, ast.Import):
        return all(alias.name in IMPORTS for alias in node.names)
    if isinstance(node, ast.ImportFrom):
        return (
            node.level == 0
            and node.module in IMPORTS
            and all(alias.name != "*" and _plain_name(alias.name) for alias in node.names)
        )
    if isinstance(node, ast.Name):
        return _plain_name(node.id) and node.id not in DYNAMIC_BUILTINS
    if isinstance(node, ast.Attribute):
        return _plain_name(node.attr) and not node.attr.startswith(FRAME_PREFIXES)
    return True


def _plain_name(name):
    return name not in PROCESS_WIDE and (name == "__name__" or not name.startswith("__"))


def _writes_attributes(function):
    return any(
        isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store | ast.Del)
        and (node.attr not in CONNECTION_SETTINGS or isinstance(node.ctx, ast.Del))
        for node in ast.walk(function)
    )
