"""The class at a glance as a chart: class.svg and class.png beside class.md.

matplotlib with the Agg backend, as the bench's chart (field/chart.py), so it draws on a machine
without a display; in the run's language, in a font that has it (lab/text/fonts.py). Two panels: for
each mutant, how many learners' predictions for its step catch it out of those who wrote one
(the broken change to review marked ★); and the clauses whose credit checks the most learners
fail. The SVG carries no date and fixed ids, so the same class draws the same file.
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from lab.text.fonts import families
from lab.text.messages import words_of

plt.rcParams["svg.hashsalt"] = "lease-lab-class"
MOST_FAILED = 15  # clauses shown


def draw(caught, failed, learners, out, lang="en"):
    """caught: class_view.mutants_caught (None: predictions not run); failed: class_view.clauses_failed.
    Writes class.svg and class.png under out, worded in lang; returns their paths."""
    with plt.rc_context({"font.family": families(lang)}):
        return _draw(caught, failed, learners, out, words_of("class", lang))


def _draw(caught, failed, learners, out, words):
    rows = max(len(caught or ()), min(len(failed), MOST_FAILED), 4)
    figure, (mutants, clauses) = plt.subplots(1, 2, figsize=(14, 1.5 + 0.24 * rows))
    if caught:
        labels = [f"{mutant.id} ★" if mutant.worksheet else mutant.id for mutant, _, _ in caught]
        places = range(len(caught))
        mutants.barh(
            places,
            [wrote for _, _, wrote in caught],
            color="lightgrey",
            label=words("chart_wrote"),
        )
        mutants.barh(places, [hits for _, hits, _ in caught], color="tab:green", label=words("chart_caught"))
        mutants.set_yticks(places, labels=labels, fontsize="x-small")
        mutants.invert_yaxis()
        mutants.legend(loc="lower right", fontsize="small")
    else:
        mutants.text(
            0.5,
            0.5,
            words("chart_not_run" if caught is None else "chart_no_mutants"),
            ha="center",
            transform=mutants.transAxes,
        )
        mutants.set_yticks([])
    mutants.set_title(words("chart_mutants"))
    mutants.set_xlabel(words("chart_learners"))
    shown = failed[:MOST_FAILED]
    if shown:
        clauses.barh(range(len(shown)), [len(names) for _, names in shown], color="tab:red")
        clauses.set_yticks(range(len(shown)), labels=[clause for clause, _ in shown])
        clauses.set_ylim(max(len(shown), 8) - 0.5, -0.5)  # the most failed on top, bars of one height
    else:
        clauses.text(0.5, 0.5, words("chart_no_clause"), ha="center", transform=clauses.transAxes)
        clauses.set_yticks([])
    clauses.set_title(words("chart_clauses"))
    clauses.set_xlabel(words("chart_learners"))
    for panel in (mutants, clauses):
        panel.set_xlim(0, max(learners, 1))
        panel.xaxis.get_major_locator().set_params(integer=True)
        panel.grid(axis="x", alpha=0.3)
    figure.suptitle(words("chart_title", count=learners))
    figure.tight_layout()
    paths = [out / "class.svg", out / "class.png"]
    for path in paths:
        figure.savefig(path, dpi=100, metadata={"Date": None} if path.suffix == ".svg" else None)
    plt.close(figure)
    return paths
