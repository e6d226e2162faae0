"""Where the learner's commands keep what they remember: the ignored folder `.lab/` of a checkout.

Every file here is small JSON, written atomically, and read back as empty when it is missing or
unreadable: nothing in `.lab/` is ever needed to check code, only to answer faster or to recall.
"""

import json
import os
from pathlib import Path

from lab.model.course import LAB_ROOT

STATE_DIR = ".lab"


def state_dir(root=LAB_ROOT):
    return Path(root) / STATE_DIR


def read_json(root, name):
    try:
        return json.loads((state_dir(root) / name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def write_json(root, name, value):
    path = state_dir(root) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False), encoding="utf-8")
    partial.replace(path)


def shown(path, root=LAB_ROOT):
    """A path as the learner types it: relative to the checkout when it lies inside."""
    try:
        return str(Path(path).relative_to(root))
    except ValueError:
        return str(path)
