"""One frozen Settings per command: what it was asked, made once from its arguments, the
environment (LAB_LANG, the locale) and the learner's stored settings (.lab/language).

Every verb of lab/commands/ gets the same Settings and passes its values down unchanged, so the
language, the time limit, the budget and the implementation are each decided in one place.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lab.model.course import LAB_ROOT
from lab.model.defaults import TIME_LIMIT
from lab.model.implementation import UsageError
from lab.text.language import chosen, guessed
from lab.text.messages import say

if TYPE_CHECKING:
    import argparse


@dataclass(frozen=True)
class Settings:
    lang: str  # --lang, else LAB_LANG, else the language `make language` stored, else the locale's
    guessed: bool = False  # lang is the locale's, for want of a choice: the command says how to make one
    root: Path = LAB_ROOT  # the checkout whose steps/ and .lab/ the learner's verbs read
    time_limit: float = TIME_LIMIT
    budget: float | None = None  # seconds, for the verbs that have one
    impl: Path | None = None  # the implementation, absolute, for the verbs that take --impl
    impl_label: str = ""  # IMPL as typed: how reports name it
    out: Path | None = None  # where the verb writes, for the verbs that write

    @classmethod
    def of(cls, arguments: argparse.Namespace, root: Path = LAB_ROOT) -> Settings:
        """The Settings of a parsed command line: a verb's missing option takes its default."""
        typed = getattr(arguments, "lang", None)
        lang = typed or chosen(root)
        impl = getattr(arguments, "impl", None)
        out = getattr(arguments, "out", None)
        return cls(
            lang=lang,
            guessed=not typed and guessed(root),
            root=Path(root),
            time_limit=float(getattr(arguments, "time_limit", TIME_LIMIT)),
            budget=getattr(arguments, "budget", None),
            impl=resolve_impl(impl, lang) if impl is not None else None,
            impl_label=impl or "",
            out=Path(out) if out else None,
        )


def resolve_impl(text: str, lang: str = "en") -> Path:
    """IMPL as typed: relative to the current folder, else to the lab ('steps', 'solutions' work
    from anywhere); UsageError when neither exists."""
    path = Path(text)
    if not path.exists() and (LAB_ROOT / text).exists():
        path = LAB_ROOT / text
    if not path.exists():
        raise UsageError(say("no_impl", lang, impl=text))
    # Absolute (the children run in a scratch folder, not in the current one), links kept: a
    # step file that is a link, or lies in a linked folder, is refused by the reader.
    return Path(os.path.abspath(path))
