"""The files of the code under test as the report names them, with their own line numbers.

mutmut mutates one module, the one assemble() makes of the implementation; the learner has no
such file. A steps-like folder is named as its step files (steps/04-claim/step.py, line 12 of
that file), a single .py file as itself.
"""

from lab.model.implementation import display_path, placed_files


class Places:
    def __init__(self, placed):
        self._placed = sorted(placed, key=lambda place: place[2])  # (name, text, its line 1 in the module)

    @classmethod
    def of(cls, implementation):
        return cls([(display_path(file.path), file.text, start) for file, start in placed_files(implementation)])

    @classmethod
    def one(cls, name, text):
        """A single file that is the module itself."""
        return cls([(name, text, 1)])

    def texts(self):
        """name -> text, in the module's order."""
        return {name: text for name, text, _ in self._placed}

    def where(self, line):
        """(the file's name, its own line) of a line of the module."""
        name, _, start = next(place for place in reversed(self._placed) if place[2] <= line)
        return name, line - start + 1
