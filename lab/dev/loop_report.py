"""What `make bench-loop` shows and writes: the table of its figures (lab/dev/loop_bench.py) in the
language of the command, and the same figures as JSON."""

import json

from rich.console import Console
from rich.table import Table

from lab.model.course import load_course
from lab.text.messages import words_of

ROWS = {
    "unit": "row_unit",
    "watch": "row_watch",
    "unchanged": "row_unchanged",
    "own_edit": "row_own_edit",
    "earlier_edit": "row_earlier_edit",
    "fresh_clone": "row_fresh_clone",
}
WIDTH = 132  # the table's columns, so that a pipe or a narrow terminal does not cut them


def row_names(plan, lang="en"):
    """Each kind's name in the table, with the plan's steps and functions."""
    words, course = words_of("loop", lang), {step.number: step for step in load_course()}
    return {
        kind: words(
            key,
            step=plan.step,
            function={"unit": course[1], "earlier_edit": course[plan.earlier]}.get(kind, course[plan.step]).function,
        )
        for kind, key in ROWS.items()
    }


def render(figures, plan, lang="en", console=None):
    console = console or Console(highlight=False, soft_wrap=True, width=max(WIDTH, Console().width))
    words, names = words_of("loop", lang), row_names(plan, lang)
    table = Table(title=words("title", repetitions=plan.repetitions), title_justify="left")
    for key in ("col_measure", "col_seconds", "col_ratio", "col_goal"):
        table.add_column(words(key), justify="left" if key == "col_measure" else "right")
    for figure in figures:
        met = figure.met()
        goal = words("goal_fresh_clone") if figure.kind == "fresh_clone" else ""
        if met is not None:
            goal = words("goal_met" if met else "goal_missed", goal=figure.goal)
        table.add_row(names[figure.kind], f"{figure.median_seconds():.2f}", f"{figure.median_ratio():.2f}×", goal)
    console.print(table)
    console.print(words("method"))


def record(figures, plan):
    """The figures as one JSON-ready dict: every repetition's seconds and ratios, the medians, the goals."""
    names = row_names(plan)
    return {
        "repetitions": plan.repetitions,
        "step": plan.step,
        "earlier": plan.earlier,
        "check_flags": list(plan.check_flags),
        "unit": names["unit"],
        "figures": [figure.record() | {"name": names[figure.kind]} for figure in figures],
    }


def write(figures, plan, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record(figures, plan), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
