"""A step's own rules beside its checks, checks/rules_<NN>_<function>.py (checks/rules.py collects
them through course.toml): its partitions, its model rule and its call strategies.

`dev new-step` writes the file with each part a TODO (`dev update` writes it too, where a step has
none); `dev check` names each part still to write, read without running the file: a part is
missing when one of its names is not bound at the file's top level, or is bound as the scaffold
leaves it (an empty `{}` or `[]`, `None`, a function that only raises NotImplementedError).
"""

import ast

from lab.model.checks import rules_module

# part -> the names the course's shared modules ask of a step's rules (checks/rules.py says what each holds)
PARTS = {
    "partitions": ("PARTITIONS",),
    "model rule": ("rule",),
    "call strategies": ("CALL", "arguments", "COVERING"),
}
SCAFFOLD = '''"""Step {n}'s own rules (rules.py): {function}'s partitions, its model rule and its calls."""

# TODO(step {n}): the kinds of input and stored state {function}'s clauses tell apart, each a test of
# one call's arguments after path and the table before it (at least three; every one reached by the
# step's own checks: tests/test_partitions.py). partitions.py builds the kinds steps share.
PARTITIONS = {{}}


def rule(model, {arguments}):
    """What one call must do, as CONTRACT.md says: a model.Expected naming the clause that decides
    it, the model's rows changed as the table must change."""
    raise NotImplementedError("TODO(step {n}): the model's rule of {function}")


# TODO(step {n}): the strategy of one call (sequences.one_call), its arguments once drawn against the
# model (a sequences.Drawn), and the calls of the covering example (sequences.covering_call) that
# reach every partition from sequences.COVERING_TABLE.
CALL = None


def arguments(drawn):
    raise NotImplementedError("TODO(step {n}): {function}'s arguments after path, from a drawn call")


COVERING = []
'''


def path(root, step):
    return root / "checks" / f"{rules_module(step)}.py"


def scaffold(step):
    return SCAFFOLD.format(n=step.number, function=step.function, arguments=", ".join(step.parameters[1:]))


def write_missing(root, course):
    """Write the scaffold of every step that has no rules file; the paths written. A tree without
    checks/ (a learner's checkout) has no rules to write."""
    written = []
    for step in course if (root / "checks").is_dir() else ():
        if not path(root, step).is_file():
            path(root, step).write_text(scaffold(step), encoding="utf-8")
            written.append(path(root, step))
    return written


def problems(root, step):
    """What the step's rules file still lacks, one sentence each."""
    own = path(root, step)
    shown = own.relative_to(root).as_posix()
    if not own.is_file():
        return [f"step {step.number}: no {shown} (python -m lab dev update writes one to fill in)"]
    try:
        tree = ast.parse(own.read_text(encoding="utf-8"))
    except SyntaxError as error:
        return [f"step {step.number}: {shown} does not parse (line {error.lineno})"]
    written = _written(tree)
    return [
        f"step {step.number}: {shown}: write its {part} ({', '.join(names)})"
        for part, names in PARTS.items()
        if not all(name in written for name in names)
    ]


def _written(tree):
    """The names the module binds at its top level to something other than a placeholder."""
    written = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not _only_raises(node):
            written.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign) and not _empty(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            written |= {target.id for target in targets if isinstance(target, ast.Name)}
    return written


def _empty(value):
    """No value, None, or an empty {} or []."""
    if value is None or isinstance(value, ast.Constant):
        return value is None or value.value is None
    if isinstance(value, ast.Dict):
        return not value.keys
    return isinstance(value, ast.List) and not value.elts


def _only_raises(function):
    """A body of a docstring and `raise NotImplementedError(...)`, as the scaffold leaves it."""
    body = [
        node
        for node in function.body
        if not (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        )
    ]
    raised = body[0].exc if len(body) == 1 and isinstance(body[0], ast.Raise) else None
    called = raised.func if isinstance(raised, ast.Call) else raised
    return isinstance(called, ast.Name) and called.id == "NotImplementedError"
