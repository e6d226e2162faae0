"""The parser of every verb: argparse, worded in the command's language from the catalogue.

An option's help is never written beside it: it is the catalogue's ``options.<command path>.<dest>``
in the language of the command, the nearest one up the path (``options.lease.claim.job``, else
``options.lease.job``, else ``options.job``), filled with the option's default. argparse's own
words (``usage:``, the group titles, ``-h``) come from the catalogue too, and a mistake in what was
typed is one line in the same language and a UsageError (exit status 2), not usage + exit.
"""

import argparse
import functools
import os
import re
import unicodedata
from pathlib import Path

from lab.model.course import LAB_ROOT
from lab.model.implementation import UsageError
from lab.text.language import LANGUAGES
from lab.text.messages import CATALOGUE, say

ROOT = "python -m lab"

# argparse's messages for a mistake (Python 3.11's wording), each with the catalogue key that says
# the same in the command's language; a message not listed here is shown as argparse wrote it.
MISTAKES = (
    (
        re.compile(r"argument (?P<argument>.+?): invalid choice: (?P<value>.+) \(choose from (?P<choices>.+)\)$"),
        "choice",
    ),
    (re.compile(r"argument (?P<argument>.+?): invalid \w+ value: (?P<value>.+)$"), "value"),
    (re.compile(r"argument (?P<argument>.+?): expected (one|at least one) argument$"), "expected"),
    (re.compile(r"argument (?P<argument>.+?): not allowed with argument (?P<other>.+)$"), "not_with"),
    (re.compile(r"the following arguments are required: (?P<arguments>.+)$"), "required"),
    (re.compile(r"unrecognized arguments: (?P<arguments>.+)$"), "unrecognized"),
)


class MissingText(LookupError):
    """An option, or a report format's option, has no help in the catalogue: the lab is broken (a
    new option's words go in every language's file), said in one line, never as a traceback."""


class OneLineParser(argparse.ArgumentParser):
    """One verb's parser (or the root's, or a verb's own sub-verb) in the language `lang`."""

    def __init__(self, *arguments, lang="en", **keywords):
        self.lang = lang
        self.texts_used = []  # the catalogue keys of its help lines (tests/test_docs.py: none unused)
        super().__init__(
            *arguments, add_help=False, formatter_class=functools.partial(_Formatter, lang=lang), **keywords
        )
        self.path = self.prog.removeprefix(ROOT).split()  # ["lease", "claim"]: the verbs typed after ROOT
        self._positionals.title = say("options.usage.positionals", lang)
        self._optionals.title = say("options.usage.optionals", lang)
        self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS)

    def text(self, name, **values):
        """The catalogue's text for `name` nearest this parser's place in the command tree."""
        catalogue = CATALOGUE["en"]
        for depth in range(len(self.path), -1, -1):
            key = ".".join(("options", *self.path[:depth], name))
            if key in catalogue:
                self.texts_used.append(key)
                return say(key, self.lang, **values)
        key = ".".join(("options", *self.path, name))
        raise MissingText(say("missing_text", self.lang, text=key, file=f"lab/text/{self.lang}.toml"))

    def add_argument(self, *names, **keywords):
        """An argument whose help is the catalogue's (argparse.SUPPRESS hides it, as usual)."""
        action = super().add_argument(*names, **keywords)
        if action.help is None:
            action.help = self.text(action.dest, default=default_shown(action.default))
            action.help = action.help.replace("%", "%%")  # argparse fills %(name)s in help texts
        return action

    def add_subparsers(self, **keywords):
        """Sub-verbs parsed in this parser's language, with a help line each from the catalogue."""
        return super().add_subparsers(parser_class=functools.partial(OneLineParser, lang=self.lang), **keywords)

    def error(self, message):
        raise UsageError(say("options.usage.mistake", self.lang, prog=self.prog, mistake=worded(message, self.lang)))


def default_shown(default):
    """An option's default as its help line shows it: a float without trailing zeros, a path inside
    the lab relative to the lab (the same on every clone, however long or spaced its path)."""
    if default in (None, argparse.SUPPRESS):
        return ""
    if isinstance(default, float):
        return f"{default:g}"
    if isinstance(default, str) and os.path.isabs(default) and Path(default).is_relative_to(LAB_ROOT):
        return Path(default).relative_to(LAB_ROOT).as_posix()
    return default


def typed_language(argv):
    """The language named by --lang in the command line, before it is parsed (the parser's own
    help and mistakes are worded in it); None when none is named. Settings.of decides the
    command's language once it is parsed."""
    for index, word in enumerate(argv):
        named = word.removeprefix("--lang=") if word.startswith("--lang=") else None
        if word == "--lang" and index + 1 < len(argv):
            named = argv[index + 1]
        if named in LANGUAGES:
            return named
    return None


def worded(message, lang):
    """argparse's message about a mistake, in lang."""
    for pattern, key in MISTAKES:
        found = pattern.match(message)
        if found:
            return say(f"options.usage.{key}", lang, **found.groupdict())
    return message


class _Formatter(argparse.HelpFormatter):
    def __init__(self, prog, lang="en", **keywords):
        super().__init__(prog, **keywords)
        self.lang = lang

    def add_usage(self, usage, actions, groups, prefix=None):
        prefix = say("options.usage.prefix", self.lang) if prefix is None else prefix
        super().add_usage(usage, actions, groups, prefix)

    def _split_lines(self, text, width):
        return wrapped(self._whitespace_matcher.sub(" ", text).strip(), width)

    def _fill_text(self, text, width, indent):
        return "\n".join(indent + line for line in wrapped(self._whitespace_matcher.sub(" ", text).strip(), width))


# Japanese is written without spaces: a line breaks between phrases (bunsetsu), as BudouX finds
# them, never inside a word; a phrase wider than a whole line breaks after any wide character, but
# not before these marks (kinsoku), which stay with what they close.
NO_BREAK_BEFORE = set("、。，．）」』】〕・ー：；！？)],.:;!?")


def wrapped(text, width):
    """text in lines of at most `width` columns, a wide (CJK) character counting two: broken at a
    space, or between two Japanese phrases, as textwrap breaks English."""
    lines, line, room = [], "", max(width, 10)
    for word in re.findall(r"\S+ ?|\s", text):
        pieces = [word] if not any(_columns(c) == 2 for c in word) else _wide_pieces(word, room)
        for piece in pieces:
            if line and _width(line + piece.rstrip()) > room:
                lines.append(line.rstrip())
                line = ""
            line += piece
    return [*lines, line.rstrip()] if line.strip() else lines


def _wide_pieces(word, room):
    """A word with wide characters cut where a line may break: between its phrases; a phrase
    wider than the line, after each wide character but before no closing mark."""
    return [piece for phrase in _phrases().parse(word) for piece in _characters(phrase, room)]


@functools.cache
def _phrases():
    import budoux  # only when Japanese is wrapped: help in Japanese, a mistake typed

    return budoux.load_default_japanese_parser()


def _characters(phrase, room):
    if _width(phrase.rstrip()) <= room:
        return [phrase]
    pieces = []
    for char in phrase:
        if pieces and (char in NO_BREAK_BEFORE or (_columns(char) == 1 and _columns(pieces[-1][-1]) == 1)):
            pieces[-1] += char
        else:
            pieces.append(char)
    return pieces


def _width(text):
    return sum(_columns(c) for c in text)


def _columns(char):
    return 2 if unicodedata.east_asian_width(char) in "WF" else 1
