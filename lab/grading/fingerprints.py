"""Python source as fingerprints, for the similarity check (lab/grading/similarity.py).

A file is read with Python's own tokenizer. Comments, blank lines and layout are dropped, and so is
every statement that is a string alone (a docstring), so deleting docstrings and comments changes
nothing. Every other string (an f-string too) is one token. A name after a dot (`conn.execute`) is
kept as it is written, since renaming cannot reach a library's attribute; every other name becomes
a placeholder numbered in order of first use within its run of K tokens, so a consistent renaming
changes nothing while `a = a + b` still differs from `a = b + c`. Every run of K tokens is hashed
with a stable hash (blake2b: the same fingerprints in every process, unlike Python's salted
hash()), and in each window of W hashes the smallest is kept (winnowing), with the lines it came
from.
"""

import ast
import hashlib
import io
import keyword
import tokenize
from dataclasses import dataclass

K = 12  # tokens per fingerprinted run: about one short statement
W = 4  # a shared run of K + W - 1 tokens is always seen
DROPPED = {tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING}
ENDS = {tokenize.NEWLINE, tokenize.ENDMARKER}
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)  # Python 3.12 cuts an f-string in pieces
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)


@dataclass(frozen=True)
class Token:
    text: str
    name: bool  # a name other than an attribute: a placeholder in its run
    first: int  # the lines it spans
    last: int


def tokens(text):
    """The normalized tokens of Python source, docstrings and comments left out; as far as it
    reads when it does not."""
    found, pending = [], []  # pending: strings that began a statement: a docstring if it ends with them
    starts, previous, depth = True, None, 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            kind = token.type
            if depth:  # inside an f-string (3.12): it is one string token already
                depth += (kind == _FSTRING_START) - (kind == _FSTRING_END)
                continue
            if kind in ENDS:
                pending.clear()
                starts, previous = True, None
                continue
            if kind in DROPPED:
                starts = starts or kind in (tokenize.INDENT, tokenize.DEDENT)
                continue
            if kind == _FSTRING_START:
                depth = 1
            string = kind in (tokenize.STRING, _FSTRING_START)
            item = Token(
                "S" if string else token.string,
                kind == tokenize.NAME and not keyword.iskeyword(token.string) and previous != ".",
                token.start[0],
                token.end[0],
            )
            if string and (starts or pending):
                pending.append(item)
            else:
                found += pending
                found.append(item)
                pending = []
            starts, previous = False, token.string
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return found


def _runs(sequence):
    """(hash, first line, last line) of every run of K tokens, names numbered within the run."""
    for i in range(len(sequence) - K + 1):
        run = sequence[i : i + K]
        numbered = {}
        words = [numbered.setdefault(t.text, f"#{len(numbered)}") if t.name else t.text for t in run]
        digest = hashlib.blake2b("\0".join(words).encode(), digest_size=8).digest()
        yield int.from_bytes(digest, "big"), run[0].first, run[-1].last


def every_run(text):
    """The hashes of every run of K tokens of text, not winnowed: what scaffolding takes out."""
    return {digest for digest, _, _ in _runs(tokens(text))}


def fingerprints(text):
    """The winnowed hashes of text, each with the lines it spans where first found: in every window
    of W consecutive K-token hashes, the smallest."""
    runs = list(_runs(tokens(text)))
    if len(runs) <= W:
        chosen = runs
    else:
        chosen = [min(runs[start : start + W]) for start in range(len(runs) - W + 1)]
    kept = {}
    for digest, first, last in chosen:
        kept.setdefault(digest, (first, last))
    return kept


def skeleton(text):
    """The import statements and `def` lines of a Python file, in order."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ""
    lines = text.splitlines()
    kept = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            kept.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            kept.update(range(first, max(node.lineno, node.body[0].lineno - 1) + 1))
    return "\n".join(lines[n - 1] for n in sorted(kept) if n <= len(lines))
