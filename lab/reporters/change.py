"""A mutant's change as the compare phase shows it: the lines it removes (-) and adds (+), each
indented as in the file, and the lines its find and replace share as context. A shared line that
is a docstring or a comment is left out: it is the reference's prose (in English), not the change,
and a Japanese learner reading the diff should meet code only."""

import difflib

PROSE = ("#", '"""', "'''")  # how a docstring's or a comment's line starts


def change_lines(find: str, replace: str) -> list[tuple[str, str]]:
    """(sign, line) for each line shown: "-" removed, "+" added, " " kept."""
    old, new = find.splitlines() or [""], replace.splitlines() or [""]
    shown: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            shown += [(" ", line) for line in old[i1:i2] if not line.strip().startswith(PROSE)]
        else:
            shown += [("-", line) for line in old[i1:i2]] + [("+", line) for line in new[j1:j2]]
    return shown
