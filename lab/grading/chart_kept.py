"""The class chart, drawn once per picture: class.svg and class.png show only a few numbers of the
class (lab/grading/class_chart.py draws them, in English whatever the run's language), so a run
that would draw the same picture again (a --lang re-run, a re-grade that moved nothing the chart
shows) takes both files from the lab's cache store instead of loading matplotlib, which costs a
re-grade of an unchanged class about two seconds of its three.
"""

import base64
import json
from importlib import metadata
from pathlib import Path

from lab import cache

NAMESPACE = "class-chart"
FILES = {"class.svg": False, "class.png": True}  # name -> binary
DRAWER = Path(__file__).with_name("class_chart.py")


def write(caught, failed, learners, out):
    """class_chart.draw(caught, failed, learners, out), or the files it drew for the same numbers."""
    key = _key(caught, failed, learners)
    kept = cache.get(NAMESPACE, key)
    if kept is not None and set(kept) == set(FILES):
        for name, binary in FILES.items():
            data = base64.b64decode(kept[name]) if binary else kept[name].encode("utf-8")
            (Path(out) / name).write_bytes(data)
        return
    from lab.grading import class_chart  # matplotlib loads only when a picture is new

    class_chart.draw(caught, failed, learners, Path(out))
    drawn = {}
    for name, binary in FILES.items():
        data = (Path(out) / name).read_bytes()
        drawn[name] = base64.b64encode(data).decode() if binary else data.decode("utf-8")
    cache.set(NAMESPACE, key, drawn)


def _key(caught, failed, learners):
    """What the picture shows, the code that draws it and the matplotlib that does."""
    shown = {
        "caught": None if caught is None else [[m.id, m.worksheet, hits, wrote] for m, hits, wrote in caught],
        "failed": [[clause, len(names)] for clause, names in failed],
        "learners": learners,
    }
    return cache.key(DRAWER.read_text(encoding="utf-8"), metadata.version("matplotlib"), json.dumps(shown))
