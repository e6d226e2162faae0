"""A plain-Python model of the contract: the jobs table as a dict, and what each call must do.

Each method answers one call the way CONTRACT.md says it must, names the clause that decides
the answer, and changes the model's rows as the stored table must change. The model-based
checks (test_model_steps.py) run the code under test beside it and compare after every call.
"""

from dataclasses import dataclass, field

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

    def holds(self, job_id, owner, fence, now):
        row = self.rows[job_id]
        return not _differs(row, owner, fence) and not row["done"] and row["until"] > now

    def init_db(self):
        return Expected(
            "C1.3", None, en="no error, and every row exactly as it was", ja="エラーなし、すべての行がそのまま"
        )

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

    def enqueue(self, job_id):
        if job_id in self.rows:
            return Expected(
                "C2.2",
                False,
                en=f"False: {job_id!r} is already in the table, and its row stays exactly as it was",
                ja=f"False ({job_id!r} はすでにテーブルにあり、行はそのまま)",
                column_clauses=dict.fromkeys(COLUMNS, "C2.3"),
            )
        self.rows[job_id] = {"id": job_id, **DEFAULTS}
        return Expected(
            "C2.1",
            True,
            en=f"True, and a new row {job_id!r} with the default state",
            ja=f"True (既定の状態の新しい行 {job_id!r})",
        )

    def state(self, job_id):
        if job_id not in self.rows:
            return Expected("C3.2", None, en=f"None: there is no row {job_id!r}", ja=f"None ({job_id!r} の行はない)")
        row = dict(self.rows[job_id])
        # Changed since the last state() of this job: a stale answer is a copy kept from then.
        clause = "C3.3" if self.read.get(job_id, row) != row else "C3.1"
        self.read[job_id] = row
        return Expected(clause, row, en=f"{row}: the row as stored now", ja=f"{row} (今保存されている行)")

    def claim(self, job_id, owner, now, ttl):
        if ttl <= 0:
            return Expected(
                "C4.1",
                raises=ValueError,
                en=f"ValueError for ttl={ttl!r}, nothing stored",
                ja=f"ttl={ttl!r} なので ValueError、何も保存しない",
            )
        row = self.rows.get(job_id)
        if row is None:
            return Expected(
                "C4.2",
                None,
                en=f"None: there is no job {job_id!r}, and no row is created",
                ja=f"None (ジョブ {job_id!r} はなく、行も作らない)",
            )
        if row["done"]:
            return Expected(
                "C4.3",
                None,
                en=f"None: {job_id!r} is done, its row unchanged",
                ja=f"None ({job_id!r} は完了済み。行は変わらない)",
            )
        if row["until"] > now:
            return Expected(
                "C4.4",
                None,
                en=f"None: the lease of {job_id!r} runs until {row['until']} > now={now}, the row unchanged",
                ja=f"None ({job_id!r} のリースは until={row['until']} > now={now} で有効。行は変わらない)",
            )
        fence, expired = row["fence"] + 1, row["until"]
        row.update(owner=owner, until=now + ttl, fence=fence)
        return Expected(
            "C4.5",
            fence,
            en=f"{fence}: the lease expired (until={expired} <= now={now}), so {owner!r} wins fence {fence}, until={now + ttl}",
            ja=f"{fence} (until={expired} <= now={now} でリースは切れているので、{owner!r} が fence {fence} を得る。until={now + ttl})",
        )

    def renew(self, job_id, owner, fence, now, ttl):
        if ttl <= 0:
            return Expected(
                "C5.1",
                raises=ValueError,
                en=f"ValueError for ttl={ttl!r}, nothing stored",
                ja=f"ttl={ttl!r} なので ValueError、何も保存しない",
            )
        row = self.rows.get(job_id)
        if row is None or row["done"]:
            return Expected(
                "C5.5",
                False,
                en=f"False: {job_id!r} is missing or done; nothing stored",
                ja=f"False ({job_id!r} はないか完了済み。何も保存しない)",
            )
        if _differs(row, owner, fence):
            return self._stale("C5.4", row, owner, fence)
        if row["until"] <= now:
            return Expected(
                "C5.3",
                False,
                en=f"False: the lease expired at until={row['until']} <= now={now}; the row unchanged",
                ja=f"False (リースは until={row['until']} <= now={now} で切れている。行は変わらない)",
            )
        row["until"] = now + ttl
        return Expected(
            "C5.2",
            True,
            en=f"True: the lease is current; until = now + ttl = {now + ttl}, the rest unchanged",
            ja=f"True (リースは有効。until = now + ttl = {now + ttl}、ほかは変わらない)",
        )

    def complete(self, job_id, owner, fence, now, result):
        row = self.rows.get(job_id)
        if row is None or row["done"]:
            return Expected(
                "C6.4",
                False,
                en=f"False: {job_id!r} is missing or already done; its result kept",
                ja=f"False ({job_id!r} はないか、すでに完了。result はそのまま)",
            )
        if _differs(row, owner, fence):
            return self._stale("C6.3", row, owner, fence)
        if row["until"] <= now:
            return Expected(
                "C6.2",
                False,
                en=f"False: the lease expired at until={row['until']} <= now={now}; result and done unchanged",
                ja=f"False (リースは until={row['until']} <= now={now} で切れている。result と done は変わらない)",
            )
        row.update(result=result, done=1)
        return Expected(
            "C6.1",
            True,
            en=f"True: the lease is current; result={result!r}, done=1 stored",
            ja=f"True (リースは有効。result={result!r}, done=1 を保存)",
        )

    def release(self, job_id, owner, fence):
        row = self.rows.get(job_id)
        if row is None or row["done"]:
            return Expected(
                "C7.4",
                False,
                en=f"False: {job_id!r} is missing or done; nothing stored",
                ja=f"False ({job_id!r} はないか完了済み。何も保存しない)",
            )
        if _differs(row, owner, fence):
            return self._stale("C7.3", row, owner, fence)
        row.update(owner=None, until=0.0)
        return Expected(
            "C7.1",
            True,
            en=f"True: owner NULL, until 0, fence {fence} kept",
            ja=f"True (owner NULL, until 0, fence {fence} はそのまま)",
            column_clauses={"fence": "C7.2"},
        )

    def claim_many(self, job_id, owners, now, ttl):
        """Expected.value is the winning fence (or None): exactly one owner gets it, the others None."""
        if not owners:
            return Expected(
                "C8.1", None, en="[]: no owners, no claims", ja="[] (owner がいなければ claim もない)", want=[]
            )
        single = self.claim(job_id, owners[0], now, ttl)
        if single.raises:
            return Expected(
                "C8.3",
                raises=ValueError,
                en=f"ValueError from claim (ttl={ttl!r}), passed on to the caller",
                ja=f"claim の ValueError (ttl={ttl!r}) が呼び出し側に届く",
            )
        if single.value is None:
            return Expected(
                "C8.1",
                None,
                en=f"{[None] * len(owners)}: one None per owner ({single.en})",
                ja=f"{[None] * len(owners)} (owner ごとに None。{single.ja})",
                want=[None] * len(owners),
            )
        return Expected(
            "C8.2",
            single.value,
            en=f"fence {single.value} for exactly one owner, None for the others; the stored owner is the winner",
            ja=f"ちょうど 1 人が fence {single.value} を得て、ほかは None。保存される owner は勝者",
        )

    @staticmethod
    def _stale(clause, row, owner, fence):
        held = f"owner={row['owner']!r}, fence={row['fence']}"
        return Expected(
            clause,
            False,
            en=f"False: the row holds {held}, not owner={owner!r}, fence={fence}; the row unchanged",
            ja=f"False (行は {held} で、owner={owner!r}, fence={fence} ではない。行は変わらない)",
        )


def _differs(row, owner, fence):
    """The row is not held by (owner, fence): a row with no owner is held by no one, None included."""
    return row["owner"] is None or (row["owner"], row["fence"]) != (owner, fence)
