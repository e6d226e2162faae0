"""`make bench PEERS=1`: take-and-finish pairs per second on the artifact and the two queues.

One process of the peers' venv (contender.py) holds all three and answers slices: SLICE seconds
of pairs on one contender. Rounds of one slice each follow each other, the contender that starts
a round turning, so that a slow moment falls on all alike, until each has had BENCH_TIME seconds
(at least MIN_ROUNDS rounds, at most MAX_ROUNDS). A row shows the median rate of its slices with
the quartiles, and the median of the rounds' "this / the artifact" with its quartiles.

Not the same work, and the table says so: a queue pops the next message and acknowledges it by
its id over one connection kept open, in its own journal and synchronous settings (read back
from its connection); the artifact claims a named job with an owner and a ttl and completes it
with the fence, a connection per call, rollback journal and synchronous=FULL, as the contract asks.
"""

import json
import statistics
import subprocess
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table

from lab.field.artifact import materialize
from lab.field.bench import STEADY, quartiles
from lab.field.peers import environment
from lab.field.peers.story import WORDS
from lab.model.course import LAB_ROOT
from lab.model.status import ExitStatus
from lab.text.messages import words_of

SLICE = 0.05  # seconds: a few pairs of the artifact even at its slowest
MIN_ROUNDS, MAX_ROUNDS = 5, 400
ANSWER_SECONDS = 60  # one slice, or the filling before the first, on a starved machine


@dataclass
class Contender:
    name: str
    version: str
    journal: str
    synchronous: str
    rates: list = field(default_factory=list)  # pairs per second of each slice, in order
    ratios: list = field(default_factory=list)  # this slice's rate / the artifact's, round by round

    @property
    def rate(self):
        return statistics.median(self.rates)

    @property
    def ratio(self):
        return statistics.median(self.ratios)


class Slices:
    """contender.py's bench, running: ask for one slice of one contender, get pairs per second."""

    def __init__(self, artifact, scratch):
        command = environment.contender("bench", scratch, artifact)
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.settings = self._answer()

    def rate(self, name, seconds):
        self.process.stdin.write(json.dumps({"name": name, "seconds": seconds}) + "\n")
        self.process.stdin.flush()
        answer = self._answer()
        return answer["pairs"] / answer["seconds"], answer["seconds"]

    def _answer(self):
        line = self.process.stdout.readline()
        if not line:
            self.process.wait(ANSWER_SECONDS)
            said = self.process.stderr.read().strip().splitlines()
            raise environment.PeersUnavailable(
                f"contender.py bench: {said[-1] if said else f'exit status {self.process.returncode}'}"
            )
        return json.loads(line)

    def close(self):
        self.process.stdin.close()
        try:
            self.process.wait(ANSWER_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def run(artifact, scratch, duration):
    slices = Slices(artifact, scratch)
    try:
        contenders = [Contender(name, **values) for name, values in slices.settings.items()]
        spent, turn = {c.name: 0.0 for c in contenders}, 0
        while turn < MAX_ROUNDS and (turn < MIN_ROUNDS or min(spent.values()) < duration):
            order = contenders[turn % len(contenders) :] + contenders[: turn % len(contenders)]
            for contender in order:
                rate, seconds = slices.rate(contender.name, SLICE)
                contender.rates.append(rate)
                spent[contender.name] += seconds
            for contender in contenders:
                contender.ratios.append(contender.rates[-1] / contenders[0].rates[-1])  # contenders[0]: the artifact
            turn += 1
    finally:
        slices.close()
    return contenders


def render(contenders, duration, lang="en", console=None):
    console = console or Console(highlight=False, soft_wrap=True, width=132)
    words = words_of("field", lang)
    table = Table(
        title=words("peers_bench_title", duration=duration, rounds=len(contenders[0].rates), slice=SLICE),
        title_justify="left",
    )
    for key in ("p_contender", "p_takes", "p_settings", "p_pairs", "p_spread", "p_times", "p_spread"):
        table.add_column(words(key), justify="left" if key in ("p_contender", "p_takes", "p_settings") else "right")
    for c in contenders:
        own = WORDS[c.name]
        shown = f"{c.name} {c.version}" if c.name != "artifact" else words("p_the_artifact", file=c.version)
        settings = words(own["connection"], journal=c.journal, synchronous=c.synchronous)
        (low, high), (ratio_low, ratio_high) = quartiles(c.rates), quartiles(c.ratios)
        table.add_row(
            shown,
            words(own["takes"]),
            settings,
            f"{c.rate:.0f}",
            f"{low:.0f}–{high:.0f}",
            f"{c.ratio:.2f}",
            f"{ratio_low:.2f}–{ratio_high:.2f}",
        )
    console.print(table)
    console.print(words("peers_bench_meaning"))
    if duration < STEADY:
        console.print(words("peers_preview", steady=STEADY))


def write(contenders, out, duration):
    out = Path(out) if Path(out).is_absolute() else LAB_ROOT / out
    out.mkdir(parents=True, exist_ok=True)
    rows = [
        asdict(c)
        | {
            "median_rate": c.rate,
            "rate_quartiles": quartiles(c.rates),
            "median_ratio": c.ratio,
            "ratio_quartiles": quartiles(c.ratios),
        }
        for c in contenders
    ]
    record = {
        "bench_time": duration,
        "slice_seconds": SLICE,
        "packages": list(environment.PACKAGES),
        "contenders": rows,
    }
    path = out / "peers.json"
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return path


def main(impl_path, label, duration, out, lang="en"):
    words = words_of("field", lang)
    with tempfile.TemporaryDirectory(prefix="lab-peers-") as scratch:
        artifact = materialize(impl_path, label, scratch)
        try:
            contenders = run(artifact, scratch, duration)
        except environment.PeersUnavailable as error:
            print(words("peers_unavailable", error=error))
            return ExitStatus.SOME_FAIL
    render(contenders, duration, lang)
    print(words("bench_wrote", path=write(contenders, out, duration)))
    return ExitStatus.ALL_PASS
