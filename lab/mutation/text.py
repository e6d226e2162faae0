"""The report as text: the terminal summary and reports/mutation/report.md, in the learner's
language (lab/text/*.toml, [mutation]; a survivor's clauses from its step's contract in that
language, an equivalent's reason from the ledger in that language); check names and mutant ids
stay as they are.

Everything is sorted and nothing depends on the clock, so that two runs on the same code give
the same report.
"""

from lab.model.course import all_clauses
from lab.model.results import MutantStatus
from lab.mutation.model import percent
from lab.text.messages import say, words_of


def summary_lines(report, lang="en"):
    """The terminal summary: survivors first, each with its diff, then the scores."""
    words = words_of("mutation", lang)
    lines = []
    survivors = report.survivors()
    if survivors:
        lines.append(words("survivors_summary", count=len(survivors)))
        for m in survivors:
            lines += [
                "",
                f"  {m.id}  [{origin(m, words)}, {words('step', n=m.step)}, {m.function}: {status(m, words)}]  {m.file}:{m.location[0]}",
            ]
            lines += ["    " + line for line in m.diff.splitlines()]
            lines += [
                "    "
                + words("contract", clauses=", ".join(report.clauses_of(m)), question=say("mutation.question", lang))
            ]
            if report.own_ledger:  # IMPL=steps is make's default
                impl = "" if report.impl == "steps" else f" IMPL={report.impl}"
                lines.append("    " + words("record_hint", id=m.id, impl=impl, file=report.own_ledger))
        lines.append("")
    lines.append(words("score_heading", impl=report.impl))
    for step in report.steps():
        detected, scored = report.score(step.number)
        shown = (
            f"{detected}/{scored}  {percent(detected, scored):5.1f}%"
            if step.number in report.steps_checked
            else words("not_checked_yet")
        )
        lines.append(f"  {words('step', n=step.number)} {step.function:<11} {shown}")
    detected, scored = report.score()
    lines.append(
        "  "
        + words(
            "overall",
            detected=detected,
            scored=scored,
            percent=percent(detected, scored),
            equivalent=len(report.equivalents()),
            count=len(report.mutmut()),
        )
    )
    if report.prebuilt():  # about the reference and the lab's checks: only in a report on the reference
        caught = sum(m.detected for m in report.prebuilt())
        lines.append("  " + words("prebuilt_caught", caught=caught, count=len(report.prebuilt())))
    if report.unused_ledger:
        lines.append("  " + words("unused_ledger", entries=", ".join(report.unused_ledger)))
    return lines


def status(mutant, words):
    """The mutant's status in the report's language (the status itself stays in mutation.json)."""
    return words("status_" + (MutantStatus.EQUIVALENT if mutant.equivalent else mutant.status).replace(" ", "_"))


def origin(mutant, words):
    return words("origin_" + mutant.origin)


def markdown(report, lang="en"):
    words = words_of("mutation", lang)
    out = [f"# {words('title', impl=report.impl)}", "", words("md_intro"), ""]
    out += [
        f"## {words('score')}",
        "",
        _row(words(k) for k in ("col_step", "col_function", "col_killed", "col_scored", "col_score")),
        "|---|---|---|---|---|",
    ]
    for step in report.steps():
        detected, scored = report.score(step.number)
        score = f"{percent(detected, scored)}%" if step.number in report.steps_checked else words("not_checked")
        out.append(f"| {step.number} | `{step.function}` | {detected} | {scored} | {score} |")
    detected, scored = report.score()
    out.append(f"| {words('all_steps')} | | {detected} | {scored} | {percent(detected, scored)}% |")
    figures = {"mutants": len(report.mutmut()), "equivalent": len(report.equivalents())}
    if report.prebuilt():  # about the reference and the lab's checks: only in a report on the reference
        out += [
            "",
            words(
                "md_counts", **figures, caught=sum(m.detected for m in report.prebuilt()), count=len(report.prebuilt())
            ),
            "",
        ]
    else:
        out += ["", words("md_counts_mutmut", **figures), ""]
    survivors = report.survivors()
    sep = say("learner.separator", lang)  # 、 in Japanese prose
    out += [f"## {words('survivors', count=len(survivors))}", ""]
    if not survivors:
        out += [words("no_survivors"), ""]
    clause_texts = all_clauses(lang)
    for m in survivors:
        out += [
            f"### `{m.id}` ({sep.join((origin(m, words), words('step', n=m.step), f'`{m.function}`', status(m, words), f'`{m.file}:{m.location[0]}`'))})",
            "",
            "```diff",
            m.diff,
            "```",
            "",
        ]
        out += [f"- **{cid}** {clause_texts[cid]}" for cid in report.clauses_of(m)]
        out += ["", f"**{say('mutation.question', lang)}**", ""]
    out += [f"## {words('equivalents', count=len(report.equivalents()))}", ""]
    for m in report.equivalents():
        how = words("by_kind") if m.equivalent.by_kind else words("not_run")
        out += [
            f"- `{m.id}` ({sep.join((words('step', n=m.step), f'`{m.function}`', how))}): `{m.equivalent.id}`: {m.equivalent.reason_in(lang)}",
            "",
            "  ```diff",
            *["  " + line for line in m.diff.splitlines()],
            "  ```",
            "",
        ]
    columns = ("col_mutant", "col_origin", "col_step", "col_function", "col_status", "col_killed_by")
    out += [f"## {words('every_mutant')}", "", _row(words(k) for k in columns), "|---|---|---|---|---|---|"]
    for m in report.mutants:
        out.append(
            f"| `{m.id}` | {origin(m, words)} | {m.step} | `{m.function}` | {status(m, words)} | {', '.join(m.killed_by) or '-'} |"
        )
    if report.unused_ledger:
        out += ["", f"## {words('unused_heading')}", ""] + [f"- {entry}" for entry in report.unused_ledger]
    out += ["", f"## {words('diffs')}", ""]
    for m in report.mutants:
        out += [
            f"### `{m.id}`",
            "",
            words("killed_by", checks=", ".join(m.killed_by) or "-"),
            "",
            "```diff",
            m.diff,
            "```",
            "",
        ]
    return "\n".join(out).rstrip() + "\n"


def _row(cells):
    return "| " + " | ".join(cells) + " |"
