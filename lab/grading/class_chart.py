"""The class at a glance as a chart: class.svg and class.png beside class.md.

matplotlib with the Agg backend, as the bench's chart (lab/field/chart.py), so it draws on a machine
without a display; in English, as that chart is (its fonts may lack Japanese). Two panels: for
each mutant, how many learners' predictions for its step catch it out of those who wrote one
(the broken change to review marked ★); and the clauses whose credit checks the most learners
fail. The SVG carries no date and fixed ids, so the same class draws the same file.
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

plt.rcParams["svg.hashsalt"] = "lease-lab-class"
MOST_FAILED = 15  # clauses shown


def draw(caught, failed, learners, out):
    """caught: class_view.mutants_caught (None: predictions not run); failed: class_view.clauses_failed.
    Writes class.svg and class.png under out; returns their paths."""
    rows = max(len(caught or ()), min(len(failed), MOST_FAILED), 4)
    figure, (mutants, clauses) = plt.subplots(1, 2, figsize=(14, 1.5 + 0.24 * rows))
    if caught:
        labels = [f"{mutant.id} ★" if mutant.worksheet else mutant.id for mutant, _, _ in caught]
        places = range(len(caught))
        mutants.barh(
            places,
            [wrote for _, _, wrote in caught],
            color="lightgrey",
            label="learners with a prediction for the step",
        )
        mutants.barh(places, [hits for _, hits, _ in caught], color="tab:green", label="their predictions catch it")
        mutants.set_yticks(places, labels=labels, fontsize="x-small")
        mutants.invert_yaxis()
        mutants.legend(loc="lower right", fontsize="small")
    else:
        mutants.text(
            0.5,
            0.5,
            "predictions not run (MUTANTS=0)" if caught is None else "no mutants",
            ha="center",
            transform=mutants.transAxes,
        )
        mutants.set_yticks([])
    mutants.set_title("Mutants the class's predictions catch (★ the change to review)")
    mutants.set_xlabel("learners")
    shown = failed[:MOST_FAILED]
    if shown:
        clauses.barh(range(len(shown)), [len(names) for _, names in shown], color="tab:red")
        clauses.set_yticks(range(len(shown)), labels=[clause for clause, _ in shown])
        clauses.set_ylim(max(len(shown), 8) - 0.5, -0.5)  # the most failed on top, bars of one height
    else:
        clauses.text(0.5, 0.5, "no clause fails", ha="center", transform=clauses.transAxes)
        clauses.set_yticks([])
    clauses.set_title("Clauses the class fails most (credit checks)")
    clauses.set_xlabel("learners")
    for panel in (mutants, clauses):
        panel.set_xlim(0, max(learners, 1))
        panel.xaxis.get_major_locator().set_params(integer=True)
        panel.grid(axis="x", alpha=0.3)
    figure.suptitle(f"The class at a glance: {learners} learners graded")
    figure.tight_layout()
    paths = [out / "class.svg", out / "class.png"]
    for path in paths:
        figure.savefig(path, dpi=100, metadata={"Date": None} if path.suffix == ".svg" else None)
    plt.close(figure)
    return paths
