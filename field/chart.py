"""The benchmark as a chart: calls per second and floor/artifact against worker processes.

matplotlib with the Agg backend, so it draws on a machine without a display. Three panels:
claims/s and completes/s (the medians of the slices; a solid line through the artifact, a dashed
one through the floor, one colour per setting), and the ratio floor/artifact of both (the median,
with a bar from the lower to the upper quartile of the pairs, and the goal as a line). The title
says BENCH_TIME, the verdict with its interval and whether the rates are a preview. Every word is
the catalogue's, in the language of the run, drawn in a font that has it (lab/text/fonts.py).
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from field.measure import GOAL
from lab.text.fonts import families
from lab.text.messages import words_of

COLOURS = {
    "contract": "tab:blue",
    "wal_full": "tab:purple",
    "wal": "tab:orange",
    "kept": "tab:green",
    "wal_kept": "tab:red",
}
LABELS = {  # the catalogue's keys, in [field]
    "contract": "chart_contract",
    "wal_full": "chart_wal_full",
    "wal": "chart_wal",
    "kept": "chart_kept",
    "wal_kept": "chart_wal_kept",
}
MARKERS = {"claim": ("o", "-"), "complete": ("s", ":")}


def draw(rows, out, label, duration, judged, lang="en"):
    """Write bench.svg and bench.png under out, worded in lang; their paths."""
    words = words_of("field", lang)
    with plt.rc_context({"font.family": families(lang)}):
        return _draw(rows, out, label, duration, judged.short(lang), words)


def _draw(rows, out, label, duration, verdict, words):
    figure, panels = plt.subplots(1, 3, figsize=(15, 5))
    workers = sorted({r.workers for r in rows})
    for setting, colour in COLOURS.items():
        mine = sorted((r for r in rows if r.setting == setting), key=lambda r: r.workers)
        if not mine:
            continue
        name = words(LABELS[setting], journal=mine[0].journal, synchronous=mine[0].synchronous)
        counts = [r.workers for r in mine]
        for panel, kind in zip(panels, ("claim", "complete")):
            panel.plot(
                counts,
                [r.rates[f"{kind} artifact"] for r in mine],
                "-o",
                color=colour,
                label=words("chart_artifact", name=name),
            )
            panel.plot(
                counts,
                [r.rates[f"{kind} floor"] for r in mine],
                "--",
                color=colour,
                label=words("chart_floor", name=name),
            )
        for shift, kind in ((-0.04, "claim"), (0.04, "complete")):
            marker, line = MARKERS[kind]
            medians = [r.ratio(kind) for r in mine]
            spreads = [r.spread(kind) for r in mine]
            below = [m - low for m, (low, _) in zip(medians, spreads)]
            above = [high - m for m, (_, high) in zip(medians, spreads)]
            where = [c * 2**shift for c in counts]  # side by side on the log axis
            panels[2].errorbar(
                where, medians, yerr=[below, above], fmt=marker + line, color=colour, capsize=3, markersize=4
            )
    for panel, title in zip(
        panels,
        (words("chart_claims"), words("chart_completes"), words("chart_ratio")),
    ):
        panel.set_title(title)
        panel.set_xlabel(words("chart_workers"))
        panel.set_xscale("log", base=2)
        panel.set_xticks(workers, labels=[str(w) for w in workers])
        panel.grid(alpha=0.3)
    panels[0].set_ylim(bottom=0)
    panels[1].set_ylim(bottom=0)
    panels[0].set_ylabel(words("chart_calls"))
    panels[2].axhline(1.0, color="grey", linewidth=0.8)
    panels[2].axhline(GOAL, color="black", linestyle="--", linewidth=0.8)
    panels[2].text(workers[0], GOAL, " " + words("chart_goal"), va="bottom", fontsize="small")
    panels[2].set_ylabel(words("chart_ratio_axis"))
    handles, labels = panels[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=3, fontsize="small", frameon=False)
    figure.suptitle(words("chart_title", impl=label, duration=duration, verdict=verdict))
    figure.tight_layout(rect=(0, 0.2, 1, 1))
    paths = [out / "bench.svg", out / "bench.png"]
    for path in paths:
        figure.savefig(path, dpi=110)
    plt.close(figure)
    return paths
