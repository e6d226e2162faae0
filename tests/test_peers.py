"""The artifact beside litequeue and persist-queue (lab/field/peers/), with the real packages.

The peers are installed once into .lab/peers-venv, the venv `make demo PEERS=1` and `make bench
PEERS=1` use (pinned versions; pip is bounded by environment.INSTALL_SECONDS), never into the
lab's .venv. The assertions are on what each contender answers, never on how fast it is.
"""

import importlib.metadata
import io
import json
import subprocess
import sys

import pytest
from rich.console import Console

from lab.field.artifact import materialize
from lab.field.peers import bench, environment, story
from lab.model.course import LAB_ROOT

REFERENCE = LAB_ROOT / "solutions"
FIXTURES = LAB_ROOT / "tests" / "field_fixtures"
NAMES = ["artifact", "litequeue", "persist-queue"]


@pytest.fixture(scope="module")
def peers_python():
    return environment.python()


def test_the_peers_live_in_a_venv_of_their_own_with_the_pinned_versions(peers_python):
    assert peers_python.parent.parent == LAB_ROOT / ".lab" / "peers-venv"
    assert (LAB_ROOT / ".lab" / "peers-venv" / ".installed").read_text().split() == list(environment.PACKAGES)
    listed = subprocess.run(
        [str(peers_python), "-m", "pip", "list", "--format=json"], capture_output=True, text=True, timeout=60
    )
    versions = {p["name"].lower(): p["version"] for p in json.loads(listed.stdout)}
    assert (versions["litequeue"], versions["persist-queue"]) == ("0.9", "1.1.0")
    # The lab's own environment, as its interpreter sees it (uv makes it without pip to ask).
    lab_packages = {distribution.metadata["Name"].lower() for distribution in importlib.metadata.distributions()}
    assert "pytest" in lab_packages and not {"litequeue", "persist-queue"} & lab_packages
    stamp = LAB_ROOT / ".lab" / "peers-venv" / ".installed"
    made = stamp.stat().st_mtime_ns
    assert environment.python() == peers_python and stamp.stat().st_mtime_ns == made  # made once


def test_an_install_that_fails_says_what_pip_said_in_one_line(tmp_path):
    pip = tmp_path / "pip.py"
    pip.write_text(
        "import sys\nprint('WARNING: noise', file=sys.stderr)\nsys.exit('ERROR: No matching distribution found for litequeue==0.9')\n"
    )
    with pytest.raises(environment.PeersUnavailable) as failed:
        environment._run([sys.executable, str(pip)])
    assert str(failed.value) == f"{sys.executable} {pip}: ERROR: No matching distribution found for litequeue==0.9"


def test_the_late_acknowledgement_is_accepted_by_each_queue_and_refused_by_the_artifact(tmp_path, peers_python):
    stories = story.play(materialize(REFERENCE, "solutions", tmp_path), tmp_path)
    by_name = {s["name"]: s for s in stories}
    assert [s["name"] for s in stories] == NAMES and all(s["same_taken_twice"] for s in stories)
    artifact, lite, persist = (by_name[name] for name in NAMES)
    assert (artifact["a"]["fence"], artifact["b"]["fence"], artifact["finished_b"], artifact["late"]) == (
        1,
        2,
        "True",
        "False",
    )
    assert (
        artifact["after"] == {"owner": "B", "fence": 2, "done": 1, "result": "B's result"}
        and not artifact["late_accepted"]
    )
    # litequeue's done() says nothing; the row says A's call wrote again
    assert (
        lite["late_accepted"]
        and lite["after"]["status"] == "DONE"
        and lite["after"]["done_time"] > lite["before"]["done_time"]
    )
    # persist-queue's ack answers with the id it marked: A's as well as B's
    assert persist["late_accepted"] and persist["late"] == persist["finished_b"] == str(persist["a"]["id"])
    assert persist["after"]["status"] == "acked" and story.held(stories)


@pytest.mark.parametrize(
    "lang, words",
    [("en", "ACCEPTED: done(id) names the message only"), ("ja", "受理: done(id) はメッセージしか名指さず")],
)
def test_the_story_table_says_who_accepted_the_late_acknowledgement(tmp_path, peers_python, lang, words):
    stories = story.play(materialize(REFERENCE, "solutions", tmp_path), tmp_path)
    out = io.StringIO()
    story.render(stories, lang, Console(file=out, width=200))
    shown = out.getvalue()
    assert words in shown and "litequeue 0.9" in shown and "persist-queue 1.1.0" in shown
    assert (
        shown.count("ACCEPTED:" if lang == "en" else "受理:") == 2
        and shown.count("refused:" if lang == "en" else "拒否:") == 1
    )


def test_a_fence_blind_complete_accepts_the_late_worker_like_the_queues(tmp_path, peers_python):
    stories = story.play(materialize(FIXTURES / "complete_by_id_alone.py", "broken", tmp_path), tmp_path)
    assert all(s["late_accepted"] for s in stories) and not story.held(stories)
    assert stories[0]["after"]["result"] == "A's result"
    out = io.StringIO()
    story.render(stories, "en", Console(file=out, width=400))  # wide enough that no cell wraps
    shown = out.getvalue()
    assert "ACCEPTED: unlike what the lab expects of it; the row changed: result" in shown
    assert "The story did not go as told above" in shown and "checks owner, fence and until" not in shown


def test_the_peers_table_measures_each_contender_in_rounds_beside_the_artifact(tmp_path, peers_python):
    contenders = bench.run(materialize(REFERENCE, "solutions", tmp_path), tmp_path, duration=0.01)
    assert [c.name for c in contenders] == NAMES
    assert all(len(c.rates) == len(c.ratios) == bench.MIN_ROUNDS and min(c.rates) > 0 for c in contenders)
    assert contenders[0].ratios == [1.0] * bench.MIN_ROUNDS  # each round's rate over the artifact's
    assert (contenders[0].journal, contenders[0].synchronous) == ("delete", "FULL")
    assert (contenders[1].journal, contenders[1].synchronous) == ("wal", "NORMAL")  # litequeue sets it
    assert contenders[2].journal == "wal" and (contenders[1].version, contenders[2].version) == ("0.9", "1.1.0")
    out = io.StringIO()
    bench.render(contenders, 0.01, "en", Console(file=out, width=200))
    shown = out.getvalue()
    for header in (
        "contender",
        "takes, then acknowledges",
        "connection and settings",
        "pairs/s",
        "spread",
        "× artifact",
    ):
        assert header in shown
    assert (
        "pop() the next message" in shown
        and "a named job" in shown
        and "Not the same work" in shown
        and "A preview" in shown
    )
    record = json.loads(bench.write(contenders, tmp_path, 0.01).read_text())
    assert [row["name"] for row in record["contenders"]] == NAMES and record["packages"] == list(environment.PACKAGES)
    assert all(len(row["ratio_quartiles"]) == 2 for row in record["contenders"])


def test_make_demo_peers_plays_the_story_after_the_demo_and_says_what_it_means(peers_python):
    done = subprocess.run(
        [sys.executable, "-m", "lab", "demo", "--impl", "solutions", "--unchecked", "--peers"],
        cwd=LAB_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    story_part = done.stdout[done.stdout.index("The same story on two SQLite queues") :]
    assert story_part.count("ACCEPTED:") == 2 and story_part.count("refused:") == 1
    assert (
        "an acknowledgement that names only the message cannot tell the late worker from the current one" in story_part
    )


def test_the_peers_bench_writes_its_table_beside_the_benchs(tmp_path, peers_python, capsys):
    assert bench.main(REFERENCE, "solutions", 0.01, tmp_path, "ja") == 0
    shown = capsys.readouterr().out
    assert "取り出しと完了の組 / 秒" in shown and "× 成果物" in shown and "同じ作業ではありません" in shown
    assert (tmp_path / "peers.json").exists()


def make_dry(*arguments):
    done = subprocess.run(
        ["make", "-n", "-o", ".venv/.installed", *arguments], cwd=LAB_ROOT, capture_output=True, text=True, timeout=60
    )
    return done.stdout


def test_make_passes_peers_and_unchecked_on_only_when_asked():
    assert "--unchecked --peers" in make_dry("demo", "UNCHECKED=1", "PEERS=1")
    assert "--unchecked" not in make_dry("demo") and "--peers" not in make_dry("demo")
    assert "--peers" in make_dry("bench", "PEERS=1") and "--peers" not in make_dry("bench")
