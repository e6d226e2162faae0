"""`make bench`: what a claim and a completion cost, next to the floor sqlite3 sets for them.

For 1, 2, 4 and 8 worker processes: claims/s and completes/s through the artifact, and the same
work done raw (connect, BEGIN IMMEDIATE, the same UPDATE, COMMIT, close), under three settings:
the contract's (a connection per call, the default rollback journal and synchronous=FULL); WAL
with synchronous=NORMAL; and one connection kept per process. A table on the terminal, and
bench.json, bench.svg and bench.png in reports/bench/.
"""

import json
import multiprocessing
import sqlite3
import tempfile
from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table

from lab.model.course import LAB_ROOT
from lab.field import bench_worker
from lab.field.artifact import import_file, materialize, refused
from lab.model.status import ExitStatus
from lab.text.messages import words_of

SETTINGS = (("contract", "delete", None, False), ("wal", "wal", "NORMAL", False), ("kept", "delete", None, True))
SLICES = 2  # artifact, floor, artifact, floor: each measurement in turns
SYNCHRONOUS = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}
GOAL = 1.25
STEADY = 0.5  # seconds per measurement below which the ratios are too noisy to judge the goal


@dataclass
class Row:
    setting: str
    workers: int
    journal: str
    synchronous: str
    rates: dict = field(default_factory=dict)  # "claim artifact" -> calls per second

    def ratio(self, kind):
        artifact = self.rates.get(f"{kind} artifact", 0)
        return self.rates.get(f"{kind} floor", 0) / artifact if artifact else float("inf")


def _capacity(duration):
    return int(duration * 8000) + 50  # more jobs than the fastest setting gets through


def provision(lease, folder, counts, duration):
    """One database per setting, with fresh jobs for every process, kind of call and count."""
    dbs = {}
    for name, journal, _, _ in SETTINGS:
        db = dbs[name] = str(folder / f"{name}.db")
        lease.init_db(db)
        ids = [(f"{n}-{i}-{path}-{k}",) for n in counts for i in range(n) for path in ("artifact", "floor") for k in range(_capacity(duration))]
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


def measure(pipes, dbs, counts, duration):
    rows = []
    for n in counts:
        for name, _, synchronous, kept in SETTINGS:
            row = Row(name, n, *in_force(dbs[name], synchronous))
            done, spent = {}, {}
            for kind, path in [(kind, path) for kind in ("claim", "complete") for _ in range(SLICES) for path in ("artifact", "floor")]:
                for i, pipe in enumerate(pipes[:n]):
                    task = (dbs[name], kind, path, f"{n}-{i}-{path}", _capacity(duration), f"p{i}", duration / SLICES)
                    pipe.send((n, synchronous, kept, task))
                results = [pipe.recv() for pipe in pipes[:n]]
                key = f"{kind} {path}"
                done[key] = done.get(key, 0) + sum(count for count, _ in results)
                spent[key] = spent.get(key, 0) + max(elapsed for _, elapsed in results)
            row.rates = {key: done[key] / (spent[key] or 1e-9) for key in done}
            rows.append(row)
    return rows


def run(impl_path, label, duration=0.08, counts=(1, 2, 4, 8)):
    """Every measurement; the rows of the table, and the folder the databases were in."""
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory(prefix="lab-bench-") as name:
        folder = Path(name)
        artifact = materialize(impl_path, label, folder)
        dbs = provision(import_file(artifact), folder, counts, duration)
        barriers = {n: context.Barrier(n) for n in counts}
        pipes, processes = [], []
        for _ in range(max(counts)):
            mine, theirs = context.Pipe()
            processes.append(context.Process(target=bench_worker.run, args=(str(artifact), theirs, barriers), daemon=True))
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


def render(rows, label, duration, where, lang="en", console=None):
    console = console or Console(highlight=False, soft_wrap=True)
    words = words_of("field", lang)
    table = Table(title=words("bench_title", impl=label, duration=duration, where=where), title_justify="left")
    for key in ("b_setting", "b_workers", "b_claims", "b_floor", "b_ratio", "b_completes", "b_floor", "b_ratio"):
        table.add_column(words(key), justify="left" if key == "b_setting" else "right")
    for row in rows:
        cells = [words("b_" + row.setting), str(row.workers)]
        for kind in ("claim", "complete"):
            cells += [f"{row.rates[kind + ' artifact']:.0f}", f"{row.rates[kind + ' floor']:.0f}", f"{row.ratio(kind):.2f}"]
        table.add_row(*cells, end_section=row.setting == SETTINGS[-1][0])
    console.print(table)
    for name, _, _, _ in SETTINGS:
        first = next(r for r in rows if r.setting == name)
        console.print(words("b_note_" + name, journal=first.journal, synchronous=first.synchronous))
    contract = [r for r in rows if r.setting == "contract"]
    worst = max(max(r.ratio("claim"), r.ratio("complete")) for r in contract)
    verdict = "bench_noisy" if duration < STEADY else "bench_goal_met" if worst <= GOAL else "bench_goal_missed"
    console.print(words(verdict, goal=GOAL, worst=worst, steady=STEADY))


def write(rows, label, out):
    from lab.field import chart

    out = Path(out) if Path(out).is_absolute() else LAB_ROOT / out
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.json").write_text(json.dumps({"impl": label, "rows": [asdict(r) for r in rows]}, indent=2) + "\n", encoding="utf-8")
    return [out / "bench.json", *chart.draw(rows, out, label)]


def main(impl_path, label, duration, counts, out, lang="en"):
    status = refused(impl_path, label, lang)
    if status is not None:
        return status
    rows, where = run(impl_path, label, duration, counts)
    render(rows, label, duration, where, lang)
    for path in write(rows, label, out):
        print(words_of("field", lang)("bench_wrote", path=path))
    return ExitStatus.ALL_PASS
