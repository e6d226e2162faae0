"""Every document in two full languages: README.md's Japanese part, and each guide's Japanese twin
(docs/NAME.ja.md beside docs/NAME.md), has every section, table and example of the English, in the
same order, and each links to the other. Output in a transcript may be in either language; what a
learner types (commands, Python examples) is the same in both."""

import itertools

import pytest
from readme_parts import pairs, parts, structure, twins

from lab.model.course import LAB_ROOT

PAIRS = {name: tuple(structure(text) for text in texts) for name, *texts in pairs()}
ENGLISH, JAPANESE = PAIRS["README.md"]


def _of(kind, blocks):
    return [block for block in blocks if block.kind == kind]


def _each(kind):
    """(document, index) of every block of kind in each document's English."""
    return [(name, index) for name, (english, _) in PAIRS.items() for index in range(len(_of(kind, english)))]


@pytest.mark.parametrize("name", PAIRS)
def test_both_parts_have_the_same_headings_at_the_same_levels(name):
    english, japanese = PAIRS[name]
    levels = [[block.level for block in _of("heading", blocks)] for blocks in (english, japanese)]
    assert levels[0] == levels[1], [
        (e.lines[0], j.lines[0])
        for e, j in itertools.zip_longest(_of("heading", english), _of("heading", japanese), fillvalue=None)
        if not e or not j or e.level != j.level
    ][:3]


@pytest.mark.parametrize("name", PAIRS)
def test_both_parts_have_the_same_sequence_of_headings_tables_and_code_blocks(name):
    kinds = [[block.kind for block in blocks] for blocks in PAIRS[name]]
    assert kinds[0] == kinds[1]


@pytest.mark.parametrize("name,index", _each("table"))
def test_each_table_has_the_same_columns_and_rows_in_both_parts(name, index):
    english, japanese = (_of("table", blocks)[index] for blocks in PAIRS[name])
    assert japanese.shape == english.shape, (english.lines[0], japanese.lines[0])


# Where each part has its reader choose their own language, the English part's `make language en`
# and the Japanese part's `make language ja` are the same line to type.
OWN_LANGUAGE = {"make language en": "make language (own)", "make language ja": "make language (own)"}


def _typed(block):
    typed = block.typed()
    return typed if typed is None else [OWN_LANGUAGE.get(line, line) for line in typed]


@pytest.mark.parametrize("name,index", _each("code"))
def test_each_code_block_asks_the_learner_to_type_the_same_in_both_parts(name, index):
    english, japanese = (_of("code", blocks)[index] for blocks in PAIRS[name])
    assert _typed(japanese) == _typed(english), (english.lines[:2], japanese.lines[:2])


def test_each_part_starts_with_the_command_that_settles_its_readers_language():
    # Until a language is chosen the lab speaks the locale's: the first line to type fixes the choice.
    for blocks, lang in ((ENGLISH, "en"), (JAPANESE, "ja")):
        assert _of("code", blocks)[0].typed()[0] == f"make language {lang}"


def test_each_part_links_to_the_other():
    english, japanese = parts()
    assert "](#リースと-fencing-token-のラボ)" in english
    assert "](#the-lease-and-fencing-token-lab)" in japanese
    for name, twin in twins().items():
        texts = [(LAB_ROOT / each).read_text(encoding="utf-8") for each in (name, twin)]
        assert f"]({twin.rpartition('/')[2]})" in texts[0] and f"]({name.rpartition('/')[2]})" in texts[1]


def test_every_guide_in_docs_has_its_japanese_twin():
    guides = {path.name for path in (LAB_ROOT / "docs").glob("*.md")}
    english = {name for name in guides if not name.endswith(".ja.md")}
    assert english and guides == english | {name.removesuffix(".md") + ".ja.md" for name in english}
    assert {f"docs/{name}" for name in english} <= set(twins())


def test_the_structure_is_read_from_the_whole_part():
    # Documents whose parts the parser reads as nearly empty would pass every test above.
    every = [block for english, _ in PAIRS.values() for block in english]
    assert len(_of("heading", every)) >= 20 and len(_of("table", every)) >= 10 and len(_of("code", every)) >= 10
    assert all(_of("heading", english) for english, _ in PAIRS.values())
