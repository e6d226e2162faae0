"""Where the learner's commands keep what they remember: the ignored folder `.lab/` of a checkout.

Every file here is small JSON, written atomically, and read back as empty when it is missing or
unreadable: nothing in `.lab/` is ever needed to check code, only to answer faster or to recall.
A command makes one Store for its checkout and passes it to whatever remembers.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

STATE_DIR = ".lab"


class Store:
    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)  # the checkout: its steps/ are the learner's
        self.folder = self.root / STATE_DIR

    def read(self, name: str) -> dict[str, Any]:
        """The object stored as name; empty when it is missing, unreadable, or JSON that is no object."""
        try:
            found = json.loads((self.folder / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return found if isinstance(found, dict) else {}

    def write(self, name: str, value: object) -> None:
        path = self.folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False), encoding="utf-8")
        partial.replace(path)


def shown(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> str:
    """A path as the learner types it: relative to root when it lies inside."""
    try:
        return str(Path(path).relative_to(root))
    except ValueError:
        return str(path)
