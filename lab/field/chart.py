"""The benchmark as a chart: calls per second against worker processes, SVG and PNG.

matplotlib with the Agg backend, so it draws on a machine without a display; one panel for
claims and one for completions, a solid line through the artifact and a dashed one through the
floor, one colour per setting.
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402 - the backend must be chosen first

COLOURS = {"contract": "tab:blue", "wal": "tab:orange", "kept": "tab:green"}
LABELS = {"contract": "contract (journal {journal}, synchronous {synchronous})", "wal": "WAL + synchronous=NORMAL", "kept": "one connection kept per process"}


def draw(rows, out, label):
    """Write bench.svg and bench.png under out; their paths."""
    figure, panels = plt.subplots(1, 2, figsize=(11, 4.5), sharex=True)
    for panel, kind, title in zip(panels, ("claim", "complete"), ("claims/s", "completes/s")):
        for setting, colour in COLOURS.items():
            mine = sorted((r for r in rows if r.setting == setting), key=lambda r: r.workers)
            if not mine:
                continue
            name = LABELS[setting].format(journal=mine[0].journal, synchronous=mine[0].synchronous)
            workers = [r.workers for r in mine]
            panel.plot(workers, [r.rates[f"{kind} artifact"] for r in mine], "-o", color=colour, label=f"{name}: artifact")
            panel.plot(workers, [r.rates[f"{kind} floor"] for r in mine], "--", color=colour, label=f"{name}: raw sqlite3 floor")
        panel.set_title(title)
        panel.set_xlabel("worker processes")
        panel.set_xscale("log", base=2)
        panel.set_xticks(sorted({r.workers for r in rows}), labels=[str(w) for w in sorted({r.workers for r in rows})])
        panel.set_ylim(bottom=0)
        panel.grid(alpha=0.3)
    panels[0].set_ylabel("calls per second")
    handles, labels = panels[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=2, fontsize="small", frameon=False)
    figure.suptitle(f"lease artifact ({label}) against raw sqlite3: solid = artifact, dashed = floor")
    figure.tight_layout(rect=(0, 0.18, 1, 1))
    paths = [out / "bench.svg", out / "bench.png"]
    for path in paths:
        figure.savefig(path, dpi=110)
    plt.close(figure)
    return paths
