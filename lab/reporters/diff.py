"""Mark what differs when a failure's got and expected values are lists, tuples or dicts.

A check's failure is the facts of checks/support.py explain(): what was called, the repr of what
came back and, where the contract names one, the repr of the value it expects (``want``). Two
long reprs side by side hide a one-item difference: here the differing items are listed,
marked - expected / + got, the equal ones counted. The values are read back from their reprs
(ast.literal_eval, never eval); a message without both is shown as it is.
"""

import ast
import difflib

from lab.model.results import Joined, Words, worded
from lab.text.messages import words_of

EXPLAIN = "checks.explain"  # the catalogue's key of a check's failure: called, got, expected
LONG = 100  # a line longer than this gives its repr's place to a short summary


def marked(message, lang="en"):
    """The message's lines in lang, with the differences of its got and wanted values added when it has them."""
    lines = str(worded(message, lang)).splitlines()
    explained = _explained(message)
    if explained is None or "want" not in explained.values:
        return lines
    got_repr, want_repr = explained.values["got"], explained.values["want"]
    got, expected = _literal(got_repr), _literal(want_repr)
    if not _comparable(got, expected) or got == expected:
        return lines
    differences = _dict_lines(got, expected) if isinstance(got, dict) else _list_lines(got, expected, lang)
    # The got line follows the lines of the call; the expected line follows it.
    got_at = len(str(worded(explained.values["called"], lang)).split("\n"))
    for at, shown, value in ((got_at, got_repr, got), (got_at + 1, want_repr, expected)):
        if len(lines[at]) > LONG:
            lines[at] = lines[at].replace(shown, words_of("learner", lang)("diff_items", count=len(value)), 1)
    return lines + [words_of("learner", lang)("diff_heading")] + [f"  {line}" for line in differences]


def _explained(message):
    """The explain() facts the message begins with (notes may follow them), or None."""
    first = message.parts[0] if isinstance(message, Joined) else message
    return first if isinstance(first, Words) and first.key == EXPLAIN else None


def _literal(shown):
    """The value of a repr, or None when it is not a literal (an exception, a worded phrase)."""
    if not isinstance(shown, str):
        return None
    try:
        return ast.literal_eval(shown)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


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
