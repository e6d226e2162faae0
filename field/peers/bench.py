"""`make bench PEERS=1`: take-and-finish pairs per second on the artifact and the three queues.

One process of the peers' venv (contender.py) holds every variant and answers slices: SLICE
seconds of pairs on one variant. Each contender runs twice in the same run: like for like (the
group "same": WAL, synchronous=FULL, one connection per worker kept open, one item taken and
finished per pair) and as it ships (the group "own": its own settings; the artifact under the
contract's, rollback journal and a connection per call). Rounds of one slice each follow each
other, the variant that starts a round turning, so that a slow moment falls on all alike, until
each has had BENCH_TIME seconds (at least MIN_ROUNDS rounds, at most MAX_ROUNDS). A row shows the
median rate of its slices with the quartiles, and the median of the rounds' "this / the artifact
of the same group" with its quartiles. Its settings are read back from the connection the
variant works through, before the first slice and after the last, and the connections it opened
during its slices are counted: what the row says is what ran.
"""

import json
import statistics
import subprocess
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table

from field.artifact import materialize
from field.measure import STEADY, quartiles
from field.peers import environment
from field.peers.drivers import SAME
from field.peers.story import WORDS
from lab.model.course import LAB_ROOT
from lab.model.status import ExitStatus
from lab.text.messages import words_of

SLICE = 0.05  # seconds: a few pairs of the artifact even at its slowest
MIN_ROUNDS, MAX_ROUNDS = 5, 400
ANSWER_SECONDS = 60  # one slice, or the filling before the first, on a starved machine
GROUPS = {"same": "p_group_same", "own": "p_group_own"}  # like for like first: the rows that compare
CONNECTIONS = {"kept": "p_connection_kept", "per_call": "p_connection_per_call"}


@dataclass
class Contender:
    key: str  # "huey@same": the contender and its group
    name: str
    group: str
    version: str
    journal: str
    synchronous: str
    connection: str  # "kept" or "per_call"
    files: list
    rates: list = field(default_factory=list)  # pairs per second of each slice, in order
    ratios: list = field(default_factory=list)  # this slice's rate / its group's artifact's, round by round
    pairs: int = 0
    opened: int = 0  # real connections opened to its database files during its slices
    after: dict = field(default_factory=dict)  # its settings read back again after the last slice

    @property
    def rate(self):
        return statistics.median(self.rates)

    @property
    def ratio(self):
        return statistics.median(self.ratios)

    @property
    def opened_per_pair(self):
        return self.opened / self.pairs if self.pairs else 0.0


class Slices:
    """contender.py's bench, running: ask for one slice of one contender, get pairs per second."""

    def __init__(self, artifact, scratch):
        command = environment.contender("bench", scratch, artifact)
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.settings = self._answer()
        self.after = {}

    def slice(self, name, seconds):
        """One slice: {"pairs", "seconds", "opened"}."""
        self.process.stdin.write(json.dumps({"name": name, "seconds": seconds}) + "\n")
        self.process.stdin.flush()
        return self._answer()

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
        """End the slices; the settings each variant reads back after them."""
        self.process.stdin.close()
        line = self.process.stdout.readline()  # nothing when it has stopped already
        self.after = json.loads(line) if line else {}
        try:
            self.process.wait(ANSWER_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def run(artifact, scratch, duration):
    slices = Slices(artifact, scratch)
    try:
        contenders = [Contender(key, group=key.partition("@")[2], **values) for key, values in slices.settings.items()]
        contenders.sort(key=lambda c: list(GROUPS).index(c.group))  # stable: each group in contender.py's order
        base = {c.group: c for c in contenders if c.name == "artifact"}
        spent, turn = {c.key: 0.0 for c in contenders}, 0
        while turn < MAX_ROUNDS and (turn < MIN_ROUNDS or min(spent.values()) < duration):
            order = contenders[turn % len(contenders) :] + contenders[: turn % len(contenders)]
            for contender in order:
                answer = slices.slice(contender.key, SLICE)
                contender.rates.append(answer["pairs"] / answer["seconds"])
                contender.pairs += answer["pairs"]
                contender.opened += answer["opened"]
                spent[contender.key] += answer["seconds"]
            for contender in contenders:
                contender.ratios.append(contender.rates[-1] / base[contender.group].rates[-1])
            turn += 1
    finally:
        slices.close()
    for contender in contenders:
        contender.after = slices.after.get(contender.key, {})
    return contenders


def render(contenders, duration, lang="en", console=None):
    console = console or Console(highlight=False, soft_wrap=True, width=132)
    words = words_of("field", lang)
    table = Table(
        title=words("peers_bench_title", duration=duration, rounds=len(contenders[0].rates), slice=SLICE),
        title_justify="left",
    )
    texts = ("p_group", "p_contender", "p_settings")
    for key in (*texts, "p_pairs", "p_spread", "p_times", "p_spread"):
        table.add_column(words(key), justify="left" if key in texts else "right")
    notes, takes = [], {}
    for c in contenders:
        if c.group != contenders[0].group and c.name == "artifact":
            table.add_section()
        own = WORDS[c.name]
        shown = f"{c.name} {c.version}" if c.name != "artifact" else words("p_the_artifact", file=c.version)
        settings = words(
            CONNECTIONS[c.connection], journal=c.journal, synchronous=c.synchronous, opened=c.opened_per_pair
        )
        (low, high), (ratio_low, ratio_high) = quartiles(c.rates), quartiles(c.ratios)
        table.add_row(
            words(GROUPS[c.group]),
            shown,
            settings,
            f"{c.rate:.0f}",
            f"{low:.0f}–{high:.0f}",
            f"{c.ratio:.2f}",
            f"{ratio_low:.2f}–{ratio_high:.2f}",
        )
        notes.append(words("p_note", group=words(GROUPS[c.group]), contender=shown, text=words(own[c.group])))
        takes.setdefault(shown, words("p_note_takes", contender=shown, text=words(own["takes"])))
    console.print(table)
    console.print(words("p_set_how"))
    for note in notes:
        console.print(note)
    console.print(words("p_takes"))
    for note in takes.values():
        console.print(note)
    console.print(words("peers_bench_meaning"))
    if not like_for_like(contenders):
        console.print(words("peers_bench_unlike"))
    if duration < STEADY:
        console.print(words("peers_preview", steady=STEADY))


def like_for_like(contenders):
    """Whether every variant of the group "same" ran as SAME says, read back before and after its slices."""
    return all(
        {key: getattr(c, key) for key in SAME} == SAME
        and {key: c.after.get(key) for key in SAME} == SAME
        and c.opened == 0
        for c in contenders
        if c.group == "same"
    )


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
            "opened_per_pair": c.opened_per_pair,
        }
        for c in contenders
    ]
    record = {
        "bench_time": duration,
        "slice_seconds": SLICE,
        "packages": list(environment.PACKAGES),
        "like_for_like": like_for_like(contenders),
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
