"""A value as it crosses the channel from the learner process: plain JSON data, never an object of
the learner's (its ``__eq__`` could say yes to everything). Standard library only, like every
module of this package."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see server.py)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from lab.sandbox.shapes import Plain

MAX_TEXT = 2000  # characters of an error message or a repr sent back


def plain(value: Any, depth: int = 0) -> Plain:
    """A value as JSON: None, bools, ints, floats and strs as they are; tuples, lists, dicts and
    bytes tagged; anything else (a Row, a subclass of int, an object of the learner's) as an
    opaque repr that equals nothing on the other side. value: Any, for it is told apart by its exact
    type, which mypy does not follow."""
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return value  # type: ignore[no-any-return]  # a JSON scalar, by its exact type
    if depth < 20 and kind in (tuple, list):
        return {"tuple" if kind is tuple else "list": [plain(item, depth + 1) for item in value]}
    if depth < 20 and kind is dict:
        return {"dict": [[plain(k, depth + 1), plain(v, depth + 1)] for k, v in value.items()]}
    if kind is bytes:
        return {"bytes": value.hex()}
    return {"opaque": f"{kind.__module__}.{kind.__qualname__}", "repr": bounded_text(value, repr)}


def bounded_text(value: object, how: Callable[[object], str] = str) -> str:
    try:
        return how(value)[:MAX_TEXT]
    except BaseException:  # noqa: BLE001 - a learner's __str__ may raise anything
        return f"<{type(value).__name__}>"
