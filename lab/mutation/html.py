"""reports/mutation/index.html: one self-contained page (no scripts, no network) with the source,
every mutant inline under the line it changes, the checks that kill it, and the kill matrix, in
the learner's language. The catalogue's texts are the lab's own HTML; every value is escaped."""

from html import escape

from lab.model.course import all_clauses
from lab.model.results import CheckStatus, MutantStatus
from lab.mutation.model import percent
from lab.mutation.text import origin, status
from lab.text.messages import say, words_of

STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "Hiragino Sans", "Hiragino Kaku Gothic ProN", "Noto Sans CJK JP",
  "Noto Sans JP", "Yu Gothic", YuGothic, Meiryo, sans-serif; margin: 2em; color: #1d1d1f; max-width: 1600px; }
h1, h2, h3 { font-weight: 600; } code, pre { font: 12.5px/1.4 ui-monospace, Menlo, Consolas, "Noto Sans Mono CJK JP", monospace; }
table { border-collapse: collapse; } td, th { border: 1px solid #d0d0d7; padding: 2px 8px; }
.score td { text-align: right; } .score td:nth-child(2) { text-align: left; }
.src { border: 1px solid #d0d0d7; } .src .ln { color: #8a8a94; text-align: right; user-select: none; width: 3em; }
.src td { border: none; padding: 0 8px; white-space: pre; font: 12.5px/1.4 ui-monospace, Menlo, Consolas, "Noto Sans Mono CJK JP", monospace; }
.src tr.hit td.code { background: #fff7d6; }
details.mutant { margin: 2px 0 6px 4em; border-left: 4px solid #3a9d5d; padding: 2px 8px; background: #f5fbf7; }
details.mutant.survived { border-color: #d1242f; background: #fff1f1; }
details.mutant.equivalent { border-color: #8a8a94; background: #f4f4f6; }
summary { cursor: pointer; } .status { font-weight: 600; }
pre.diff { margin: 4px 0; } .add { color: #116329; } .del { color: #a40e26; }
.matrix th.m { writing-mode: vertical-rl; transform: rotate(180deg); font-weight: normal; font-size: 11px; white-space: nowrap; }
.matrix td { text-align: center; padding: 0 2px; font-size: 11px; } .matrix td.k { background: #d1242f; color: #fff; }
.matrix td.p { background: #e9f5ec; } .matrix th.c { text-align: left; font-weight: normal; white-space: nowrap; }
.question { font-style: italic; } .scroll { overflow-x: auto; max-width: 100%; }
.matrix th.c { position: sticky; left: 0; background: #fff; }
"""


def page(report, lang="en"):
    words = words_of("mutation", lang)
    detected, scored = report.score()
    figures = {
        "score": f"<b>{detected}/{scored} = {percent(detected, scored)}%</b>",
        "equivalent": len(report.equivalents()),
        "ledger": "<code>mutation/equivalents.toml</code>",
    }
    if report.prebuilt():  # about the reference and the lab's checks: only in a report on the reference
        overall = words(
            "html_overall", **figures, caught=sum(m.detected for m in report.prebuilt()), count=len(report.prebuilt())
        )
    else:
        overall = words("html_overall_yours", **figures, own=f"<code>{escape(report.own_ledger)}</code>")
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{escape(lang)}"><head><meta charset="utf-8">',
        f"<title>{words('title', impl=escape(report.impl))}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{words('title', impl=f'<code>{escape(report.impl)}</code>')}</h1>",
        f'<p id="overall">{overall}</p>',
        _score_table(report, words),
        _survivors(report, words, lang),
    ]
    for name, source in report.files.items():
        parts.append(_source(name, source, [m for m in report.mutants if m.file == name], words, lang))
    parts.append(_matrix(report, words))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _score_table(report, words):
    head = "".join(
        f"<th>{words(k)}</th>" for k in ("col_step", "col_function", "col_killed", "col_scored", "col_score")
    )
    rows = [f'<table class="score"><tr>{head}</tr>']
    for step in report.steps():
        detected, scored = report.score(step.number)
        score = f"{percent(detected, scored)}%" if step.number in report.steps_checked else words("not_checked")
        rows.append(
            f"<tr><td>{step.number}</td><td><code>{step.function}</code></td><td>{detected}</td><td>{scored}</td><td>{score}</td></tr>"
        )
    return "\n".join(rows) + "</table>"


def _survivors(report, words, lang):
    """lang: for the survivors' clauses, read from their step's contract in that language."""
    survivors = report.survivors()
    out = [f'<h2 id="survivors">{words("survivors", count=len(survivors))}</h2>']
    if not survivors:
        out.append(f"<p>{words('no_survivors')}</p>")
    clause_texts = all_clauses(lang)
    sep = say("learner.separator", lang)  # 、 in Japanese prose
    for m in survivors:
        clauses = "".join(f"<li><b>{cid}</b> {escape(clause_texts[cid])}</li>" for cid in report.clauses_of(m))
        out.append(
            f"<h3><code>{escape(m.id)}</code> ({sep.join((origin(m, words), words('step', n=m.step), f'<code>{m.function}</code>', f'<code>{escape(m.file)}:{m.location[0]}</code>'))})</h3>"
            f"{_diff(m.diff)}<ul>{clauses}</ul>"
            f'<p class="question">{escape(say("mutation.question", lang))}</p>'
        )
    return "\n".join(out)


def _source(name, source, mutants, words, lang):
    at_line = {}
    for m in mutants:
        at_line.setdefault(m.location[2], []).append(m)
    hit = {line for m in mutants for line in range(m.location[0], m.location[2] + 1)}
    rows = [f'<h2>{words("source", file=f"<code>{escape(name)}</code>", count=len(mutants))}</h2><table class="src">']
    for number, line in enumerate(source.splitlines(), start=1):
        css = ' class="hit"' if number in hit else ""
        rows.append(f'<tr{css}><td class="ln">{number}</td><td class="code">{escape(line)}</td></tr>')
        if number in at_line:
            inline = "".join(_mutant(m, words, lang) for m in at_line[number])
            rows.append(f'<tr><td></td><td style="white-space: normal">{inline}</td></tr>')
    rows.append("</table>")
    return "\n".join(rows)


def _mutant(m, words, lang):
    """data-status holds the status itself, for tools; the page shows it in the report's language."""
    kind = MutantStatus.EQUIVALENT if m.equivalent else (MutantStatus.KILLED if m.detected else MutantStatus.SURVIVED)
    data_status = MutantStatus.EQUIVALENT if m.equivalent else m.status
    killers = ", ".join(f"<code>{escape(c)}</code>" for c in m.killed_by) or words("none")
    reason = escape(m.equivalent.reason_in(lang)) if m.equivalent else ""
    extra = (
        "<br>" + words("equivalent_note", entry=f"<code>{escape(m.equivalent.id)}</code>", reason=reason)
        if m.equivalent
        else ""
    )
    if m.equivalent and m.equivalent.by_kind:
        extra += f" ({words('by_kind')})"
    return (
        f'<details class="mutant {kind}" id="{escape(m.id)}" data-status="{escape(data_status)}" '
        f'data-killed-by="{escape(" ".join(m.killed_by))}"><summary><code>{escape(m.id)}</code> '
        f'<span class="status">{escape(status(m, words))}</span> ({say("learner.separator", lang).join((words("step", n=m.step), m.function))})</summary>'
        f"{_diff(m.diff)}{words('killed_by', checks=killers)}{extra}</details>"
    )


def _diff(text):
    lines = []
    for line in text.splitlines():
        css = "add" if line.startswith("+") else "del" if line.startswith("-") else ""
        lines.append(f'<span class="{css}">{escape(line)}</span>' if css else escape(line))
    return '<pre class="diff">' + "\n".join(lines) + "</pre>"


def _matrix(report, words):
    columns = [m for m in report.mutants if m.id in report.matrix and report.matrix[m.id]]
    head = "".join(f'<th class="m" title="{escape(m.id)}">{escape(_short(m.id))}</th>' for m in columns)
    rows = [
        f'<h2 id="matrix">{words("matrix")}</h2>',
        f"<p>{words('matrix_legend')}</p>",
        f'<div class="scroll"><table class="matrix"><tr><th>{words("col_check")}</th>{head}</tr>',
    ]
    for check, _ in report.checks:
        cells = []
        for m in columns:
            status = report.matrix[m.id].get(check)
            cells.append(
                "<td></td>"
                if status is None
                else '<td class="p">&middot;</td>'
                if status == CheckStatus.PASSED
                else f'<td class="k" title="{words("check_" + status)}">&#x2716;</td>'
            )
        rows.append(f'<tr data-check="{escape(check)}"><th class="c">{escape(check)}</th>{"".join(cells)}</tr>')
    rows.append("</table></div>")
    return "\n".join(rows)


def _short(mutant_id):
    """lease.x_claim__mutmut_19 -> claim 19; pre-built ids stay as they are."""
    if "__mutmut_" in mutant_id:
        function, number = mutant_id.split(".x_", 1)[1].split("__mutmut_")
        return f"{function} {number}"
    return mutant_id
