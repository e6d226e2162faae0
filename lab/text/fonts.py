"""The fonts a chart draws the catalogue's words in (bench.svg/.png, class.svg/.png).

matplotlib's own font, DejaVu Sans, has no Japanese: alone, it draws kana and kanji as empty
boxes. A Japanese chart therefore falls back, glyph by glyph, to IPAexGothic from the
matplotlib-fontja wheel (a dev dependency, like matplotlib): the font file is registered, the
package never imported, since importing it sets the font of the whole process. Being in the wheel,
it draws the same glyphs on every machine, so the same class still draws the same SVG; a
Japanese font of the system (Noto Sans CJK JP and the like) serves only where the wheel is
missing. Glyphs are stored as paths (matplotlib's default svg.fonttype), so the SVG shows the
same on a reader's machine without the font. English charts use DejaVu Sans alone, as before.
"""

from __future__ import annotations

from functools import cache
from importlib import metadata
from pathlib import Path

LATIN = "DejaVu Sans"
BUNDLED = ("matplotlib-fontja", "matplotlib_fontja/fonts/ipaexg.ttf", "IPAexGothic")
SYSTEM_JAPANESE = ("Noto Sans CJK JP", "IPAexGothic", "IPAGothic", "Hiragino Sans", "Yu Gothic", "Meiryo")


def families(lang: str) -> list[str]:
    """font.family for a chart in lang: DejaVu Sans first, then a Japanese font for what it lacks."""
    japanese = japanese_family() if lang == "ja" else None
    return [LATIN, japanese] if japanese else [LATIN]


@cache
def japanese_family() -> str | None:
    """The family that draws Japanese: the wheel's IPAexGothic, else one of the system's; None
    when the machine has neither (the chart's Japanese then shows as boxes)."""
    from matplotlib import font_manager

    distribution, relative, family = BUNDLED
    try:
        path = Path(str(metadata.distribution(distribution).locate_file(relative)))
    except metadata.PackageNotFoundError:
        path = None
    if path is not None and path.is_file():
        font_manager.fontManager.addfont(str(path))
        return family
    installed = {font.name for font in font_manager.fontManager.ttflist}
    return next((name for name in SYSTEM_JAPANESE if name in installed), None)
