"""A stress run's log: every call a worker made, read back from its JSON-lines file.

A worker writes a "begin" line before each call and an "end" line after it (stress_worker.py);
a call with a begin line and no end line was cut short by a SIGKILL. The end line also holds
what the worker saw of the job's row right after the call, read with plain sqlite3 (`observed`,
read by `t2`): the row the call left, when no other call that may write the job ran meanwhile.
"""

import json
from dataclasses import dataclass
from pathlib import Path

BEGIN = ("worker", "owner", "pid", "seq", "op", "job", "fence", "now", "ttl", "result", "t0")
LATER = ("owners", "seen")  # in the begin line of some calls only: claim_many's owners, init_db's table before


@dataclass
class Op:
    worker: str  # the process that called (w<slot>.<generation>): owner names repeat across workers
    owner: str
    pid: int
    seq: int
    op: str
    job: str
    fence: object
    now: float
    ttl: object
    result: object
    t0: int
    ended: bool = False
    returned: object = None
    error: object = None
    t1: int = 0
    owners: object = None  # claim_many's list of owners
    observed: object = None  # {"row": [owner, until, fence, result, done] or None}; init_db: {"table": [...]}
    t2: int = 0  # when observed was read
    seen: object = None  # init_db: the table's figures read just before the call
    whole: object = None  # of one owner's claim inside a claim_many (replay.py): that claim_many

    @property
    def accepted(self):
        if not self.ended or self.error:
            return False
        if self.op == "claim":
            return is_fence(self.returned)
        if self.op == "claim_many":
            return isinstance(self.returned, list) and any(is_fence(r) for r in self.returned)
        return self.returned is True

    @property
    def end(self):
        """When the call ended; a call a kill cut short counts as a moment at its start."""
        return self.t1 if self.ended else self.t0

    def trace(self, killed):
        """The call as one line of the report; killed: the word for a call a SIGKILL cut short."""
        if self.whole is not None:
            return self.whole.trace(killed)
        who = self.owners if self.op == "claim_many" else self.owner
        shown = "".join(
            f"{name}={number(value)}, "
            for name, value in (("fence", self.fence), ("ttl", self.ttl))
            if value is not None
        )
        returned = (self.error or repr(self.returned)) if self.ended else killed
        seen = ""
        if self.observed and self.observed.get("row") is not None:
            owner, until, fence, _, done = self.observed["row"]
            seen = f" · row: owner={owner} until={number(until)} fence={fence} done={done}"
        return f"{self.worker}#{self.seq} {self.op}({self.job}, {who}, {shown}now={number(self.now)}) -> {returned}{seen} [pid {self.pid}]"


def number(value):
    """A clock value as the log holds it, to the microsecond, without trailing zeros."""
    if isinstance(value, float):
        return f"{value:.6f}".rstrip("0").rstrip(".")
    return str(value)


def is_fence(value):
    return isinstance(value, int) and not isinstance(value, bool)


def load(folder):
    """Every call in the logs under folder, and how many lines a kill left torn."""
    ops, torn = {}, 0
    for path in sorted(Path(folder).glob("*.jsonl")):
        text = path.read_text(encoding="utf-8", errors="replace")
        lines, tail = text.split("\n")[:-1], text.split("\n")[-1]
        torn += bool(tail)
        for line in lines:
            record = json.loads(line)
            key = (record["worker"], record["seq"])
            if record["phase"] == "begin":
                ops[key] = Op(**{name: record[name] for name in BEGIN}, **{n: record.get(n) for n in LATER})
            elif key in ops:
                op = ops[key]
                op.ended, op.t0, op.t1 = True, record["t0"], record["t1"]
                op.returned, op.error = record["returned"], record["error"]
                op.observed, op.t2 = record.get("observed"), record.get("t2") or record["t1"]
    return list(ops.values()), torn
