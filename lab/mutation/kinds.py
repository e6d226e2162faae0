"""The kind of a change: which operator it applies to which construct, whatever the code around it.

The ledger names a reviewed equivalent mutant by its exact lines (claim's `sqlite3.connect(path,
isolation_level=None)` losing its `isolation_level`). Code restyled by hand has other lines with
the same construct (`con = sqlite3.connect(path, timeout=30, isolation_level=None)` in a helper),
where mutmut makes the same change. Two changes are of one kind when the syntax trees differ in
one place, inside the same call and argument, under the same kind of node, by the same operator.
"""

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    call: str | None  # the innermost call around the change: connect, ThreadPoolExecutor
    argument: str | None  # the keyword argument of that call the change lies in, or drops
    within: str  # the kind of node that holds the changed part: keyword, BoolOp, Call
    change: (
        tuple  # ("dropped", what) or (before, after): constants and operators as written, other code as "expression"
    )


def kind_of(before, after):
    """The Kind of the one change from before to after (code: whole functions, or lines such as a
    `with …:` header), or None when either does not parse or they do not differ in one place."""
    old, new = _parse(before), _parse(after)
    if old is None or new is None or ast.dump(old) == ast.dump(new):
        return None
    return _difference(old, new, None, None, "Module")


def _parse(text):
    lines = text.strip("\n")
    for candidate in (lines, lines + "\n    pass"):  # a compound statement's header wants a body
        try:
            return ast.parse(_dedented(candidate))
        except SyntaxError:
            continue
    return None


def _dedented(text):
    lines = text.splitlines()
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    return "\n".join(line[indent:] for line in lines)


def _difference(old, new, call, argument, within):
    """Walk down the two trees while they differ in exactly one place."""
    if type(old) is not type(new) or isinstance(old, ast.Constant) or not isinstance(old, ast.AST):
        return Kind(call, argument, within, (_shape(old), _shape(new)))
    if isinstance(old, ast.Call):
        call, argument = _name(old.func), None
    elif isinstance(old, ast.keyword):
        argument = old.arg
    here = type(old).__name__
    fields = [name for name in old._fields if _dump(getattr(old, name)) != _dump(getattr(new, name))]
    if len(fields) != 1:
        return Kind(call, argument, within, (here, "several parts"))
    before, after = getattr(old, fields[0]), getattr(new, fields[0])
    if not isinstance(before, list):
        return _difference(before, after, call, argument, here)
    if len(before) == len(after):
        pairs = [(x, y) for x, y in zip(before, after) if _dump(x) != _dump(y)]
        if len(pairs) == 1:
            return _difference(*pairs[0], call, argument, here)
    elif len(before) == len(after) + 1:
        for index, dropped in enumerate(before):
            if _dump(before[:index] + before[index + 1 :]) == _dump(after):
                if isinstance(dropped, ast.keyword):
                    return Kind(call, dropped.arg, here, ("dropped", _shape(dropped.value)))
                return Kind(call, argument, here, ("dropped", _shape(dropped)))
    return Kind(call, argument, here, (fields[0], "several parts"))


def _dump(value):
    if isinstance(value, list):
        return [_dump(item) for item in value]
    return ast.dump(value) if isinstance(value, ast.AST) else repr(value)


def _shape(node):
    """A constant or an operator as written; any other code only as code."""
    if isinstance(node, ast.Constant):
        return repr(node.value)
    if isinstance(node, ast.AST) and not node._fields:  # an operator: Gt, Add, And, ...
        return type(node).__name__
    return "expression" if isinstance(node, ast.AST) else repr(node)


def _name(func):
    """The called name, without what it is looked up on: sqlite3.connect -> connect."""
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None
