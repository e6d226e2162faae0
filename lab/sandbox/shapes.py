"""The shapes that cross the sandbox's boundaries, for the type checker alone (pyproject.toml's mypy).

What the grader and a learner process send each other on their channel, one JSON object a line
(lab/sandbox/learner/server.py lists the requests), and what the sandbox reads of a run's plan. Every module
imports these names under ``if TYPE_CHECKING:``, so none of them is made at run time, and the
learner process, which imports nothing but the standard library, never sees this module. On the
grader's side a reply is parsed JSON, checked for its id alone (lab/sandbox/channel.py): these
types say what the lab's server sends, not what a reply is proven to hold.
"""

from collections.abc import Sequence
from typing import Literal, Protocol, Required, TypeAlias, TypedDict

# A value as it crosses the channel (lab/sandbox/learner/plain.py): None, a bool, an int, a float or a str as it is;
# a tuple, a list, a dict or bytes tagged ({"tuple": [...]}, {"dict": [[key, value], ...]},
# {"bytes": "0a"}); anything else opaque ({"opaque": "module.Class", "repr": "..."}).
Plain: TypeAlias = "None | bool | int | float | str | dict[str, str | list[Plain] | list[list[Plain]]]"
# Where a learner's code is: (the path the learner reads, the line); a JSON array on the wire.
Where: TypeAlias = Sequence[str | int]


class FileToRun(TypedDict):
    filename: str  # the path Python names in tracebacks
    shown: str  # the path as the learner reads it
    text: str


class Request(TypedDict, total=False):
    """A request of the grader: its id and op, and the fields that op reads."""

    id: Required[int]
    op: Required[str]
    files: list[FileToRun]  # load
    fresh: bool  # load
    name: str  # call
    args: list[Plain]  # call
    kwargs: dict[str, Plain]  # call
    at: int | None  # pause
    function: str  # watch
    socket: str  # watch
    wait: float  # watch: seconds the stand-in waits for each answer of the checks (Meeting.longest_wait)


class Problem(TypedDict):
    """What went wrong running one file: it did not compile, or it raised."""

    kind: Literal["syntax", "raised"]
    line: int | None
    type: str  # the exception's class name
    error: str  # its message


class Ran(TypedDict):
    """One file of a load: its problem, and the module's callable names once it ran."""

    problem: Problem | None
    callables: list[str]


class Raised(TypedDict):
    """An exception of the learner's code: its classes (module, qualified name), its message, where."""

    mro: list[list[str]]
    message: str
    where: Where | None


class Answer(TypedDict, total=False):
    """The reply to a call: what it returned, or what it raised."""

    id: Required[int]
    value: Plain
    raised: Raised


class Event(TypedDict):
    """A message of the learner process's own, not a reply: a held call's "paused"."""

    event: Literal["paused"]


class Settings(Protocol):
    """What the sandbox reads of a run's plan (lab/model/targets.py): a plan with a scratch folder."""

    @property
    def time_limit(self) -> float: ...

    @property
    def scratch(self) -> str: ...

    @property
    def confined(self) -> bool: ...
