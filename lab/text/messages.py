"""The catalogue of every sentence the checker and its reports say to a learner.

One TOML file per language in lab/text/ (en.toml, ja.toml), with the same keys and the same
placeholders (tests/test_message_catalogue.py). Loading, the recorder and the runner word a
broken file, an endless loop or a dead process through here, and the report, the class table
and the command lines word everything else, so that the learner reads every message in the
language of the report. A key inside a [table] is named table.key: say("report.step", ...).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lab.text.language import typed

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

TEXTS = Path(__file__).resolve().parent


def _flat(table: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    for key, value in table.items():
        if isinstance(value, dict):
            yield from _flat(value, f"{prefix}{key}.")
        else:
            yield prefix + key, value


def _load(path: Path) -> dict[str, str]:
    with open(path, "rb") as handle:
        return dict(_flat(tomllib.load(handle)))


class _Catalogue(Mapping[str, dict[str, str]]):
    """Language code -> its sentences, each language's file read the first time it is asked for:
    a process that speaks one language never parses the other's, and one that says nothing (a
    checks' child, whose results are facts) parses none (30 ms of every start)."""

    def __init__(self, files: Iterable[Path]) -> None:
        self._files = {path.stem: path for path in files}
        self._read: dict[str, dict[str, str]] = {}

    def __getitem__(self, lang: str) -> dict[str, str]:
        if lang not in self._read:
            self._read[lang] = _load(self._files[lang])
        return self._read[lang]

    def __contains__(self, lang: object) -> bool:
        return lang in self._files  # without reading the file, as Mapping's own would

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)


# One file per language, named by its code (glossary.toml beside them is the vocabulary, not a language).
CATALOGUE = _Catalogue(sorted(TEXTS.glob("??.toml")))


def say(key: str, lang: str = "en", **values: object) -> str:
    """The text of key in lang (English for a language the lab has no text in), filled in; a make
    command in it carries LAB_LANG when lang is not the language this checkout speaks without it."""
    return typed(CATALOGUE[lang if lang in CATALOGUE else "en"][key].format(**values), lang)


def words_of(table: str, lang: str = "en") -> Callable[..., str]:
    """say() for the keys of one [table] of the catalogue, in lang: words_of("report", "ja")("step", n=4)."""

    def words(key: str, **values: object) -> str:
        return say(f"{table}.{key}", lang, **values)

    return words
