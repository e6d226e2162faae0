"""Mark what differs when a failure's got and expected lines hold a list, tuple or dict.

checks/support.py explain() writes "got: <repr>" and "expected: <text ending in a repr>"; two
long reprs side by side hide a one-item difference. Here both are parsed back (ast.literal_eval,
never eval), and the differing items are listed, marked - expected / + got, the equal ones
counted. Messages of any other shape pass through unchanged.
"""

import ast
import difflib

from lab.text.messages import CATALOGUE, words_of

# The labels of explain()'s second and third lines, in every language of the catalogue.
GOT, EXPECTED = (tuple(table["checks.explain"].splitlines()[line].split()[0] for table in CATALOGUE.values()) for line in (1, 2))
LONG = 100  # a line longer than this gives its repr's place to a short summary


def marked(message, lang="en"):
    """The message's lines, with the differences of its got/expected values added when it has them."""
    lines = message.splitlines()
    got_at = _find(lines, GOT)
    expected_at = _find(lines, EXPECTED)
    if got_at is None or expected_at is None:
        return lines
    got, *got_span = _literal(lines[got_at])
    expected, *expected_span = _literal(lines[expected_at])
    if not _comparable(got, expected) or got == expected:
        return lines
    differences = _dict_lines(got, expected) if isinstance(got, dict) else _list_lines(got, expected, lang)
    for at, value, (start, end) in ((got_at, got, got_span), (expected_at, expected, expected_span)):
        if len(lines[at]) > LONG:
            lines[at] = lines[at][:start] + words_of("learner", lang)("diff_items", count=len(value)) + lines[at][end:]
    return lines + [words_of("learner", lang)("diff_heading")] + [f"  {line}" for line in differences]


def _find(lines, prefixes):
    return next((i for i, line in enumerate(lines) if line.startswith(prefixes)), None)


def _literal(line):
    """(the first list/tuple/dict in the line, its start, its end) or (None, 0, 0)."""
    for start, char in enumerate(line):
        if char in "[({":
            end = _closing(line, start)
            try:
                value = ast.literal_eval(line[start:end])
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
            return value, start, end
    return None, 0, 0


def _closing(line, start):
    """Just past the bracket that closes the one at start (quotes respected), or the line's end."""
    depth, quote, escaped = 0, None, False
    for at in range(start, len(line)):
        char = line[at]
        if quote:
            escaped, quote = (not escaped and char == "\\"), (None if char == quote and not escaped else quote)
        elif char in "'\"":
            quote = char
        elif char in "[({":
            depth += 1
        elif char in "])}":
            depth -= 1
            if depth == 0:
                return at + 1
    return len(line)


def _comparable(got, expected):
    both_dicts = isinstance(got, dict) and isinstance(expected, dict)
    both_lists = isinstance(got, list | tuple) and isinstance(expected, list | tuple)
    return both_dicts or both_lists


def _dict_lines(got, expected):
    lines = []
    for key in list(expected) + [k for k in got if k not in expected]:
        if got.get(key, ...) != expected.get(key, ...):
            if key in expected:
                lines.append(f"- {key!r}: {expected[key]!r}")
            if key in got:
                lines.append(f"+ {key!r}: {got[key]!r}")
    return lines


def _list_lines(got, expected, lang):
    compared = list(difflib.ndiff([repr(x) for x in expected], [repr(x) for x in got]))
    lines = [line for line in compared if line.startswith(("- ", "+ "))]
    equal = sum(line.startswith("  ") for line in compared)
    return lines + ([words_of("learner", lang)("diff_equal", count=equal)] if equal else [])
