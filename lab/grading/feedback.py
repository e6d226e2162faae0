"""Feedback to hand back: one Markdown file per learner, in the class's language, with each
step's credit and course verdict, when it was handed in against its due date and each
adjustment with the final points (lab/grading/standing.py), and, for each step without credit,
the call, the result and the expectation of its first failing check. Nothing of the grading
machine is shown: the class folder, the lab's folder, the sandbox's folders and memory
addresses are taken out."""

import html as markup
import os
import re
import sys
from dataclasses import replace

from markdown_it import MarkdownIt

from lab.grading import credit, standing, unpack
from lab.model.course import LAB_ROOT, load_course
from lab.model.results import CheckStatus, mapped
from lab.sandbox.confinement import SCRATCH_INSIDE
from lab.text import inert
from lab.text.messages import words_of

RUNTIME = sorted({sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)}, key=len, reverse=True)
ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")
SANDBOX = re.compile(re.escape(SCRATCH_INSIDE) + r"[^\s'\",)]*|/(?:dev/shm|tmp)/lease-lab-[^\s'\",)]*")


def clean(text, submission, root):
    for prefix in (f"{root}/{submission.name}/", f"{root}/", f"{LAB_ROOT}/"):
        text = text.replace(prefix, "")
    for folder in RUNTIME:  # where Python is installed on the grading machine
        text = text.replace(folder, "…")
    return ADDRESS.sub("0x…", SANDBOX.sub("…", unpack.shown(text)))


def cleaned(results, submission, root):
    """Results (runner.Result or predictions.Prediction) with clean messages, and a prediction's
    file named from the learner's folder: for the learner's JSON, JUnit and Exercism files."""

    def tidied(text):
        return clean(text, submission, root)

    return [
        replace(r, message=mapped(r.message, tidied), **({"file": tidied(r.file)} if hasattr(r, "file") else {}))
        for r in results
    ]


def html(text, lang, title):
    """The Markdown feedback as one self-contained page: no script, and HTML in a message shown as
    text; its content policy lets the browser fetch nothing, whatever the page came to hold."""
    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(text)
    return (
        f'<!doctype html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n{POLICY}\n<title>{markup.escape(title)}</title>\n'
        f"<style>{STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n"
    )


POLICY = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5}"
    "table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}"
    "pre{background:#f6f6f6;padding:.75rem;overflow-x:auto}"
)


def markdown(submission, root, cells, graded_at, lang="en"):
    """cells: the learner's row of the class table (lab/grading/class_table.py's table)."""
    words = words_of("class", lang)
    course = load_course()
    steps = [step.number for step in course]
    lines = [f"# {words('fb_title', name=_md(submission.name))}", "", words("fb_graded", at=graded_at), ""]
    term = standing.feedback_lines(submission, lang)  # handed in against the due date, adjustments
    if submission.problem:
        return "\n".join([*lines, _md(clean(submission.problem, submission, root)), "", *term])
    earned = sum(credit.earned(submission.credit.get(n, [])) for n in steps)
    lines += [words("fb_credit", earned=earned, steps=len(steps)), "", *term, words("fb_legend"), ""]
    lines += [
        f"| {words('fb_col_step')} | {words('fb_col_function')} | {words('credit')} | {words('fb_col_course')} |",
        "|---|---|---|---|",
    ]
    for step, course_cell in zip(course, cells[1 : 1 + len(steps)]):
        own = submission.credit.get(step.number, [])
        credit_cell = _cell(own, words)
        lines.append(
            f"| {step.number} | `{step.function}` | {credit_cell} | {_md(clean(course_cell, submission, root))} |"
        )
    first_problems = []
    for step in course:
        own = submission.credit.get(step.number, [])
        bad = next((r for r in own if r.status not in (CheckStatus.PASSED, CheckStatus.NOT_IMPLEMENTED)), None)
        if bad is not None:
            first_problems += [
                f"### {words('step', n=step.number)}: `{bad.check}` ({' '.join(credit.own_clauses(bad)) or bad.check})",
                "",
                inert.code_block(clean(bad.said(lang), submission, root).strip()),
                "",
            ]
    if first_problems:
        lines += ["", f"## {words('fb_first_problems')}", "", *first_problems]
    lines += ["", f"## {words('predictions')}", "", _md(clean(cells[-2], submission, root)), ""]
    return "\n".join(lines)


def _cell(results, words):
    if credit.earned(results):
        return words(CheckStatus.PASSED)
    if results and all(r.status == CheckStatus.NOT_IMPLEMENTED for r in results):
        return words(CheckStatus.NOT_IMPLEMENTED)
    return words("fb_no_credit") if results else words("missing")


def _md(text):
    return inert.markdown(text.replace("\n", " "))
