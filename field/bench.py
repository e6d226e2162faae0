"""`make bench`: what a claim and a completion cost, next to the floor sqlite3 sets for them.

For 1, 2, 4 and 8 worker processes: claims/s and completes/s through the artifact, and the same
statements run raw (the floor: bench_worker.py says which), under five settings: the contract's
(a connection per call, the default rollback journal, synchronous=FULL); WAL with
synchronous=FULL (as durable as the contract's); WAL with synchronous=NORMAL; one connection
kept per process; WAL with FULL and one connection kept.

The method, so that the verdict is not noise: each measurement is many short slices (SLICE
seconds each), the artifact's and the floor's in turns (artifact first in one pair, the floor
first in the next), so that a slow moment of the disk or the machine falls on both alike; pairs
follow each other until the measurement has had BENCH_TIME seconds of each path, and at least
MIN_ROUNDS of them (MIN_ROUNDS_JUDGED under the contract's setting; at most MAX_ROUNDS, so that a
starved machine cannot stretch the run). Each pair gives one ratio floor/artifact; a cell of the
table shows the medians of the rates and of the ratios, and the spread of the ratios (lower to
upper quartile).

The goal is judged on the contract's setting, on one quantity: the geometric mean of floor/artifact
over its cells (every process count, claims and completions, each cell weighted alike), with a 95%
bootstrap interval over the pairs (interval.py says why pairs, and how). Met when the whole
interval is within GOAL, not met when it is wholly above, and otherwise not decided at this
length. The cells are pooled because one cell's seven pairs at the default length give an interval
too wide to decide on (about 0.8×–1.25× where the artifact costs what the floor does), while the
artifact's cost on top of the floor is the same few lines of Python in every cell. So that one
count far above the goal cannot hide among the others, a process count whose own interval (its
claims and completions, at COUNT_LEVEL) lies wholly above the goal makes the verdict "not met" by
itself, and is named. Each cell's median and spread stay in the table. Measurements shorter than
STEADY are a preview: their rates are rough, whatever the verdict says.
A table on the terminal, and bench.json, bench.svg and bench.png in reports/bench/.
"""

import json
import multiprocessing
import sqlite3
import statistics
import tempfile
from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table

from field import bench_worker, interval
from field.artifact import import_file, materialize, refused
from field.measure import GOAL, STEADY, quartiles
from lab.model.course import LAB_ROOT
from lab.model.status import ExitStatus
from lab.text.messages import words_of

# name, journal mode, PRAGMA synchronous set on each connection (None: SQLite's default), kept
SETTINGS = (
    ("contract", "delete", None, False),
    ("wal_full", "wal", "FULL", False),
    ("wal", "wal", "NORMAL", False),
    ("kept", "delete", None, True),
    ("wal_kept", "wal", "FULL", True),
)
NAMES = {"contract": "b_contract", "wal_full": "b_wal_full", "wal": "b_wal", "kept": "b_kept", "wal_kept": "b_wal_kept"}
NOTES = {
    "contract": "b_note_contract",
    "wal_full": "b_note_wal_full",
    "wal": "b_note_wal",
    "kept": "b_note_kept",
    "wal_kept": "b_note_wal_kept",
}
KINDS = ("claim", "complete")
SLICE = 0.02  # seconds per slice: long enough for a few dozen calls at the slowest setting
# Pairs of slices per measurement, however short BENCH_TIME is: more under the contract's setting,
# whose cells the goal is judged on, fewer under the four settings shown beside it, so that the
# default run takes no longer than it did with 5 everywhere. Where the artifact costs what the floor
# does and pairs spread as they do on the lab's busy machine (a standard deviation of 0.33 in
# log(floor/artifact)), 5 pairs a cell leave about one run in a hundred "not decided", 7 about one
# in seven hundred (simulated: 4000 runs each).
MIN_ROUNDS_JUDGED = 7
MIN_ROUNDS = 4
MAX_ROUNDS = 400  # and at most: BENCH_TIME=1 asks for about 50 on a quiet machine
SYNCHRONOUS = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}
WIDTH = 132  # the table's columns, so that a pipe or a narrow terminal does not cut them


@dataclass
class Row:
    setting: str
    workers: int
    journal: str
    synchronous: str
    rates: dict = field(default_factory=dict)  # "claim artifact" -> the median of its slices' calls per second
    ratios: dict = field(default_factory=dict)  # "claim" -> floor/artifact of each pair of slices, in order

    def ratio(self, kind):
        """The median of the pairs' floor/artifact."""
        return statistics.median(self.ratios[kind])

    def spread(self, kind):
        """The lower and upper quartile of the pairs' floor/artifact."""
        return quartiles(self.ratios[kind])


def provision(lease, folder, most):
    """One database per setting, POOL jobs for each of the most processes."""
    dbs = {}
    for name, journal, _, _ in SETTINGS:
        db = dbs[name] = str(folder / f"{name}.db")
        lease.init_db(db)
        ids = [(bench_worker.job_id(p, k),) for p in range(most) for k in range(bench_worker.POOL)]
        with closing(sqlite3.connect(db)) as conn:
            conn.execute(f"PRAGMA journal_mode={journal}")
            with conn:
                conn.executemany("INSERT INTO jobs (id) VALUES (?)", ids)
    return dbs


def in_force(db, synchronous):
    """The journal mode and synchronous setting a connection of this setting really has."""
    with closing(sqlite3.connect(db)) as conn:
        if synchronous:
            conn.execute(f"PRAGMA synchronous={synchronous}")
        journal = conn.execute("PRAGMA journal_mode").fetchone()[0]
        return journal, SYNCHRONOUS.get(conn.execute("PRAGMA synchronous").fetchone()[0], "?")


def _slice(pipes, n, synchronous, kept, db, kind, path):
    """(calls per second of all n processes together, seconds the slice took)."""
    for pipe in pipes[:n]:
        pipe.send((n, synchronous, kept, (db, kind, path, SLICE)))
    results = [pipe.recv() for pipe in pipes[:n]]
    elapsed = max(seconds for _, seconds in results)
    return sum(count for count, _ in results) / (elapsed or 1e-9), elapsed


def measure(pipes, dbs, counts, duration):
    rows = []
    for n in counts:
        for name, _, synchronous, kept in SETTINGS:
            row = Row(name, n, *in_force(dbs[name], synchronous))
            for kind in KINDS:
                rates, spent, turn = {"artifact": [], "floor": []}, 0.0, 0
                least = MIN_ROUNDS_JUDGED if name == "contract" else MIN_ROUNDS
                while turn < MAX_ROUNDS and (turn < least or spent < duration):
                    for path in ("artifact", "floor") if turn % 2 == 0 else ("floor", "artifact"):
                        rate, elapsed = _slice(pipes, n, synchronous, kept, dbs[name], kind, path)
                        rates[path].append(rate)
                        spent += elapsed / 2  # each path's share of the pair
                    turn += 1
                row.rates |= {f"{kind} {path}": statistics.median(values) for path, values in rates.items()}
                row.ratios[kind] = [f / a if a else float("inf") for a, f in zip(rates["artifact"], rates["floor"])]
            rows.append(row)
    return rows


def run(impl_path, label, duration=0.05, counts=(1, 2, 4, 8)):
    """Every measurement; the rows of the table, and the folder the databases were in."""
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory(prefix="lab-bench-") as name:
        folder = Path(name)
        artifact = materialize(impl_path, label, folder)
        dbs = provision(import_file(artifact), folder, max(counts))
        barriers = {n: context.Barrier(n) for n in counts}
        pipes, processes = [], []
        for number in range(max(counts)):
            mine, theirs = context.Pipe()
            processes.append(
                context.Process(target=bench_worker.run, args=(str(artifact), theirs, barriers, number), daemon=True)
            )
            processes[-1].start()
            pipes.append(mine)
        for pipe in pipes:
            pipe.recv()  # "ready": every process has imported the artifact
        try:
            return measure(pipes, dbs, counts, duration), str(folder.parent)
        finally:
            for pipe, process in zip(pipes, processes):
                pipe.send(None)
                process.join(10)


KEYS = {"met": "bench_goal_met", "not met": "bench_goal_not_met", None: "bench_goal_undecided"}
# One count's own interval, held wider than the cells' together: four counts are four chances to
# find one above the goal by chance, and 1 - 0.05 / 4 = 98.75% would keep them to 5% in all.
COUNT_LEVEL = 0.99


@dataclass(frozen=True)
class Verdict:
    key: str  # bench_goal_met, bench_goal_not_met or bench_goal_undecided
    estimate: float  # the geometric mean of floor/artifact it judged
    low: float  # and its interval
    high: float
    level: float  # of that interval: interval.LEVEL, or COUNT_LEVEL for one count
    pairs: int  # the pairs it rests on
    cells: int  # in how many cells
    workers: int | None  # the one process count found above the goal; None: every cell together
    preview: bool  # the rates are rough (the verdict stands on its interval alone)

    def short(self, lang="en"):
        """For the chart's title, in lang."""
        words = words_of("field", lang)
        said = words(
            {"bench_goal_met": "chart_goal_met", "bench_goal_not_met": "chart_goal_not_met"}.get(
                self.key, "chart_undecided"
            )
        )
        at = words("chart_at", workers=self.workers) if self.workers else ""
        shown = words("chart_verdict", said=said, at=at, low=self.low, high=self.high, level=self.level, goal=GOAL)
        return shown + (words("chart_preview") if self.preview else "")


def verdict(rows, duration):
    """The goal judged on intervals of the contract's floor/artifact; see the module's docstring.

    Not met when one process count's own interval (its claims and completions) lies wholly above the
    goal, so that one count far above it cannot hide among the others; otherwise every cell together
    decides: met, not met, or not decided at this length.
    """
    counts = {row.workers: [row.ratios[kind] for kind in KINDS] for row in rows if row.setting == "contract"}
    above = [
        (judged, workers)
        for workers, cells in counts.items()
        if (judged := interval.bootstrap(cells, level=COUNT_LEVEL)).low > GOAL
    ]
    if above:
        judged, workers = max(above, key=lambda found: found[0].low)
        key, cells = "bench_goal_not_met", counts[workers]
    else:
        cells = [cell for row_cells in counts.values() for cell in row_cells]
        judged, workers = interval.bootstrap(cells), None
        key = KEYS[interval.decide(judged, GOAL)]
    pairs = sum(map(len, cells))
    return Verdict(
        key, judged.estimate, judged.low, judged.high, judged.level, pairs, len(cells), workers, duration < STEADY
    )


def longer(duration):
    """The BENCH_TIME to suggest when the interval reaches both sides: four times as long halves it
    where the time, not the least number of pairs, sets the pairs; and at least 1 s, where it starts to."""
    return max(1.0, 4 * duration)


def render(rows, label, duration, where, lang="en", console=None):
    console = console or Console(highlight=False, soft_wrap=True, width=max(WIDTH, Console().width))
    words = words_of("field", lang)
    pairs = sorted({len(row.ratios[kind]) for row in rows for kind in KINDS})
    rounds = f"{pairs[0]}" if len(pairs) == 1 else f"{pairs[0]}–{pairs[-1]}"
    title = words("bench_title", impl=label, duration=duration, where=where)
    table = Table(title=title + "\n" + words("bench_method", rounds=rounds, slice=SLICE), title_justify="left")
    for key in (
        "b_setting",
        "b_workers",
        "b_claims",
        "b_floor",
        "b_ratio",
        "b_spread",
        "b_completes",
        "b_floor",
        "b_ratio",
        "b_spread",
    ):
        table.add_column(words(key), justify="left" if key == "b_setting" else "right")
    order = [name for name, _, _, _ in SETTINGS]
    most = max(r.workers for r in rows)
    for row in sorted(rows, key=lambda r: (order.index(r.setting), r.workers)):
        cells = [words(NAMES[row.setting]), str(row.workers)]
        for kind in KINDS:
            low, high = row.spread(kind)
            cells += [
                f"{row.rates[kind + ' artifact']:.0f}",
                f"{row.rates[kind + ' floor']:.0f}",
                f"{row.ratio(kind):.2f}",
                f"{low:.2f}–{high:.2f}",
            ]
        table.add_row(*cells, end_section=row.workers == most)
    console.print(table)
    for name, _, _, _ in SETTINGS:
        first = next(r for r in rows if r.setting == name)
        console.print(words(NOTES[name], journal=first.journal, synchronous=first.synchronous))
    judged = verdict(rows, duration)
    if judged.preview:
        console.print(words("bench_preview", steady=STEADY))
    console.print(
        words(
            judged.key,
            low=judged.low,
            high=judged.high,
            level=judged.level,
            goal=GOAL,
            estimate=judged.estimate,
            over=words("bench_over_count", workers=judged.workers, pairs=judged.pairs)
            if judged.workers
            else words("bench_over_cells", cells=judged.cells, pairs=judged.pairs),
            longer=longer(duration),
        )
    )
    return judged


def write(rows, label, out, duration=None, judged=None, lang="en"):
    from field import chart

    out = Path(out) if Path(out).is_absolute() else LAB_ROOT / out
    out.mkdir(parents=True, exist_ok=True)
    judged = judged or verdict(rows, duration if duration is not None else STEADY)
    pairs = [len(row.ratios[kind]) for row in rows for kind in KINDS]
    words = words_of("field", lang)
    method = {
        "slice_seconds": SLICE,
        "pairs_per_measurement": [min(pairs), max(pairs)],
        "goal": GOAL,
        "interval": {
            "of": words("bench_json_of"),  # in the run's language, like the table and the chart
            "bootstrap": words("bench_json_bootstrap"),
            "level": interval.LEVEL,
            "resamples": interval.RESAMPLES,
            "seed": interval.SEED,
            "one_count_above_the_goal_at": COUNT_LEVEL,
        },
        "preview_below": STEADY,
    }
    shown = [
        asdict(r) | {"median_ratio": {k: r.ratio(k) for k in KINDS}, "quartiles": {k: r.spread(k) for k in KINDS}}
        for r in rows
    ]
    record = {"impl": label, "bench_time": duration, "method": method, "verdict": asdict(judged), "rows": shown}
    (out / "bench.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return [out / "bench.json", *chart.draw(rows, out, label, duration, judged, lang)]


def main(impl_path, label, duration, counts, out, lang="en", peers=False):
    """The table and the chart; then, with peers, take-and-finish beside two queues (peers/bench.py)."""
    status = refused(impl_path, label, lang)
    if status is not None:
        return status
    rows, where = run(impl_path, label, duration, counts)
    judged = render(rows, label, duration, where, lang)
    for path in write(rows, label, out, duration, judged, lang):
        print(words_of("field", lang)("bench_wrote", path=path))
    if peers:
        from field.peers import bench as peers_bench  # matplotlib and the peers' venv: only when asked

        return peers_bench.main(impl_path, label, duration, out, lang)
    return ExitStatus.ALL_PASS
