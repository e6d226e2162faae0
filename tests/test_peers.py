"""The artifact beside litequeue, persist-queue and huey (field/peers/), with the real packages.

The peers are installed once into .lab/peers-venv, the venv `make demo PEERS=1` and `make bench
PEERS=1` use (pinned versions; pip is bounded by environment.INSTALL_SECONDS), never into the
lab's .venv. The assertions are on what each contender answers, never on how fast it is.
"""

import importlib.metadata
import io
import json
import sqlite3
import subprocess
import sys
from contextlib import closing

import pytest
from hang import HANGS_AFTER
from rich.console import Console

from field.artifact import materialize
from field.peers import bench, environment, story
from lab.model.course import LAB_ROOT

REFERENCE = LAB_ROOT / "solutions"
FIXTURES = LAB_ROOT / "tests" / "field_fixtures"
NAMES = ["artifact", "litequeue", "persist-queue", "huey"]


@pytest.fixture(scope="module")
def peers_python():
    return environment.python()


def test_the_peers_live_in_a_venv_of_their_own_with_the_pinned_versions(peers_python):
    assert peers_python.parent.parent == LAB_ROOT / ".lab" / "peers-venv"
    assert (LAB_ROOT / ".lab" / "peers-venv" / ".installed").read_text().split() == list(environment.PACKAGES)
    listed = subprocess.run(
        [str(peers_python), "-m", "pip", "list", "--format=json"], capture_output=True, text=True, timeout=HANGS_AFTER
    )
    versions = {p["name"].lower(): p["version"] for p in json.loads(listed.stdout)}
    assert (versions["litequeue"], versions["persist-queue"], versions["huey"]) == ("0.9", "1.1.0", "3.5.4")
    # The lab's own environment, as its interpreter sees it (uv makes it without pip to ask).
    lab_packages = {distribution.metadata["Name"].lower() for distribution in importlib.metadata.distributions()}
    assert "pytest" in lab_packages and not {"litequeue", "persist-queue", "huey"} & lab_packages
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


@pytest.fixture(scope="module")
def stories(tmp_path_factory, peers_python):
    folder = tmp_path_factory.mktemp("story")
    return story.play(materialize(REFERENCE, "solutions", folder), folder)


def _by_order(stories):
    return {(s["order"], s["name"]): s for s in stories}


def test_the_story_is_played_in_both_orders_on_every_contender(stories):
    assert [(s["order"], s["name"]) for s in stories] == [(o, n) for o in ("late_last", "late_first") for n in NAMES]
    assert all(s["same_taken_twice"] for s in stories) and story.held(stories)


@pytest.mark.parametrize("order", ["late_last", "late_first"])
def test_the_artifact_refuses_the_stale_write_in_either_order_and_keeps_bs_result(stories, order):
    artifact = _by_order(stories)[order, "artifact"]
    assert (artifact["a"]["fence"], artifact["b"]["fence"]) == (1, 2)
    assert (artifact["late"], artifact["finished_b"], artifact["late_accepted"]) == ("False", "True", False)
    assert artifact["after"] == artifact["before"]  # A's refused call changed nothing in the row
    assert artifact["end"] == {"owner": "B", "fence": 2, "done": 1, "result": "B's result"}


def test_litequeue_and_persist_queue_accept_the_stale_acknowledgement_in_either_order(stories):
    by = _by_order(stories)
    # litequeue's done() says nothing; the row says A's call wrote: again after B's, or first
    last, first = by["late_last", "litequeue"], by["late_first", "litequeue"]
    assert last["late_accepted"] and last["after"]["done_time"] > last["before"]["done_time"]
    assert first["late_accepted"] and first["before"] == {"status": "LOCKED", "done_time": None}
    assert first["after"]["status"] == first["end"]["status"] == "DONE"
    # persist-queue's ack answers with the id it marked: A's as well as B's, in either order
    for order in ("late_last", "late_first"):
        persist = by[order, "persist-queue"]
        assert persist["late_accepted"] and persist["late"] == persist["finished_b"] == str(persist["a"]["id"])
        assert persist["end"]["status"] == "acked"
    assert by["late_first", "persist-queue"]["before"]["status"] == "unack"  # B held it when A acknowledged


def test_huey_stores_whichever_result_comes_last_so_the_late_worker_wins_when_it_writes_last(stories):
    by = _by_order(stories)
    last, first = by["late_last", "huey"], by["late_first", "huey"]
    assert last["a"]["id"] == last["b"]["id"]  # the task enqueued again keeps its id
    assert (last["finished_b"], last["late"]) == ("None", "None")  # put_result answers nothing either way
    assert last["before"] == {"result": "B's result"} and last["after"] == {"result": "A's result"}
    assert last["late_accepted"] and last["stored"] == {"result": "A's result"}  # B's result is lost
    assert first["before"] == {"result": None} and first["after"] == {"result": "A's result"}
    assert first["late_accepted"] and first["stored"] == {"result": "B's result"}


@pytest.mark.parametrize(
    "lang, words, accepted, refused, titles",
    [
        (
            "en",
            "ACCEPTED: done(id) names the message only",
            "ACCEPTED:",
            "refused:",
            ("B writes, then A writes late.", "The other order:", "A writes, late", "stored at the end"),
        ),
        (
            "ja",
            "受理: done(id) はメッセージしか名指さず",
            "受理:",
            "拒否:",
            (
                "B が書き込み、そのあと A が遅れて書き込みます。",
                "逆の順序:",
                "遅れた A の書き込み",
                "最後に保存されているもの",
            ),
        ),
    ],
)
def test_the_story_tables_say_who_accepted_the_stale_write_and_what_is_stored(
    stories, lang, words, accepted, refused, titles
):
    out = io.StringIO()
    story.render(stories, lang, Console(file=out, width=400))  # wide enough that no cell wraps
    shown = out.getvalue()
    assert words in shown and "litequeue 0.9" in shown and "persist-queue 1.1.0" in shown and "huey 3.5.4" in shown
    assert shown.count(accepted) == 6 and shown.count(refused) == 2  # three queues and the artifact, two orders
    assert all(title in shown for title in titles)
    assert 'result="A\'s result"' in shown and "owner='B' fence=2 result=\"B's result\"" in shown


def test_a_fence_blind_complete_accepts_the_late_worker_like_the_queues(tmp_path, peers_python):
    stories = story.play(materialize(FIXTURES / "complete_by_id_alone.py", "broken", tmp_path), tmp_path)
    assert all(s["late_accepted"] for s in stories) and not story.held(stories)
    by = _by_order(stories)
    assert by["late_last", "artifact"]["stored"]["result"] == "A's result"
    assert by["late_first", "artifact"]["stored"]["result"] == "B's result"
    out = io.StringIO()
    story.render(stories, "en", Console(file=out, width=400))  # wide enough that no cell wraps
    shown = out.getvalue()
    assert "ACCEPTED: unlike what the lab expects of it; the row changed: result" in shown
    assert "The story did not go as told above" in shown and "checks owner, fence and until" not in shown


@pytest.fixture(scope="module")
def measured(tmp_path_factory, peers_python):
    folder = tmp_path_factory.mktemp("bench")
    return folder, bench.run(materialize(REFERENCE, "solutions", folder), folder, duration=0.01)


def test_the_like_for_like_rows_run_every_contender_with_the_same_settings_read_back(measured):
    folder, contenders = measured
    same = [c for c in contenders if c.group == "same"]
    assert [c.name for c in same] == NAMES
    for c in same:
        # read back by contender.py from the connection each one works through, before and after its slices
        assert (c.journal, c.synchronous, c.connection) == ("wal", "FULL", "kept"), c.key
        assert (c.after["journal"], c.after["synchronous"], c.after["connection"]) == ("wal", "FULL", "kept"), c.key
        assert c.opened == 0 and c.pairs > 0, c.key  # every pair went through the connection it kept
        for file in c.files:  # and the journal mode is the database file's, read here with plain sqlite3
            assert file.startswith(str(folder))
            with closing(sqlite3.connect(file)) as conn:
                assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal", file
    assert bench.like_for_like(contenders)


def test_the_rows_as_each_ships_say_what_differs(measured):
    _, contenders = measured
    own = {c.name: c for c in contenders if c.group == "own"}
    assert list(own) == NAMES
    assert (own["artifact"].journal, own["artifact"].synchronous, own["artifact"].connection) == (
        "delete",
        "FULL",
        "per_call",
    )
    assert own["artifact"].opened_per_pair == 2.0  # claim and complete each open a connection
    assert (own["litequeue"].journal, own["litequeue"].synchronous) == ("wal", "NORMAL")  # litequeue sets it
    assert own["persist-queue"].journal == own["huey"].journal == "wal"
    assert all(own[name].connection == "kept" and own[name].opened == 0 for name in NAMES[1:])


def test_a_like_for_like_row_that_did_not_run_as_it_says_is_flagged(measured):
    _, contenders = measured
    litequeue = next(c for c in contenders if c.key == "litequeue@same")
    kept = litequeue.after
    litequeue.after = kept | {"synchronous": "NORMAL"}  # as if litequeue had set NORMAL again mid-run
    try:
        assert not bench.like_for_like(contenders)
        out = io.StringIO()
        bench.render(contenders, 0.01, "en", Console(file=out, width=200))
        assert "The like-for-like rows did not run as they say" in out.getvalue()
    finally:
        litequeue.after = kept


def test_the_peers_table_measures_each_contender_in_rounds_beside_the_artifact(measured, tmp_path):
    _, contenders = measured
    assert [c.key for c in contenders] == [f"{n}@same" for n in NAMES] + [f"{n}@own" for n in NAMES]
    assert all(len(c.rates) == len(c.ratios) == bench.MIN_ROUNDS and min(c.rates) > 0 for c in contenders)
    for c in contenders:
        if c.name == "artifact":
            assert c.ratios == [1.0] * bench.MIN_ROUNDS  # each round's rate over its group's artifact's
    versions = {c.name: c.version for c in contenders}
    assert (versions["litequeue"], versions["persist-queue"], versions["huey"]) == ("0.9", "1.1.0", "3.5.4")
    out = io.StringIO()
    bench.render(contenders, 0.01, "en", Console(file=out, width=400))
    shown = out.getvalue()
    for header in ("settings", "contender", "durability and connection (read back)", "pairs/s", "spread", "× artifact"):
        assert header in shown
    assert shown.count("like for like") >= 4 and shown.count("as it ships") >= 4
    assert "journal wal, synchronous FULL; one connection per worker, kept open (0.0 opened per pair)" in shown
    assert "journal delete, synchronous FULL; a connection per call (2.0 opened per pair)" in shown
    assert "like for like · litequeue 0.9: WAL: litequeue sets it at every open, no parameter" in shown
    assert "synchronous=FULL set on its connection, which has no public name (_getter)" in shown
    assert "pop() the next message" in shown and "a named job" in shown and "A preview" in shown
    assert "The like-for-like rows did not run" not in shown
    record = json.loads(bench.write(contenders, tmp_path, 0.01).read_text())
    assert [row["key"] for row in record["contenders"]] == [c.key for c in contenders]
    assert record["packages"] == list(environment.PACKAGES) and record["like_for_like"] is True
    assert all(len(row["ratio_quartiles"]) == 2 for row in record["contenders"])


def test_make_demo_peers_plays_both_orders_after_the_demo_and_says_what_it_means(peers_python):
    done = subprocess.run(
        [sys.executable, "-m", "lab", "demo", "--impl", "solutions", "--unchecked", "--peers"],
        cwd=LAB_ROOT,
        capture_output=True,
        text=True,
        timeout=HANGS_AFTER,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    story_part = done.stdout[done.stdout.index("The same story on three SQLite queues") :]
    assert "The other order: A takes" in story_part
    assert story_part.count("ACCEPTED:") == 6 and story_part.count("refused:") == 2
    assert "The artifact refuses A in both orders" in story_part


def test_the_peers_bench_writes_its_table_beside_the_benchs(tmp_path, peers_python, capsys):
    assert bench.main(REFERENCE, "solutions", 0.01, tmp_path, "ja") == 0
    shown = capsys.readouterr().out
    assert "取り出しと完了の組 / 秒" in shown and "× 成果物" in shown and "同じ条件" in shown
    assert "本来の設定" in shown and "ライブラリが設定させないもの" in shown
    assert (tmp_path / "peers.json").exists()


def make_dry(*arguments):
    done = subprocess.run(
        ["make", "-n", "-o", ".venv/.installed", *arguments],
        cwd=LAB_ROOT,
        capture_output=True,
        text=True,
        timeout=HANGS_AFTER,
    )
    return done.stdout


def test_make_passes_peers_and_unchecked_on_only_when_asked():
    assert "--unchecked --peers" in make_dry("demo", "UNCHECKED=1", "PEERS=1")
    assert "--unchecked" not in make_dry("demo") and "--peers" not in make_dry("demo")
    assert "--peers" in make_dry("bench", "PEERS=1") and "--peers" not in make_dry("bench")
