"""The lab's one cache store: JSON values in build/cache/<namespace>/<key>.json.

In the manner of pytest's ``Cache.get``/``Cache.set`` (_pytest/cacheprovider.py): every feature
that keeps results between runs (the kill matrix, the predictions, the steps an implementation
passes, a class's results) uses it under a namespace of its own, with a key that is a digest of
exactly what the value depends on (``key``). A value is never updated in place: a changed input
is a new key.

Results (lab/model/results.py: a check's Result, a Prediction) are given to ``set`` as they are,
and written here; one that is not complete (its run ended without its verdict) makes the whole
value refused. A verdict kept is served again until its inputs change: one that was never found
must be looked for again, whoever asks. (A class run keeps a learner whose budget alone cut the
run short under a namespace of its own, as facts: lab/grading/regrade.py.)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from typing import TYPE_CHECKING

from lab.model.course import LAB_ROOT

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Protocol

    class Kept(Protocol):
        """What the store keeps besides JSON: a check's Result, a Prediction (lab/model/results.py)."""

        @property
        def complete(self) -> bool: ...

        def as_json(self) -> dict[str, object]: ...


ROOT = LAB_ROOT / "build" / "cache"
NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")


def get(namespace: str, key: str, default: Any = None) -> Any:
    """The value stored under namespace/key, or default when there is none or it cannot be read."""
    path = _path(namespace, key)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return default


def set(namespace: str, key: str, value: object) -> bool:  # noqa: A001 - the name pytest's Cache gives it
    """Store a value (JSON, in which results may stand as they are); False when it was refused,
    for it holds an incomplete result. Written to a temporary file first and renamed into place,
    so that two runs at once never read half a value. A read-only checkout keeps nothing: the
    next run computes the value again."""
    path = _path(namespace, key)
    try:
        text = json.dumps(value, default=_stored)
    except Incomplete:
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{key}.", suffix=".tmp")
    except OSError:
        return False
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(partial, path)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    return True


class Incomplete(Exception):
    """A value held a result whose run ended without its verdict."""


def _stored(result: Kept) -> dict[str, object]:
    """A result as JSON, or Incomplete: json.dumps asks for each object it cannot write itself
    (anything else is refused here)."""
    if not hasattr(result, "complete"):
        raise TypeError(f"the cache store keeps JSON and results, not {type(result).__name__}")
    if not result.complete:
        raise Incomplete()
    return result.as_json()


def key(*parts: str) -> str:
    """A digest of the parts (strings) in their order: the key of a value that depends on them."""
    hashed = hashlib.sha256()
    for part in parts:
        hashed.update(part.encode("utf-8", "surrogateescape") + b"\0\1")  # a path's bytes as they are
    return hashed.hexdigest()[:32]


def _path(namespace: str, key: str) -> Path:
    if not (NAME.match(namespace) and NAME.match(key)):
        raise ValueError(f"not a cache namespace and key: {namespace!r}, {key!r}")
    return ROOT / namespace / f"{key}.json"
