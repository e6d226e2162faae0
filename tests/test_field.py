"""The artifact at work (field): the demo, the stress run, the benchmark and the lease tool.

The stress runs are short and real: four worker processes, stalls, clock jumps and SIGKILLs.
Their assertions are on what the run must find (no violation in the reference, the broken
claim's repeated fences, the stale completion accepted), never on how fast the machine was.
"""

import io
import json
import sqlite3
import subprocess
import sys

import pytest
from hang import HANGS_AFTER
from rich.console import Console

from field import bench, busy, interval, invariants, lease_call, recovery, refusal, stress, stress_worker
from field.artifact import import_file, materialize
from field.clock import Clock
from field.demo import play
from lab import commands
from lab.model.course import LAB_ROOT, load_course
from lab.model.status import ExitStatus
from lab.text.messages import CATALOGUE

REFERENCE = LAB_ROOT / "solutions"
FIXTURES = LAB_ROOT / "tests" / "field_fixtures"
SEED = 108  # the fleet's plan for this seed: three of the first four workers die within 16 calls
FENCE_BREAKS = {"v_fence_repeat", "v_fence_lost", "v_fence_down"}


def lab(*arguments):
    return subprocess.run(
        [sys.executable, "-m", "lab", *arguments], cwd=LAB_ROOT, capture_output=True, text=True, timeout=HANGS_AFTER
    )


def kinds(summary):
    return {key for _, key, _ in summary.found.violations}


# One stress run lasts STRESS_SECONDS of the clock; a busy machine makes fewer calls in them (16
# claims in all beside six busy helpers, too few for a race to show). So a test runs its stress
# again, up to STRESS_RUNS times, until the run shows what the test is about: the work, not the
# clock, decides. On a quiet machine the first run does.
STRESS_SECONDS, STRESS_RUNS = 2.0, 10


def stress_until(impl, label, tmp_path, shown):
    """The first stress run of impl for which shown(summary) holds, or the last of STRESS_RUNS."""
    for attempt in range(1, STRESS_RUNS + 1):
        summary = stress.run(impl, label, seconds=STRESS_SECONDS, seed=SEED, keep=tmp_path / f"run-{attempt}")
        if shown(summary):
            break
    return summary


def did_real_work(summary):
    """Enough calls, fences, clock jumps, stale writes tried and kills for a clean run to mean something."""
    found = summary.found
    return (
        found.operations > 50
        and found.fences > 10
        and summary.jumps > 0
        and found.stale_tried > 0
        and bool(summary.kills)
    )


# The catalogue's [field] table (its keys and placeholders: tests/test_message_catalogue.py)


def test_every_violation_has_a_title_in_both_languages():
    for lang in ("en", "ja"):
        field = {key.removeprefix("field.") for key in CATALOGUE[lang] if key.startswith("field.")}
        for key in (
            k
            for k in field
            if k.startswith("v_")
            and not k.endswith("_title")
            and k not in ("v_kind", "v_kind_clause", "v_clause", "v_before", "v_job", "v_db", "v_more")
        ):
            assert key + "_title" in field


# The demo


@pytest.mark.parametrize(
    "lang, refused, email, result",
    [("en", "refused by the store", "B's e-mail", "B's result"), ("ja", "ストアが拒否", "B のメール", "B の結果")],
)
def test_the_demo_plays_the_story_on_the_reference_with_a_fenced_side_effect(tmp_path, lang, refused, email, result):
    """The values the workers store are data the learner reads too: worded in the run's language."""
    lines = []
    figures = play(materialize(REFERENCE, "solutions", tmp_path), str(tmp_path / "demo.db"), lang, lines.append)
    assert (figures["fence_a"], figures["fence_b"], figures["complete_b"], figures["complete_a"]) == (1, 2, True, False)
    assert (figures["effect_b"], figures["effect_a"]) == (True, False)
    assert figures["sent"] == {"fence": 2, "value": email, "writer": "B"}
    assert figures["stored"]["result"] == result and figures["stored"]["fence"] == 2 and figures["held"]
    assert any(refused in line for line in lines)
    assert any(f"result={result!r}" in line for line in lines) and any(f"value={email!r}" in line for line in lines)


def test_the_demo_shows_the_late_write_winning_when_complete_goes_by_id_alone(tmp_path):
    figures = play(
        materialize(FIXTURES / "complete_by_id_alone.py", "broken", tmp_path),
        str(tmp_path / "demo.db"),
        "en",
        [].append,
    )
    assert figures["complete_a"] is True and figures["stored"]["result"] == "A's result" and not figures["held"]
    assert figures["effect_a"] is False  # the store checks the fence itself, whatever the table does


def test_demo_unchecked_plays_an_implementation_that_fails_its_checks():
    done = lab("demo", "--unchecked", "--impl", str(FIXTURES / "complete_by_id_alone.py"))
    assert done.returncode == 1 and "--unchecked" in done.stdout and "does not pass every check" not in done.stdout
    assert "ACCEPTED, a stale worker overwrote the result" in done.stdout


def test_demo_and_bench_refuse_an_implementation_whose_checks_do_not_pass(capsys, stubs):
    done = lab("demo", "--impl", str(stubs))
    assert (
        done.returncode == 1 and "does not pass every check yet" in done.stdout and "not implemented yet" in done.stdout
    )
    assert bench.main(stubs, "steps", 0.01, (1,), "unused", "en") == 1
    assert "does not pass every check yet" in capsys.readouterr().out


# The stress run


def test_stress_finds_no_violation_in_the_reference_and_survives_its_kills(tmp_path):
    summary = stress_until(REFERENCE, "solutions", tmp_path, lambda run: not run.passed or did_real_work(run))
    assert summary.passed, summary.found.violations[:3]
    found = summary.found
    assert did_real_work(summary) and found.stale_accepted == 0
    assert summary.kills_survived == len(summary.kills)
    assert 4 < summary.started <= 4 + len(summary.kills) and found.interrupted == len(summary.kills)
    assert found.unlogged == 0  # a kill lands before COMMIT, so no fence goes unlogged


# One worker of the stress run in this process, its clock jumped at once when it stalls: what each
# of its plays does to a write that checks the owner but not the fence, or not the time.


class Cell:
    """Stands in for a multiprocessing RawValue('d')."""

    def __init__(self, value):
        self.value = value


class Parent:
    """The fleet's end of a worker's pipe: a stall jumps the clock past the ttl at once."""

    def __init__(self, clock, ttl):
        self.clock, self.ttl = clock, ttl

    def send(self, message):
        if message[0] == "stall":
            self.clock.jump(self.ttl * 1.01)


def one_worker(tmp_path, impl, jobs=5, **plan):
    (tmp_path / "logs").mkdir()
    artifact = materialize(impl, impl.stem, tmp_path)
    plan = stress_worker.Plan(str(artifact), str(tmp_path / "jobs.db"), str(tmp_path / "logs"), SEED, 1.0, **plan)
    clock = Clock(Cell(0.0), Cell(0.0))
    clock.begin()
    worker = stress_worker.Worker(plan, 0, 0, clock, Parent(clock, plan.ttl), None)
    worker.lease = import_file(artifact)
    worker.lease.init_db(plan.db)
    for number in range(jobs):
        job = f"job-{number}"
        worker.call("enqueue", job)
        worker.hold(job, worker.claim(job))
    ops, _ = invariants.load(plan.logs)
    return invariants.verify(ops, recovery.inspect(plan.db, invariants.Findings()))


PLAYS = {  # the plays a worker opens with (stress_worker.Plan.opening), played on every job
    "reclaim": {"opening": ("reclaim",) * 5},
    "late_renew": {"opening": ("late_renew",) * 5},
    "take_back": {"opening": ("take_back",) * 5},
}


@pytest.mark.parametrize("play", PLAYS)
def test_each_play_of_a_stress_worker_is_kept_by_the_reference(tmp_path, play):
    found = one_worker(tmp_path, REFERENCE, **PLAYS[play])
    assert not found.violations, found.violations[:2]
    # reclaim: each old-fence completion, and one old-fence renewal (this seed's rolls); late_renew:
    # the renewal and the completion after it; take_back: nothing stale, and a new fence each time
    assert found.stale_tried == {"reclaim": 6, "late_renew": 10, "take_back": 0}[play]
    assert found.fences == {"reclaim": 10, "late_renew": 5, "take_back": 10}[play]


@pytest.mark.parametrize(
    "play, fixture, clause, key",
    [
        ("reclaim", "complete_checks_owner_not_fence", "C6.3", "v_stale_accepted"),
        ("late_renew", "renew_ignores_expiry", "C5.3", "v_stale_accepted"),
        ("take_back", "release_resets_the_fence", "C7.2", "v_fence_repeat"),
    ],
)
def test_each_play_of_a_stress_worker_catches_its_broken_write_every_time(tmp_path, play, fixture, clause, key):
    found = one_worker(tmp_path, FIXTURES / f"{fixture}.py", **PLAYS[play])
    caught = [(job, values) for job, k, values in found.violations if k == key and values["clause"] == clause]
    assert sorted(job for job, _ in caught) == [f"job-{n}" for n in range(5)]
    assert all(values["ops"][0].owner == "host-0" for _, values in caught)  # one owner name throughout


def test_stress_reports_its_figures_and_the_seed_in_both_languages():
    summary = stress.Summary(SEED, 1.0, 4, LAB_ROOT)
    for lang, words in (("en", "stale writes accepted"), ("ja", "受理された古い書き込み")):
        lines = []
        stress.render(summary, "solutions", lang, lines.append)
        assert any(words in line for line in lines) and any(f"SEED={SEED}" in line for line in lines)


def test_stress_on_the_stubs_names_the_function_that_is_missing(tmp_path, stubs):
    # A store that raises is at fault, not in breach of a promise: status 5, not 1 (issue 38)
    done = lab("stress", "--impl", str(stubs), "--seconds", "0.5", "--keep", str(tmp_path))
    assert done.returncode == ExitStatus.STORE_FAULT and "init_db failed before any worker ran" in done.stdout
    assert "NotImplementedError" in done.stdout and "Traceback" not in done.stdout + done.stderr


# The invariant checker on hand-made logs


def op(owner, seq, name, fence=None, returned=None, t=(0, 1), now=0.0, ttl=None, result=None, job="j", ended=True):
    return invariants.Op(
        f"w-{owner}", owner, 1, seq, name, job, fence, now, ttl, result, t[0], ended, returned, None, t[1]
    )


def test_a_gap_in_the_fences_is_a_violation_unless_a_killed_claim_explains_it():
    row = {"fence": 2, "done": 0, "result": None}
    claimed = op("A", 1, "claim", returned=1, ttl=5.0)
    found = invariants.verify([claimed], {"j": row})
    assert [key for _, key, _ in found.violations] == ["v_fence_gap"]
    found = invariants.verify([claimed, op("B", 1, "claim", ttl=5.0, t=(2, 0), ended=False)], {"j": row})
    assert not found.violations and found.unlogged == 1


def test_a_completion_after_a_newer_claim_is_stale_and_must_be_refused():
    ops = [
        op("A", 1, "claim", returned=1, ttl=5.0, t=(0, 1)),
        op("B", 1, "claim", returned=2, ttl=5.0, now=6.0, t=(2, 3)),
        op("A", 2, "complete", fence=1, returned=True, now=7.0, result="A#2", t=(4, 5)),
    ]
    found = invariants.verify(ops, {"j": {"fence": 2, "done": 1, "result": "A#2"}})
    assert found.stale_tried == 1 and found.stale_accepted == 1
    assert {key for _, key, _ in found.violations} == {"v_stale_accepted", "v_result_stale"}


# The lease tool


def lease(db, *arguments):
    return commands.main(["lease", "--impl", "solutions", "--db", str(db), *arguments])


def test_two_terminals_play_a_and_b_by_hand(tmp_path, capsys):
    db = tmp_path / "jobs.db"
    assert lease(db, "init") == 0 and lease(db, "enqueue", "job-1") == 0
    assert lease(db, "claim", "job-1", "A", "--ttl", "5", "--now", "0") == 0
    assert lease(db, "claim", "job-1", "B", "--ttl", "5", "--now", "3") == 1  # A's lease is live
    assert lease(db, "claim", "job-1", "B", "--ttl", "5", "--now", "6") == 0
    assert lease(db, "complete", "job-1", "B", "2", "B's result", "--now", "7") == 0
    assert lease(db, "complete", "job-1", "A", "1", "A's result", "--now", "8") == 1
    capsys.readouterr()
    assert lease(db, "state", "job-1", "--json") == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["returned"]["result"] == "B's result" and shown["returned"]["fence"] == 2


@pytest.mark.parametrize(
    "arguments, says",
    [
        (["--db", "no/such.db", "state", "job-1"], "no such database"),
        (["state", "job-1"], "--db FILE is required"),
        (["--db", "{db}", "claim", "job-1", "A", "--ttl", "0"], "ttl must be positive"),
        (["--db", "{db}", "claim", "job-1", "A", "--ttl", "5", "--now", "soon"], "'soon' is not a valid value"),
        (["--db", "{db}", "renew", "job-1", "A", "one", "--ttl", "5"], "'one' is not a valid value"),
        (["--db", "{db}", "frob"], "'frob' is not one of"),
        (
            ["--db", "{db}", "claim", "job-1", "A", "--ttl", "5", "--now", "nan"],
            "--now must be a finite number, got nan",
        ),
        (
            ["--db", "{db}", "claim", "job-1", "A", "--ttl", "inf", "--now", "0"],
            "--ttl must be a finite number, got inf",
        ),
        (
            ["--db", "{db}", "state", "job-1", "--busy-timeout", "nan"],
            "--busy-timeout must be a finite number, got nan",
        ),
        (["--db", "{db}", "state", "job-1", "--busy-timeout", "-1"], "--busy-timeout must be 0 or more, got -1.0"),
        (["--db", "{db}", "claim-many", "job-1", "--ttl", "5"], "missing: owners"),
    ],
)
def test_the_lease_tool_gives_one_line_and_status_2_for_a_usage_error(tmp_path, capsys, arguments, says):
    db = tmp_path / "jobs.db"
    assert lease(db, "init") == 0
    capsys.readouterr()
    assert commands.main(["lease", "--impl", "solutions", *(a.format(db=db) for a in arguments)]) == 2
    error = capsys.readouterr().err
    assert says in error and error.count("\n") == 1


def test_the_lease_tool_help_names_each_function_with_its_arguments():
    done = lab("lease", "--help")
    assert (
        "init_db(path)" in done.stdout
        and "claim(path, job_id, owner, now, ttl)" in done.stdout
        and "path, )" not in done.stdout
    )
    assert "claim_many(path, job_id, owners, now, ttl)" in done.stdout and "4 busy" in done.stdout
    signatures = {step.function: step.parameters for step in load_course()}
    missing = [
        f"{function}({', '.join(signatures[function])})"
        for function in lease_call.CALLS.values()
        if f"{function}({', '.join(signatures[function])})" not in done.stdout
    ]
    assert not missing, f"lease --help does not show course.toml's signatures {missing}"


def test_the_lease_tool_passes_each_argument_under_course_tomls_name(tmp_path, capsys):
    db = tmp_path / "jobs.db"
    assert lease(db, "init") == 0 and lease(db, "enqueue", "job-1") == 0
    capsys.readouterr()
    assert lease(db, "renew", "job-1", "A", "3", "--ttl", "5", "--now", "2", "--json") == 1
    shown = json.loads(capsys.readouterr().out)
    renew = next(step for step in load_course() if step.function == "renew")
    assert tuple(shown["arguments"]) == renew.parameters == ("path", "job_id", "owner", "fence", "now", "ttl")
    assert shown["arguments"] | {"path": "db"} == {
        "path": "db",
        "job_id": "job-1",
        "owner": "A",
        "fence": 3,
        "now": 2.0,
        "ttl": 5.0,
    }
    assert shown["returned"] is False and "never been claimed" in shown["reason"]


def played(db, *calls):
    """Each call of the lease tool in turn on db; the last one's status and what it printed."""
    for call in calls:
        status = lease(db, *call)
    return status


@pytest.mark.parametrize(
    "calls, says",
    [
        ([["claim", "job-9", "A", "--ttl", "5", "--now", "0"]], "no fence for A: there is no job job-9"),
        ([["enqueue", "job-1"]], "not enqueued: job-1 is already there (owner=None fence=0 done=0)"),
        (
            [["claim", "job-1", "A", "--ttl", "5", "--now", "0"], ["claim", "job-1", "B", "--ttl", "5", "--now", "3"]],
            "job-1 is leased to A with fence 1 until 5, after now=3",
        ),
        (
            [["claim", "job-1", "A", "--ttl", "5", "--now", "0"], ["complete", "job-1", "B", "1", "r", "--now", "1"]],
            "job-1 is held by A (fence 1), not by B",
        ),
        (
            [
                ["claim", "job-1", "A", "--ttl", "5", "--now", "0"],
                ["claim", "job-1", "A", "--ttl", "5", "--now", "6"],
                ["complete", "job-1", "A", "1", "r", "--now", "7"],
            ],
            "fence 1 is an older generation: job-1 was claimed again since, its fence is now 2",
        ),
        (
            [
                ["claim", "job-1", "A", "--ttl", "5", "--now", "0"],
                ["renew", "job-1", "A", "7", "--ttl", "5", "--now", "1"],
            ],
            "fence 7 was never handed out: the fence of job-1 is 1",
        ),
        (
            [
                ["claim", "job-1", "A", "--ttl", "5", "--now", "0"],
                ["renew", "job-1", "A", "1", "--ttl", "5", "--now", "5"],
            ],
            "the lease ran out at until=5 <= now=5",
        ),
        (
            [
                ["claim", "job-1", "A", "--ttl", "5", "--now", "0"],
                ["release", "job-1", "A", "1"],
                ["complete", "job-1", "A", "1", "r", "--now", "1"],
            ],
            "job-1 was released: it has no owner, its fence stays 1",
        ),
        ([["renew", "job-1", "A", "0", "--ttl", "5", "--now", "0"]], "job-1 has never been claimed (fence 0)"),
        (
            [
                ["claim", "job-1", "A", "--ttl", "5", "--now", "0"],
                ["complete", "job-1", "A", "1", "r", "--now", "1"],
                ["release", "job-1", "A", "1"],
            ],
            "job-1 is done (fence 1, result 'r'): a done job never changes",
        ),
    ],
)
def test_a_refusal_names_the_one_reason_read_from_the_row(tmp_path, capsys, calls, says):
    db = tmp_path / "jobs.db"
    assert played(db, ["init"], ["enqueue", "job-1"], *calls) == 1
    printed = capsys.readouterr().out.splitlines()[-1]
    assert says in printed and " or " not in printed


def test_a_refusal_the_row_does_not_explain_is_called_the_implementations_own(tmp_path):
    db = tmp_path / "jobs.db"
    with sqlite3.connect(db) as conn:
        conn.execute(
            "CREATE TABLE jobs (id TEXT PRIMARY KEY, owner TEXT, until REAL NOT NULL DEFAULT 0, fence INTEGER NOT NULL DEFAULT 0, result TEXT, done INTEGER NOT NULL DEFAULT 0)"
        )
        conn.execute("INSERT INTO jobs VALUES ('job-1', 'A', 10, 3, NULL, 0)")
    said = refusal.reason(str(db), "complete", {"job_id": "job-1", "owner": "A", "fence": 3, "now": 4.0}, "en")
    assert said == "the row shows no reason (owner=A fence=3 until=10 done=0): the refusal is the implementation's own"
    assert refusal.reason(str(db), "claim", {"job_id": "job-1", "owner": "B", "now": 10.0}, "ja").startswith(
        "行には拒否する理由がありません"
    )


def test_claim_many_gives_one_fence_among_owners_and_says_who_got_it(tmp_path, capsys):
    db = tmp_path / "jobs.db"
    assert (
        played(
            db,
            ["init"],
            ["enqueue", "job-1"],
            ["claim-many", "job-1", "A", "B", "C", "--ttl", "5", "--now", "0", "--json"],
        )
        == 0
    )
    returned = json.loads(capsys.readouterr().out.splitlines()[-1])["returned"]
    assert sorted(returned, key=str) == [1, None, None]
    winner = "ABC"[returned.index(1)]
    assert lease(db, "claim-many", "job-1", "D", "E", "--ttl", "5", "--now", "1") == 1
    assert (
        f"no fence for any of D, E: job-1 is leased to {winner} with fence 1 until 5, after now=1"
        in capsys.readouterr().out
    )


@pytest.fixture
def locked(tmp_path):
    """A database whose write lock another process holds (BEGIN IMMEDIATE) until the test ends."""
    db = tmp_path / "jobs.db"
    assert lease(db, "init") == 0 and lease(db, "enqueue", "job-1") == 0
    hold = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('BEGIN IMMEDIATE'); print('held', flush=True); sys.stdin.read()"
    holder = subprocess.Popen(
        [sys.executable, "-c", hold, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout.readline() == "held\n"
    yield db
    holder.stdin.close()
    holder.wait(10)


def test_a_database_locked_by_another_process_is_busy_with_its_own_status(locked, capsys):
    capsys.readouterr()
    assert (
        lease(locked, "claim", "job-1", "A", "--ttl", "5", "--now", "0", "--busy-timeout", "0.1")
        == ExitStatus.BUSY
        == 4
    )
    out = capsys.readouterr()
    assert (
        out.err
        == f"busy: another process holds the write lock on {locked}; waited 0.1 s (--busy-timeout SECONDS waits longer)\n"
    )
    assert "init" not in out.err and out.out == ""
    assert (
        lease(locked, "state", "job-1", "--json", "--busy-timeout", "0") == 0
    )  # reading still works: the row is untouched
    assert json.loads(capsys.readouterr().out)["returned"]["fence"] == 0


def test_the_busy_timeout_reaches_every_connection_the_artifact_opens(locked, monkeypatch):
    opened = []
    real = sqlite3.connect
    monkeypatch.setattr(
        sqlite3,
        "connect",
        lambda *a, **k: opened.append(k.get("timeout", a[1] if len(a) > 1 else None)) or real(*a, **k),
    )
    with busy.waiting_at_most(0.05):
        with pytest.raises(sqlite3.OperationalError) as raised:
            import_file(materialize(REFERENCE, "solutions")).claim(str(locked), "job-1", "A", 0.0, 5.0)
        sqlite3.connect(str(locked), 30).close()  # a timeout the code gives by position is replaced too
    assert busy.is_busy(raised.value) and opened == [0.05, 0.05]
    assert sqlite3.connect is not real and busy.is_busy(sqlite3.OperationalError("database is locked")) is False


def test_a_folder_as_db_gives_advice_that_works(tmp_path, capsys):
    assert commands.main(["lease", "--impl", "solutions", "--db", str(tmp_path), "init"]) == 2
    error = capsys.readouterr().err
    assert (
        error
        == f"{tmp_path} is a folder, not a database file: name a file in it, such as --db {tmp_path / 'jobs.db'} (init creates it)\n"
    )
    assert lease(tmp_path / "jobs.db", "init") == 0


def test_a_database_without_the_table_says_how_to_make_it(tmp_path, capsys):
    db = tmp_path / "other.db"
    sqlite3.connect(db).close()
    assert lease(db, "state", "job-1") == 2
    assert capsys.readouterr().err == f"{db} has no jobs table: python -m lab lease --db {db} init makes it\n"
    assert lease(db, "init") == 0 and lease(db, "state", "job-1") == 1


def test_the_lease_tool_says_which_function_is_not_implemented_without_a_traceback(tmp_path, stubs):
    done = lab("lease", "--db", str(tmp_path / "x.db"), "--impl", str(stubs), "init")
    assert done.returncode == 1 and "`init_db` is not implemented yet in" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr


# The benchmark


def test_the_bench_measures_artifact_and_floor_in_pairs_of_slices_and_draws_the_chart(tmp_path):
    rows, _ = bench.run(REFERENCE, "solutions", duration=0.02, counts=(1, 2))
    settings = ("contract", "wal_full", "wal", "kept", "wal_kept")
    assert [(r.setting, r.workers) for r in rows] == [(s, n) for n in (1, 2) for s in settings]
    assert all(rate > 0 for row in rows for rate in row.rates.values())
    least = {"contract": 7, "wal_full": 4, "wal": 4, "kept": 4, "wal_kept": 4}
    assert all(len(row.ratios[kind]) == least[row.setting] for row in rows for kind in bench.KINDS)
    assert {(r.journal, r.synchronous) for r in rows} == {("delete", "FULL"), ("wal", "FULL"), ("wal", "NORMAL")}
    out = io.StringIO()
    judged = bench.render(rows, "solutions", 0.02, "/tmp", "en", Console(file=out, width=160))
    assert judged.preview and "Preview" in out.getvalue() and "spread" in out.getvalue()
    assert (
        f"{judged.low:.2f}×–{judged.high:.2f}× the floor's time per call ({judged.level:.0%} interval" in out.getvalue()
    )
    assert "Ruled out by the contract" in out.getvalue() and "as durable as the contract's setting" in out.getvalue()
    written = bench.write(rows, "solutions", tmp_path, 0.02)
    assert {p.name for p in written} == {"bench.json", "bench.svg", "bench.png"} and all(
        p.stat().st_size for p in written
    )
    record = json.loads((tmp_path / "bench.json").read_text())
    assert (
        record["bench_time"] == 0.02
        and record["verdict"]["preview"]
        and record["method"]["pairs_per_measurement"] == [4, 7]
    )
    assert record["verdict"]["low"] == judged.low and record["method"]["interval"]["seed"] == interval.SEED
    assert (
        "PREVIEW" in (tmp_path / "bench.svg").read_text()
        and "% interval, goal ≤ 1.25×" in (tmp_path / "bench.svg").read_text()
    )
