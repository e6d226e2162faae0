"""What a run finds: the facts a message is made of, and the result types of checks, mutants and
predictions, with their statuses (lab/model/status.py, where every named status is).

A message is facts until a reporter words it: a key of the catalogue and its values (``Words``),
a check's own phrase in every language (``Phrase``), the repr of a worded value (``Quoted``) and
their concatenation (``Joined``); the values are plain strings and numbers (a call as written, a
repr, a file name) that read the same in every language. The child sends them as JSON
(``as_json``), the cache keeps them, and only ``worded(message, lang)`` chooses a language.

A value that holds facts inside a tuple, a list, a set or a dict (a check's got value
``(True, Phrase(...))``) is never written as its Python repr, which would put ``Phrase({'en': …})``
on the learner's screen: ``shown(value)`` writes the container's repr around its facts, each worded
and quoted as ``Quoted`` words one. Words, Joined and checks/support.py's explain() take every
value through it. An exception, alone or inside a container, is a fact too (``raised``): its class
and message, which are code, in the reader's words, never ``TypeError("...")``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

# The statuses of a run, which most of the lab imports from here.
from lab.model.status import LOSSES as LOSSES
from lab.model.status import CheckStatus as CheckStatus
from lab.model.status import MutantStatus as MutantStatus
from lab.model.status import PredictionOutcome as PredictionOutcome
from lab.model.status import PredictionStatus as PredictionStatus
from lab.model.status import StepStatus as StepStatus
from lab.text.messages import say

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any, TypeAlias, TypeVar

    from lab.model.mutants import Mutant

    T = TypeVar("T")  # a plain value (a string, a number), which the facts' functions leave as it is
    # A value of a message: facts, or what reads the same in every language.
    Fact: TypeAlias = "Text | str | int | float | None"


class Text:
    """Part of a message as facts; ``str()`` is the English."""

    def said(self, lang: str) -> str:
        raise NotImplementedError

    def as_json(self) -> dict[str, object]:
        raise NotImplementedError

    def __add__(self, other: object) -> Joined:
        return Joined(self, other)

    def __radd__(self, other: object) -> Joined:
        return Joined(other, self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Text) and self.as_json() == other.as_json()

    def __hash__(self) -> int:
        return hash(repr(self.as_json()))

    def __str__(self) -> str:
        return self.said("en")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.as_json()!r})"


class Words(Text):
    """A key of the catalogue (lab/text/*.toml) and the values it is filled in with."""

    def __init__(self, key: str, **values: object) -> None:
        # A value that JSON cannot carry as it is (a row, a path) is kept as the text it fills in.
        self.key, self.values = key, {name: _carried(value) for name, value in values.items()}

    def said(self, lang: str) -> str:
        return say(self.key, lang, **{name: worded(value, lang) for name, value in self.values.items()})

    def as_json(self) -> dict[str, object]:
        return {"key": self.key, "values": {name: as_json(value) for name, value in self.values.items()}}


class Said(Exception):
    """An error whose message is facts (Words), worded in the language of whoever reports it:
    ``error.said("ja")``; ``str(error)`` is the English."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.words = Words(key, **values)

    def said(self, lang: str = "en") -> str:
        return self.words.said(lang)

    def __str__(self) -> str:
        return self.said()


class Phrase(Text):
    """A check's own phrase, written beside it in every language of the lab."""

    def __init__(self, en: str, ja: str) -> None:
        self.en, self.ja = en, ja

    def said(self, lang: str) -> str:
        return self.ja if lang == "ja" else self.en

    def as_json(self) -> dict[str, object]:
        return {"en": self.en, "ja": self.ja}


class Quoted(Text):
    """The repr of a value that is itself worded: "got: '行なし \'job\''"."""

    def __init__(self, value: Fact) -> None:
        self.value = value

    def said(self, lang: str) -> str:
        return repr(worded(self.value, lang))

    def as_json(self) -> dict[str, object]:
        return {"repr": as_json(self.value)}


class Joined(Text):
    """Parts said one after the other (a sequence of calls, a message and where it raised)."""

    parts: tuple[Fact, ...]

    def __init__(self, *given: object) -> None:
        parts = map(_carried, given)
        self.parts = tuple(part for whole in parts for part in (whole.parts if isinstance(whole, Joined) else (whole,)))

    @classmethod
    def join(cls, separator: object, parts: Iterable[object]) -> Joined:
        """The parts with separator between them, as str.join."""
        return cls(*(piece for at, part in enumerate(parts) for piece in ((part,) if at == 0 else (separator, part))))

    def said(self, lang: str) -> str:
        return "".join(str(worded(part, lang)) for part in self.parts)

    def as_json(self) -> dict[str, object]:
        return {"joined": [as_json(part) for part in self.parts]}


def _carried(value: object) -> Fact:
    """A value as a message carries it: facts, a string or a number as they are; a value that holds
    facts as shown(); anything else as its text (a row, a path)."""
    if isinstance(value, Text | str | int | float | None):
        return value
    return shown(value) if has_text(value) else str(value)


# The containers whose repr shown() writes around the facts inside them: (opening, closing).
_CONTAINERS: dict[type, tuple[str, str]]
_CONTAINERS = {tuple: ("(", ")"), list: ("[", "]"), set: ("{", "}"), frozenset: ("frozenset({", "})"), dict: ("{", "}")}


def has_text(value: object) -> bool:
    """The value is facts (a Text, or an exception, which is worded as a fact), or holds some
    inside its tuples, lists, sets or dicts."""
    if isinstance(value, Text | BaseException):
        return True
    if type(value) is dict:
        return any(has_text(key) or has_text(item) for key, item in value.items())
    # type(value) is a key of _CONTAINERS, a tuple, list, set or frozenset here: mypy does not narrow by `in`
    return type(value) in _CONTAINERS and any(has_text(item) for item in value)  # type: ignore[attr-defined]


def shown(value: object) -> Text | str:
    """The repr of a value, as facts: each Text inside it, at any depth of tuples, lists, sets and
    dicts, is worded in the reader's language and quoted (as Quoted words a whole value), and each
    exception is worded as what was raised (``raised()``), never written as its Python repr. A
    value without facts is its repr, a plain string."""
    if isinstance(value, Text):
        return Quoted(value)
    if isinstance(value, BaseException):
        return raised(value)
    if not has_text(value):
        return repr(value)
    pieces: list[Fact] = []
    _pieces(value, pieces)
    merged: list[Fact] = []  # neighbouring strings as one: the JSON the child sends stays short
    for piece in pieces:
        if merged and isinstance(piece, str) and isinstance(merged[-1], str):
            merged[-1] += piece
        else:
            merged.append(piece)
    return Joined(*merged)


def alone(value: object) -> Text | str:
    """A value on a line of its own, beside a line of words (a failure's got line beside its
    expected line): facts are said as they are, unquoted as the words beside them are; any other
    value is shown(), a string quoted as Python quotes it."""
    return value if isinstance(value, Text) else shown(value)


def raised(error: BaseException) -> Words:
    """An exception as a fact: its class and its message, which are code and read the same in
    every language, in the reader's words ("TypeError: 'NoneType' object is not iterable")."""
    message = message_of(error)
    if message == "":
        return Words("exception_bare", kind=type(error).__name__)
    return Words("exception", kind=type(error).__name__, error=message)


def message_of(error: BaseException) -> Text | str:
    """What an exception says: its facts when it was raised with them, else its text. Arguments
    that hold facts inside a tuple, a list or a dict are shown as Python would show them, the
    facts worded (``AssertionError((True, Phrase(...)))``), never with a repr of the facts."""
    if isinstance(error, Said):
        return error.words
    arguments = error.args
    if len(arguments) == 1 and isinstance(arguments[0], Text):
        return arguments[0]
    if type(error).__str__ is BaseException.__str__ and any(map(has_text, arguments)):
        return shown(arguments[0]) if len(arguments) == 1 else shown(arguments)
    return str(error)


def _pieces(value: object, pieces: list[Fact]) -> None:
    if isinstance(value, Text):
        pieces.append(Quoted(value))
        return
    if isinstance(value, BaseException):
        pieces.append(raised(value))
        return
    if not has_text(value):
        pieces.append(repr(value))
        return
    opening, closing = _CONTAINERS[type(value)]
    pieces.append(opening)
    items = list(value.items()) if type(value) is dict else list(value)  # type: ignore[call-overload]  # as in has_text
    for at, item in enumerate(items):
        if at:
            pieces.append(", ")
        if type(value) is dict:
            _pieces(item[0], pieces)
            pieces.append(": ")
            _pieces(item[1], pieces)
        else:
            _pieces(item, pieces)
    if type(value) is tuple and len(items) == 1:
        pieces.append(",")
    pieces.append(closing)


def worded(value: T | Text, lang: str) -> T | str:
    """A message, or a value in one, in lang: facts are worded, anything else is itself."""
    return value.said(lang) if isinstance(value, Text) else value


def as_json(value: T | Text) -> T | dict[str, object]:
    return value.as_json() if isinstance(value, Text) else value


def from_json(value: T | Text | dict[str, Any]) -> T | Text:
    """The facts of as_json again (strings and numbers are themselves)."""
    if not isinstance(value, dict):
        return value
    if "key" in value:
        return Words(value["key"], **{name: from_json(v) for name, v in value["values"].items()})
    if "joined" in value:
        return Joined(*map(from_json, value["joined"]))
    if "repr" in value:
        return Quoted(from_json(value["repr"]))
    return Phrase(value["en"], value["ja"])


def holds(message: object, fact: object) -> bool:
    """The message is the fact, or has it among its parts or values."""
    if message == fact:
        return True
    if isinstance(message, Joined):
        return any(holds(part, fact) for part in message.parts)
    if isinstance(message, Words):
        return any(holds(value, fact) for value in message.values.values())
    return isinstance(message, Quoted) and holds(message.value, fact)


def replaced(value: Fact, old: str, new: str) -> Fact:
    """The message with old replaced by new in every plain string of it (a file's path)."""
    return mapped(value, lambda text: text.replace(old, new))


def mapped(value: Fact, change: Callable[[str], str]) -> Fact:
    """The message with change applied to every plain string of it."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, Words):
        return Words(value.key, **{name: mapped(v, change) for name, v in value.values.items()})
    if isinstance(value, Joined):
        return Joined(*(mapped(part, change) for part in value.parts))
    if isinstance(value, Quoted):
        return Quoted(mapped(value.value, change))
    if isinstance(value, Phrase):
        return Phrase(change(value.en), change(value.ja))
    return value


@dataclass
class Result:
    """One check run against one target (the learner's code, the reference, a mutant)."""

    nodeid: str
    check: str
    target: str
    step: int
    clauses: list[str]
    status: CheckStatus
    message: Text | str  # facts, or a string that reads the same in every language; "" when it passed
    duration: float
    # Not run this time: kept from a run of the same code and checks (lab/grading/kill_matrix.py).
    # Not part of what a result is: a reused result equals the one it was kept from.
    reused: bool = field(default=False, compare=False)
    # False when the run ended without this result's verdict (the budget ran out before it ran, or
    # the child running a prediction was lost: lab/running/runner.py): such a result is no fact
    # about the code, so no total counts it and the cache store never keeps it (lab/cache.py).
    complete: bool = True

    def __post_init__(self) -> None:
        # Read back from the child's events or from the cache: the enum and the facts again.
        self.status = CheckStatus(self.status)
        self.message = from_json(self.message)

    @property
    def passed(self) -> bool:
        return self.status == CheckStatus.PASSED

    def said(self, lang: str) -> str:
        """The message in lang."""
        return worded(self.message, lang)

    def as_json(self) -> dict[str, object]:
        return {**asdict(self), "message": as_json(self.message)}


@dataclass
class MutantVerdict:
    """A pre-built mutant against its step's checks."""

    mutant: Mutant
    killed_by: list[str]  # names of the checks that failed against the mutant
    passed_by: list[str]  # names of the checks the mutant still passes

    @property
    def survived(self) -> bool:
        return not self.killed_by


@dataclass
class Prediction:
    """A step's prediction (the learner's test) against the reference and the step's mutants."""

    step: int
    file: str  # as the learner would type it
    status: PredictionStatus
    message: Text | str = ""  # facts: why the correct code was rejected, or what is wrong with the file
    outcomes: dict[str, PredictionOutcome] = field(default_factory=dict)  # mutant id -> PredictionOutcome
    cached: bool = False

    def __post_init__(self) -> None:
        # Read back from the cache of class results: the enums and the facts again.
        self.status = PredictionStatus(self.status)
        self.message = from_json(self.message)
        self.outcomes = {mutant_id: PredictionOutcome(outcome) for mutant_id, outcome in self.outcomes.items()}

    def said(self, lang: str) -> str:
        """The message in lang."""
        return worded(self.message, lang)

    def as_json(self) -> dict[str, object]:
        return {**asdict(self), "message": as_json(self.message)}

    @property
    def complete(self) -> bool:
        """Judged, whatever the verdict: a prediction whose run ended without its results is not
        (lab/grading/predictions.py), and the cache store never keeps it (lab/cache.py)."""
        return self.status != PredictionStatus.NOT_JUDGED

    @property
    def written(self) -> bool:
        return self.status != PredictionStatus.NO_PREDICTION

    def caught(self, mutant_id: str) -> bool:
        return self.outcomes.get(mutant_id) == PredictionOutcome.CAUGHT

    @property
    def caught_count(self) -> int:
        return sum(o == PredictionOutcome.CAUGHT for o in self.outcomes.values())

    def catches_the_snippet(self, mutants: Iterable[Mutant]) -> bool:
        snippets = [m for m in mutants if m.worksheet and m.step == self.step]
        return self.status == PredictionStatus.WRITTEN and all(self.caught(m.id) for m in snippets)
