"""`make equivalent ID WHY="…"`: record one surviving mutant of the learner's code as equivalent,
in the learner's own ledger (lab.mutation.equivalents.learner_ledger), for them.

The mutant is read from the stage of the last mutation report of that code, which must still be
the code's text: a mutant id names a change of that text only. The entry is the lab's format, a
[[mutant]] with the function, its line(s) before and after the change and the learner's reason,
so that it matches the same change again when mutmut numbers its mutants differently.
"""

import json
from pathlib import Path

from lab.model.implementation import UsageError, assemble, display_path, read
from lab.model.results import MutantStatus
from lab.mutation import equivalents, last_run, stage, variants
from lab.text.messages import say


def record(impl, mutant_id, why, stage_dir, lang="en"):
    """Add the entry to impl's ledger; the message to print."""
    why = " ".join(why.split())
    if not why:
        raise UsageError(say("mutation.why_required", lang))
    variant = _variant(impl, mutant_id, stage_dir, lang)
    removed, added = equivalents.changed_lines(variant)
    entry = {"function": variant.function, "before": "\n".join(removed), "after": "\n".join(added), "reason": why}
    path = equivalents.learner_ledger(impl)
    shown = display_path(path)
    ledger = equivalents.Ledger(path)  # a ledger that is not valid TOML stops here, untouched
    if ledger.match(variant) is not None:
        return say("mutation.already_recorded", lang, id=mutant_id, file=shown)
    # a new ledger starts with what it is, in the learner's language
    text = path.read_text(encoding="utf-8") if path.exists() else say("mutation.ledger_header", lang)
    path.write_text(text.rstrip("\n") + "\n\n" + _toml(entry), encoding="utf-8")
    return say("mutation.recorded", lang, id=mutant_id, function=variant.function, file=shown)


def _variant(impl, mutant_id, stage_dir, lang):
    """The Variant the last report of impl named mutant_id; a UsageError when there was no such
    report, the code changed since, the report had no such mutant or did not find it surviving."""
    mutated = Path(stage_dir) / "mutants" / f"{stage.MODULE}.py"
    staged = Path(stage_dir) / f"{stage.MODULE}.py"
    label = display_path(impl)
    if not mutated.is_file() or not staged.is_file():
        raise UsageError(say("mutation.no_report_yet", lang, impl=label))
    source = assemble(read(impl, lang=lang))
    if staged.read_text(encoding="utf-8") != source:
        raise UsageError(say("mutation.report_outdated", lang, impl=label))
    found = {v.name: v for v in variants.read_variants(mutated.read_text(encoding="utf-8"), stage.MODULE, source)}
    if mutant_id not in found:
        raise UsageError(say("mutation.no_such_mutant", lang, id=mutant_id, impl=label))
    _refuse_unless_it_survived(stage_dir, source, mutant_id, label, lang)
    return found[mutant_id]


def _refuse_unless_it_survived(stage_dir, source, mutant_id, label, lang):
    """A UsageError unless the last report, finished, found mutant_id surviving (or equivalent
    already): one that a check catches can be told apart, and one that no check ran is not known
    to survive."""
    finding = last_run.finding(stage_dir, source, mutant_id)
    if finding is None:  # mutmut's mutants were written, but the report did not finish
        raise UsageError(say("mutation.no_report_yet", lang, impl=label))
    status, killed_by = finding
    if status.detected:
        raise UsageError(say("mutation.caught_not_equivalent", lang, id=mutant_id, check=killed_by[0], impl=label))
    if status not in (MutantStatus.SURVIVED, MutantStatus.EQUIVALENT):
        worded = say(f"mutation.status_{status.name.lower()}", lang)
        raise UsageError(say("mutation.not_a_survivor", lang, id=mutant_id, status=worded, impl=label))


def _toml(entry):
    """One [[mutant]] table; JSON's string escapes are TOML's basic strings' too."""
    lines = ["[[mutant]]"] + [f"{key} = {json.dumps(value, ensure_ascii=False)}" for key, value in entry.items()]
    return "\n".join(lines) + "\n"
