"""In the compare phase: where the learner's function differs from the reference's, if it does.

Only a difference in what the code does is worth a look: the two functions are compared as
syntax trees (comments, blank lines, quotes and docstrings aside), and only when they differ is a
short unified diff of their code shown, reference first. The diff compares code with code: the
docstrings and comments of both sides (the reference's are English, a learner's often Japanese)
and the blank lines are left out of it, so its lines go to what the code does.
"""

import ast
import difflib
import io
import tokenize
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
    lines = _diff(reference[1], mine[1])
    return display_path(file), lines[:LIMIT], max(0, len(lines) - LIMIT)


def _diff(reference, mine):
    """A unified diff of two functions' lines of code, (row, text) each, with one line of context;
    each hunk is headed by the rows of the two files where it begins (@@ -12 +14 @@), the lines
    left out of the diff notwithstanding."""
    old, new = [text for _, text in reference], [text for _, text in mine]
    lines = []
    for group in difflib.SequenceMatcher(None, old, new, autojunk=False).get_grouped_opcodes(1):
        lines.append(f"@@ -{_row(reference, group[0][1])} +{_row(mine, group[0][3])} @@")
        for tag, old_from, old_to, new_from, new_to in group:
            if tag == "equal":
                lines += [f" {text}" for text in old[old_from:old_to]]
                continue
            lines += [f"-{text}" for text in old[old_from:old_to]]
            lines += [f"+{text}" for text in new[new_from:new_to]]
    return lines


def _row(code, at):
    """The file's row of the line at index `at` of the code, or of the line after the last."""
    return code[at][0] if at < len(code) else code[-1][0] + 1 if code else 1


def _function(path, name):
    """(the function's tree, its lines of code as (row, text)) or None when the file does not define it."""
    try:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        comments = [token for token in _tokens(text) if token.type == tokenize.COMMENT]
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, tokenize.TokenError):
        return None
    found = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    if not found:
        return None
    node = found[-1]
    lines = [
        line.rstrip("\r\n") for line in io.StringIO(text, newline=None).readlines()
    ]  # rows as ast and tokenize count them
    return node, _code(lines, node, comments)


def _tokens(text):
    return list(tokenize.generate_tokens(io.StringIO(text).readline))


def _code(lines, node, comments):
    """The function's source lines without its docstrings (its own and those of what it defines)
    and comments, and without the lines that held only them or nothing."""
    kept = {row: list(line) for row, line in enumerate(lines, 1) if node.lineno <= row <= node.end_lineno}
    spans = [(c.start, c.end) for c in comments if c.start[0] in kept]
    for inner in ast.walk(node):
        if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and _is_docstring(inner.body[0]):
            docstring = inner.body[0]
            first, last = docstring.lineno, docstring.end_lineno
            # ast counts columns in bytes of UTF-8, the lines in characters
            start = len(lines[first - 1].encode()[: docstring.col_offset].decode(errors="ignore"))
            end = len(lines[last - 1].encode()[: docstring.end_col_offset].decode(errors="ignore"))
            spans.append(((first, start), (last, end)))
    for (first, start), (last, end) in sorted(spans, reverse=True):  # the last first: no span moves another
        for row in range(first, last + 1):
            line = kept[row]
            line[start if row == first else 0 : end if row == last else len(line)] = []
    code = ((row, "".join(line).rstrip()) for row, line in kept.items())
    return [(row, text) for row, text in code if text.strip()]


def _is_docstring(statement):
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _shape(node):
    """The function's tree without its docstring: what it does, not how it is written down."""
    body = node.body[1:] if _is_docstring(node.body[0]) else node.body
    return ast.dump(ast.Module(body=body, type_ignores=[])) + ast.dump(node.args)
