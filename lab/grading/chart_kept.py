"""The class chart, drawn once per picture: class.svg and class.png show only a few numbers of the
class, worded in the run's language (lab/grading/class_chart.py draws them), so a run that would
draw the same picture again (a re-grade that moved nothing the chart shows, a --lang re-run in a
language drawn before) takes both files from the lab's cache store instead of loading matplotlib,
which costs a re-grade of an unchanged class about two seconds of its three.
"""

import base64
import json
from importlib import metadata
from pathlib import Path

from lab import cache
from lab.text.messages import CATALOGUE

NAMESPACE = "class-chart"
FILES = {"class.svg": False, "class.png": True}  # name -> binary
DRAWER = Path(__file__).with_name("class_chart.py")


def write(caught, failed, learners, out, lang="en"):
    """class_chart.draw(caught, failed, learners, out, lang), or the files it drew for the same
    numbers in the same language."""
    key = _key(caught, failed, learners, lang)
    kept = cache.get(NAMESPACE, key)
    if kept is not None and set(kept) == set(FILES):
        for name, binary in FILES.items():
            data = base64.b64decode(kept[name]) if binary else kept[name].encode("utf-8")
            (Path(out) / name).write_bytes(data)
        return
    from lab.grading import class_chart  # matplotlib loads only when a picture is new

    class_chart.draw(caught, failed, learners, Path(out), lang)
    drawn = {}
    for name, binary in FILES.items():
        data = (Path(out) / name).read_bytes()
        drawn[name] = base64.b64encode(data).decode() if binary else data.decode("utf-8")
    cache.set(NAMESPACE, key, drawn)


def _key(caught, failed, learners, lang):
    """What the picture shows and in which words, the code that draws it, the matplotlib that does
    and the font it draws Japanese in."""
    shown = {
        "caught": None if caught is None else [[m.id, m.worksheet, hits, wrote] for m, hits, wrote in caught],
        "failed": [[clause, len(names)] for clause, names in failed],
        "learners": learners,
        "lang": lang,
    }
    words = {key: text for key, text in CATALOGUE[lang].items() if key.startswith("class.chart_")}
    return cache.key(
        DRAWER.read_text(encoding="utf-8"),
        metadata.version("matplotlib"),
        _version("matplotlib-fontja") if lang == "ja" else "",
        json.dumps(shown),
        json.dumps(words, sort_keys=True),
    )


def _version(distribution):
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "none"
