"""Mark what differs when a failure's got and expected values are lists, tuples or dicts.

A check's failure is the facts of checks/support.py explain(): what was called, the repr of what
came back and, where the contract names one, the repr of the value it expects (``want``). Two
long reprs side by side hide a one-item difference: here the differing items are listed,
marked - expected / + got with their index, the equal ones counted. The values are read back from their reprs
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
    """The items that differ, each labelled with its side and its index in that side's list:
    '- expected[2]: None', '+ got[2]: 1'; then how many items are equal. Lists of one length are
    compared index by index, others as difflib aligns them."""
    said = words_of("learner", lang)
    if len(got) == len(expected):  # index by index: a list of results, one per racer or owner
        differing = [at for at, (mine, theirs) in enumerate(zip(got, expected)) if mine != theirs]
        lines = [
            line
            for at in differing
            for line in (
                "- " + said("diff_expected", at=at, value=repr(expected[at])),
                "+ " + said("diff_got", at=at, value=repr(got[at])),
            )
        ]
        equal = len(got) - len(differing)
        return lines + ([said("diff_equal", count=equal)] if equal else [])
    lines, at, equal = [], {"- ": 0, "+ ": 0}, 0
    for line in difflib.ndiff([repr(x) for x in expected], [repr(x) for x in got]):
        sign, item = line[:2], line[2:]
        if sign in at:
            lines.append(sign + said("diff_expected" if sign == "- " else "diff_got", at=at[sign], value=item))
            at[sign] += 1
        elif sign == "  ":
            at, equal = {side: index + 1 for side, index in at.items()}, equal + 1
    return lines + ([said("diff_equal", count=equal)] if equal else [])
