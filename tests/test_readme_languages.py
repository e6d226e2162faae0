"""One README in two full languages: the Japanese part has every section, table and example of the
English part, in the same order, and each part links to the other. Output in a transcript may be in
either language; what a learner types (commands, Python examples) is the same in both."""

import itertools

import pytest
from readme_parts import parts, structure

ENGLISH, JAPANESE = (structure(part) for part in parts())


def _of(kind, blocks):
    return [block for block in blocks if block.kind == kind]


def test_both_parts_have_the_same_headings_at_the_same_levels():
    levels = [[block.level for block in _of("heading", blocks)] for blocks in (ENGLISH, JAPANESE)]
    assert levels[0] == levels[1], [
        (e.lines[0], j.lines[0])
        for e, j in itertools.zip_longest(*map(lambda b: _of("heading", b), (ENGLISH, JAPANESE)), fillvalue=None)
        if not e or not j or e.level != j.level
    ][:3]


def test_both_parts_have_the_same_sequence_of_headings_tables_and_code_blocks():
    kinds = [[block.kind for block in blocks] for blocks in (ENGLISH, JAPANESE)]
    assert kinds[0] == kinds[1]


@pytest.mark.parametrize("index", range(len(_of("table", ENGLISH))))
def test_each_table_has_the_same_columns_and_rows_in_both_parts(index):
    english, japanese = _of("table", ENGLISH)[index], _of("table", JAPANESE)[index]
    assert japanese.shape == english.shape, (english.lines[0], japanese.lines[0])


# Where each part has its reader choose their own language, the English part's `make language en`
# and the Japanese part's `make language ja` are the same line to type.
OWN_LANGUAGE = {"make language en": "make language (own)", "make language ja": "make language (own)"}


def _typed(block):
    typed = block.typed()
    return typed if typed is None else [OWN_LANGUAGE.get(line, line) for line in typed]


@pytest.mark.parametrize("index", range(len(_of("code", ENGLISH))))
def test_each_code_block_asks_the_learner_to_type_the_same_in_both_parts(index):
    english, japanese = _of("code", ENGLISH)[index], _of("code", JAPANESE)[index]
    assert _typed(japanese) == _typed(english), (english.lines[:2], japanese.lines[:2])


def test_each_part_starts_with_the_command_that_settles_its_readers_language():
    # Until a language is chosen the lab speaks the locale's: the first line to type fixes the choice.
    for blocks, lang in ((ENGLISH, "en"), (JAPANESE, "ja")):
        assert _of("code", blocks)[0].typed()[0] == f"make language {lang}"


def test_each_part_links_to_the_other():
    english, japanese = parts()
    assert "](#リースと-fencing-token-のラボ)" in english
    assert "](#the-lease-and-fencing-token-lab)" in japanese


def test_the_structure_is_read_from_the_whole_part():
    # A README whose parts the parser reads as nearly empty would pass every test above.
    assert len(_of("heading", ENGLISH)) >= 20 and len(_of("table", ENGLISH)) >= 10 and len(_of("code", ENGLISH)) >= 10
