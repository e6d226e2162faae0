"""What crosses the channel back from a learner process, rebuilt for the checks.

Values come as plain data (lab/sandbox/learner/plain.py) and are rebuilt as tuples, lists,
dicts and bytes; anything else is an Opaque value equal to nothing. Exceptions are rebuilt as
the same built-in or sqlite3 class, or a subclass of the nearest one named like the learner's,
so the checks read them exactly as they would read a local call.
"""

from __future__ import annotations

import builtins
import sqlite3
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lab.sandbox.shapes import Raised


class Opaque:
    """A value the learner's code returned that is not plain data: shown, never equal to anything."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def decoded(value: object) -> object:
    """A value as it crossed the channel (shapes.Plain), rebuilt; parsed JSON of any other shape as it is."""
    if isinstance(value, list):
        return [decoded(item) for item in value]
    if not isinstance(value, dict):
        return value
    if "tuple" in value:
        return tuple(decoded(item) for item in value["tuple"])
    if "list" in value:
        return [decoded(item) for item in value["list"]]
    if "dict" in value:
        return {_hashable(decoded(k)): decoded(v) for k, v in value["dict"]}
    if "bytes" in value:
        return bytes.fromhex(value["bytes"])
    return Opaque(value.get("repr", "?"))


def _hashable(key: object) -> object:
    return key if getattr(key, "__hash__", None) else repr(key)


def rebuilt(raised: Raised) -> Exception:
    """An exception of the class the learner's code raised, or of its nearest built-in or sqlite3
    base class (a subclass of that class, named like the learner's)."""
    mro = [tuple(pair) for pair in raised["mro"]]
    base = next((found for found in map(_known, mro) if found), Exception)
    if not issubclass(base, Exception):  # SystemExit, KeyboardInterrupt: failures of the check
        base = Exception
    cls = base if _known(mro[0]) is base else _named(mro[0][1], base)
    try:
        error = cls(raised["message"])
    except TypeError:  # a class whose constructor wants more (UnicodeDecodeError)
        error = _named(mro[0][1], Exception)(raised["message"])
    # Where the learner's code raised, which the recorder reads back (lab/running/verdict.py).
    where = raised.get("where")
    error.lab_where = tuple(where) if where else None  # type: ignore[attr-defined]
    return error


def _known(pair: tuple[str, ...]) -> type[BaseException] | None:
    module, name = pair
    found = getattr({"builtins": builtins, "sqlite3": sqlite3}.get(module), name, None)
    return found if isinstance(found, type) and issubclass(found, BaseException) else None


@cache
def _named(name: str, base: type[Exception]) -> type[Exception]:
    return type(name.rsplit(".", 1)[-1], (base,), {"__module__": "learner"})
