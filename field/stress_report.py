"""A stress run's report: its figures, its faults, its violations by clause, and where its folder is.

Every sentence comes from the catalogue's [field] table, in the report's language; what the
contract's model says a call must do comes in both languages from the model itself.
"""

from field import recovery
from lab.model.course import all_clauses
from lab.text.messages import words_of

SHOWN_PER_KIND = 3
WORDED = ("problem",)  # a value given as (key, values): worded in the report's language
BILINGUAL = ("expected",)  # a value given as {"en": ..., "ja": ...}: the model's own words
NOT_SHOWN = ("ops", "before", "clause", *WORDED, *BILINGUAL)  # values that are not plain placeholders


def render(summary, label, lang="en", out=print):
    found, words = summary.found, words_of("field", lang)
    out(words("stress_heading", impl=label, workers=summary.workers, seconds=summary.seconds, seed=summary.seed))
    counts = ", ".join(f"{op} {count}" for op, count in sorted(found.counts.items()))
    rows = [
        ("s_processes", {"count": summary.started, "restarted": len(summary.kills)}),
        ("s_operations", {"count": found.operations, "counts": counts or "-", "killed": found.interrupted}),
        ("s_judged", {"count": found.judged, "undecided": found.undecided}),
        ("s_fences", {"count": found.fences, "unlogged": found.unlogged}),
        ("s_jumps", {"count": summary.jumps}),
        ("s_stale_tried", {"count": found.stale_tried}),
        ("s_stale_accepted", {"count": found.stale_accepted}),
        ("s_kills", {"count": len(summary.kills), "survived": summary.kills_survived, "reclaimed": summary.reclaimed}),
        ("s_seed", {"seed": summary.seed}),
    ]
    for key, values in rows:
        out("  " + words(key, **values))
    if summary.passed:
        out(words("stress_passed"))
        return
    if found.faults:
        out(words("f_heading", count=len(found.faults)))
        _render_findings(found.faults, lang, out)
    _render_findings(found.violations, lang, out)
    key = "stress_failed"  # the folder is kept: only a run that could not start removes it
    if found.faults:
        key = "stress_faulty" if summary.folder.exists() else "stress_faulty_early"
    out(words(key, count=len(found.violations), faults=len(found.faults), folder=summary.folder, seed=summary.seed))


def _render_findings(findings, lang, out):
    """Grouped by the clause they break (in the contract's order), each kind in the order it was found."""
    words, clauses = words_of("field", lang), all_clauses(lang)
    by_kind = {}
    for job, key, values in findings:
        by_kind.setdefault((values.get("clause") or "", key), []).append((job, values))
    for (clause, key), found in sorted(by_kind.items(), key=lambda item: (not item[0][0], _clause_order(item[0][0]))):
        if clause:
            out(words("v_kind_clause", clause=clause, kind=words(key + "_title"), count=len(found)))
            out("      " + words("v_clause", clause=clause, text=clauses.get(clause, "")))
        else:
            out(words("v_kind", kind=words(key + "_title"), count=len(found)))
        for job, values in found[:SHOWN_PER_KIND]:
            shown = {k: v for k, v in values.items() if k not in NOT_SHOWN}
            shown |= {k: words(values[k][0], **values[k][1]) for k in WORDED if k in values}
            shown |= {k: values[k][lang if lang in values[k] else "en"] for k in BILINGUAL if k in values}
            where = words("v_db", text=words(key, **shown)) if job == recovery.WHOLE_DB else None
            out("    " + (where or words("v_job", job=job, text=words(key, **shown))))
            for op in values.get("ops", []):
                out(f"        {op.trace(words('op_killed'))}")
            if values.get("before"):
                out("        " + words("v_before"))
                for op in values["before"]:
                    out(f"          {op.trace(words('op_killed'))}")
        if len(found) > SHOWN_PER_KIND:
            out("    " + words("v_more", count=len(found) - SHOWN_PER_KIND))


def _clause_order(clause):
    """'C6.3' -> (6, 3), so that C10.1 would follow C9.1."""
    return tuple(int(part) for part in clause[1:].split(".")) if clause else ()
