"""Text a learner controls, made inert for the place it goes.

A folder's or a zip's name, an exception's message, a file listing: anything a learner hands in
reaches the terminal, class.md, the feedback pages, the CSV files and the JUnit XML. There it must
show as the text it is, never act: no terminal escape that rewrites a row, no bidirectional
override that reorders one, no Markdown that adds a link, an image or a heading, no spreadsheet
formula, no character that makes the XML unreadable, no raw override in a JSON file. Every writer of a class run's outputs passes
learner text through the function for its place; the lab's own words need none of it.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import TypeVar

    Cell = TypeVar("Cell")  # a CSV cell: a string made inert, anything else as it is

# C0 and C1 controls, DEL, the bidirectional marks, overrides and isolates, and lone surrogates
# (which no UTF-8 file can hold): each is shown as its escape, \x1b or \u202e.
# Also every invisible format character (zero-width spaces and joiners, the soft hyphen, word
# joiners, the BOM, line and paragraph separators): "ada" and "ada\u200b" must not look alike.
_HIDDEN = re.compile(
    "[\x00-\x1f\x7f-\x9f\xad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff]"
)
_LINE_BREAKS = "\n\r\t"
# What CommonMark (and GitHub's tables and strikethrough) can read as markup inside a line: with
# each escaped by a backslash, no link, image, emphasis, code span, HTML or cell border can form.
_MARKDOWN = re.compile(r"([\\`*_\[\]<>!|~&#])")
# A cell a spreadsheet would evaluate (OWASP's list: = + - @, a tab, a carriage return).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# Characters XML 1.0 cannot hold at all, even escaped: those outside its Char production (tab, line
# feed, carriage return, U+0020-U+D7FF, U+E000-U+FFFD, U+10000-U+10FFFF), named as they are, since
# the production's own ranges, negated, take every command 9 ms to compile.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: object, keep: str = "") -> str:
    """text with every hidden character shown as its escape; the line breaks named in keep stay."""
    text = str(text)
    if keep:
        return _HIDDEN.sub(lambda m: m.group() if m.group() in keep else _escaped(m), text)
    return _HIDDEN.sub(_escaped, text)


def terminal(text: object) -> str:
    """One line for the terminal: nothing in it moves the cursor, colours or reorders the screen."""
    return visible(text)


def markdown(text: object) -> str:
    """Inline Markdown (a table cell, a list item, a heading) that reads as the text itself. GitHub
    also links bare `www.`, `scheme://` and e-mail addresses: the dot after www and the colon before
    // are escaped, and an at sign is set as code, which breaks each of them and reads the same."""
    escaped = _MARKDOWN.sub(r"\\\1", visible(text))
    return _AUTOLINK.sub(lambda m: "\\" + m.group(), escaped).replace("@", "`@`")


_AUTOLINK = re.compile(r"(?<=www)\.|(?<=\w):(?=//)", re.IGNORECASE)


def code_block(text: object) -> str:
    """A fenced block that holds text as it is, whatever fences the text holds itself."""
    text = visible(text, keep="\n")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"


def csv_cell(value: Cell) -> Cell | str:
    """A cell no spreadsheet evaluates: text starting as a formula gets a leading apostrophe.
    Numbers stay numbers."""
    if not isinstance(value, str):
        return value
    text = visible(value, keep="\n")
    return "'" + text if text.startswith(_FORMULA_START) else text


def csv_row(row: Iterable[Cell]) -> list[Cell | str]:
    return [csv_cell(value) for value in row]


def file_name(name: str, limit: int = 200) -> str:
    """A learner's name fit to name their output files and to show: composed (NFC: macOS writes
    "が" in a folder's name as "か" and a combining mark, which is the same name), hidden characters
    escaped, no '/', at most `limit` bytes of UTF-8. A name that had to change otherwise ends in a
    digest of the original, so that two names never become one."""
    name = unicodedata.normalize("NFC", name)
    shown = visible(name).replace("/", "\\x2f")
    if shown == name and len(name.encode("utf-8", "surrogateescape")) <= limit:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return shown.encode()[: limit - len(digest) - 1].decode("utf-8", "ignore") + "~" + digest


def json_text(value: object, indent: int | None = 2) -> str:
    """value as a JSON document whose bytes hold no hidden character: each is written as its JSON
    escape (\\u202e), so a program reads the very same strings and a terminal shows no override.
    Lone surrogates, which UTF-8 cannot hold, are escaped the same way."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)  # a raw line break is the layout's own
    return _HIDDEN.sub(lambda m: m.group() if m.group() == "\n" else f"\\u{ord(m.group()):04x}", text)


def xml(text: object) -> str:
    """Text an XML 1.0 file can hold and a terminal shows as it is: hidden characters and those XML
    cannot hold are shown as their escapes; line breaks and tabs stay."""
    return _NOT_XML.sub(_escaped, visible(text, keep="\n\t"))
