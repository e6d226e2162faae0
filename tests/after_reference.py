"""A fixture of a few steps made runnable: the reference's functions, then the fixture's, in one
file (its own definitions come last, and win). Used by the independent fixtures' and the claim_many
attacks' tests."""

from lab.dev import independent
from lab.model.course import load_course
from lab.model.implementation import assemble, read
from lab.model.mutants import SOLUTIONS_DIR


def runnable(path, steps, folder):
    """The fixture at path when it defines the functions of every step up to the last of `steps`;
    else a file in folder that holds the reference's functions and then the fixture's."""
    if set(range(1, max(steps) + 1)) <= set(independent.defined(path.read_text(encoding="utf-8"), load_course())):
        return path
    whole = folder / path.name
    whole.write_text(assemble(read(SOLUTIONS_DIR)) + "\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    return whole
