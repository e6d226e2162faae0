"""A plain-Python model of the contract: the jobs table as a dict, and what each call must do.

Each function's rule lives with its step (rules.py): it answers one call the way CONTRACT.md says
it must, names the clause that decides the answer, and changes the model's rows as the stored
table must change. The model-based checks (sequences.model_check) run the code under test beside
the model and compare after every call; field/contract.py judges a stress log with it.
"""

import functools
from dataclasses import dataclass, field

import rules

COLUMNS = ("id", "owner", "until", "fence", "result", "done")
DEFAULTS = {"owner": None, "until": 0.0, "fence": 0, "result": None, "done": 0}


@dataclass
class Expected:
    """What one call must do: return `value` (or raise `raises`), for the reason in en/ja."""

    clause: str  # the clause that decides the answer and the stored state after the call
    value: object = None
    raises: type | None = None
    en: str = ""
    ja: str = ""
    column_clauses: dict = field(default_factory=dict)  # a column whose change a different clause governs
    want: object = None  # the value en and ja show first, where it is not `value` (claim_many's list of None)

    @property
    def shown(self):
        """The value en and ja show first: a failure lists the items of it that differ."""
        return self.value if self.want is None else self.want


class TableModel:
    """The rows the table must hold, id -> row dict."""

    def __init__(self, rows=()):
        self.rows = {r["id"]: {**{"id": r["id"]}, **DEFAULTS, **r} for r in rows}
        self.read = {}  # id -> the row as the last call of state saw it

    def insert(self, job_id, columns):
        """Another connection inserts a row naming only some columns: the table's defaults fill the rest."""
        if job_id in self.rows:
            return Expected(
                "C1.2",
                raises=Exception,
                en=f"the database refuses a second row {job_id!r} (PRIMARY KEY)",
                ja=f"2 つ目の行 {job_id!r} はデータベースが拒否する (PRIMARY KEY)",
            )
        self.rows[job_id] = {"id": job_id, **DEFAULTS, **columns}
        return Expected(
            "C1.1",
            None,
            en="the row stored with the defaults for every column not named",
            ja="指定しなかった列は既定値で保存される",
        )

    def update(self, job_id, columns):
        """Another connection commits a change to a row."""
        if job_id in self.rows:
            self.rows[job_id].update(columns)
        return Expected("C3.3", None)

    def __getattr__(self, name):
        """A function's rule, the one its step's rules file gives: model.claim(job_id, owner, now, ttl)."""
        own = rules.of_steps().get(name)
        if own is None:
            raise AttributeError(name)
        return functools.partial(own.rule, self)


def stale(clause, row, owner, fence):
    """A write refused: the row is not held by (owner, fence)."""
    if row["owner"] is None:  # not "holds owner=None, not owner=None": no owner is no holder
        return Expected(
            clause,
            False,
            en=f"False: the row has no owner, so no one holds it, owner={owner!r} included; the row unchanged",
            ja=f"False (行に owner がないので、誰も保持していない。owner={owner!r} でも同じ。行は変わらない)",
        )
    held = f"owner={row['owner']!r}, fence={row['fence']}"
    return Expected(
        clause,
        False,
        en=f"False: the row holds {held}, not owner={owner!r}, fence={fence}; the row unchanged",
        ja=f"False (行は {held} で、owner={owner!r}, fence={fence} ではない。行は変わらない)",
    )


def differs(row, owner, fence):
    """The row is not held by (owner, fence): a row with no owner is held by no one, None included."""
    return row["owner"] is None or (row["owner"], row["fence"]) != (owner, fence)
