"""Stress judges every promise of the contract (field/replay.py, invariants.py, faults.py).

Each broken store of tests/field_fixtures/ is the reference with one change (its docstring says
which): every stress run must catch it under the clause it breaks, in each of three seeds, with no
second run to help, and must never flag the reference. The plays that catch each one are in every
worker's opening (field/stress_plays.py). A store that raises or answers nonsense is at fault:
its own exit status and message, no verdict on its promises. The judge itself is tested first, on
hand-made logs, where every order of the calls is known.
"""

import shutil
import subprocess
import sys

import pytest
from hang import HANGS_AFTER

from field import invariants, recovery, stress
from field.stress_log import number
from lab.model.course import LAB_ROOT
from lab.model.status import ExitStatus

FIXTURES = LAB_ROOT / "tests" / "field_fixtures"
SEEDS = (1, 2, 3)
STRESS_SECONDS = 3.0  # make stress's default length
CAUGHT = {  # each broken store -> the clause of the function whose call breaks it (or one of them)
    "claim_ignores_a_live_lease": "C4.4",
    "claim_refused_at_until": "C4.5",
    "claim_keeps_the_fence_of_an_expired_lease": "C4.5",
    "claim_uses_the_wall_clock": "C4.5",
    "complete_at_until": "C6.2",
    "complete_ignores_done": "C6.4",
    "release_by_a_non_owner": "C7.3",
    "claim_many_shares_one_connection": "C8.2",
    "complete_checks_owner_not_fence": "C6.3",  # the lab's earlier ones
    "renew_ignores_expiry": "C5.3",
    "release_resets_the_fence": "C7.2",
    "claim_under_process_lock": ("C4.6", "C8.2"),  # claims of two processes race, or claim_many's threads do
    "claim_reads_outside_transaction": ("C4.6", "C8.2"),
    "complete_by_id_alone": "C6.4",
}


# The judge, on hand-made logs: each call's t0 and t1 in ms, the row its worker read after it.


def call(name, t, returned, worker="w0", owner="A", fence=None, now=0.0, ttl=None, result=None, **more):
    """One logged call; row= the row read right after it ([owner, until, fence, result, done])."""
    seq = call.seq = getattr(call, "seq", 0) + 1
    killed = returned == "killed"
    observed = {"row": more.pop("row")} if "row" in more else None
    return invariants.Op(
        worker, owner, 1, seq, name, more.pop("job", "j"), fence, now, ttl, result, t[0] * 10**6,
        not killed, None if killed else returned, more.pop("error", None), t[1] * 10**6,
        more.pop("owners", None), observed, t[1] * 10**6 + 1, None,
    )  # fmt: skip


def judged(*ops, rows=None):
    """The verdict on ops; rows: the table after them (default: the last row a call read)."""
    if rows is None:
        last = max((op for op in ops if op.observed), key=lambda op: op.t1, default=None)
        columns = ("owner", "until", "fence", "result", "done")
        rows = {"j": dict(zip(columns, last.observed["row"]))} if last else {}
    found = invariants.verify(list(ops), rows, enqueued={"j"})
    return found, [(key, values["clause"]) for _, key, values in found.violations]


def test_a_completion_at_until_must_be_refused():
    found, named = judged(
        call("claim", (0, 1), 1, now=0.0, ttl=5.0, row=["A", 5.0, 1, None, 0]),
        call("complete", (2, 3), True, fence=1, now=5.0, result="late", row=["A", 5.0, 1, "late", 1]),
    )
    assert named == [("v_stale_accepted", "C6.2"), ("v_result_stale", "C6.2")]  # the call, and the result it left
    assert found.stale_tried == found.stale_accepted == 1


def test_a_claim_at_until_must_win_the_next_fence():
    found, named = judged(
        call("claim", (0, 1), 1, now=0.0, ttl=5.0, row=["A", 5.0, 1, None, 0]),
        call("claim", (2, 3), None, owner="B", now=5.0, ttl=5.0, row=["A", 5.0, 1, None, 0]),
    )
    assert named == [("v_refused", "C4.5")]


def test_a_claim_of_a_live_lease_is_two_holders_at_once():
    _, named = judged(
        call("claim", (0, 1), 1, now=0.0, ttl=5.0, row=["A", 5.0, 1, None, 0]),
        call("claim", (2, 3), 2, owner="B", now=1.0, ttl=5.0, row=["B", 6.0, 2, None, 0]),
    )
    assert named == [("v_live_taken", "C4.4")]


def test_calls_that_overlap_are_judged_in_the_order_that_fits():
    # B's claim began first and lost: A's claim, inside B's, took the job before B's got the lock
    _, named = judged(
        call("claim", (0, 10), None, owner="B", now=0.0, ttl=5.0),
        call("claim", (2, 4), 1, now=0.1, ttl=5.0, worker="w1"),
        call("complete", (11, 12), True, fence=1, now=1.0, result="A's", worker="w1"),
        rows={"j": {"owner": "A", "until": 5.1, "fence": 1, "result": "A's", "done": 1}},
    )
    assert named == []


def test_a_call_cut_short_by_a_kill_stored_nothing_and_takes_no_blame_from_the_call_beside_it():
    # The kill lands before COMMIT: B's claim stored nothing, so the claim at until == now that was
    # refused beside it is the broken one, not the claim after them both
    _, named = judged(
        call("claim", (0, 1), 1, now=0.0, ttl=1.0, row=["A", 1.0, 1, None, 0]),
        call("claim", (2, 10), None, now=1.0, ttl=1.0),
        call("claim", (3, 3), "killed", owner="B", now=1.5, ttl=1.0, worker="w1"),
        call("claim", (11, 12), 2, owner="C", now=1.6, ttl=1.0, worker="w2", row=["C", 2.6, 2, None, 0]),
    )
    assert named == [("v_refused", "C4.5")]


def test_a_claim_that_stores_another_until_is_named_with_the_until_it_stored():
    # B's renew overlaps: the whole row after A's claim is not A's alone, but owner and fence say
    # the until is the one A's claim stored
    found, named = judged(
        call("claim", (0, 4), 1, now=0.0, ttl=5.0, row=["A", 1700000005.0, 1, None, 0]),
        call("renew", (1, 2), False, owner="B", fence=1, now=0.5, ttl=5.0, worker="w1"),
    )
    assert named == [("v_stored", "C4.5")]
    values = found.violations[0][2]
    assert (values["column"], values["stored"], values["wanted"]) == ("until", "1700000005.0", "5.0")
    assert "until=1700000005 fence=1" in values["ops"][0].trace("killed")


def test_a_fence_repeated_by_claims_one_after_the_other_is_the_claims_own_not_the_race_clause():
    _, named = judged(
        call("claim", (0, 1), 1, now=0.0, ttl=1.0),
        call("claim", (2, 3), 1, now=2.0, ttl=1.0),
        rows={"j": {"owner": "A", "until": 3.0, "fence": 1, "result": None, "done": 0}},
    )
    assert named == [("v_fence_repeat", "C4.5")]


def test_a_fence_repeated_by_claims_that_raced_is_the_race_clause():
    _, named = judged(
        call("claim", (0, 5), 1, now=0.0, ttl=1.0),
        call("claim", (1, 4), 1, owner="B", now=0.0, ttl=1.0, worker="w1"),
        rows={"j": {"owner": "A", "until": 1.0, "fence": 1, "result": None, "done": 0}},
    )
    assert named == [("v_fence_repeat", "C4.6")]


@pytest.mark.parametrize(
    "made, clause, fault",
    [
        (call("claim", (0, 1), None, now=0.0, ttl=1.0, error="TypeError: can only concatenate str"), None, "f_raised"),
        (call("claim", (0, 1), "1", now=0.0, ttl=1.0), None, "f_nonsense"),
        (call("renew", (0, 1), 1, fence=1, now=0.0, ttl=1.0), None, "f_nonsense"),
        (call("init_db", (0, 1), None, error="OperationalError: table jobs already exists", job=None), "C1.3", None),
        (call("claim_many", (0, 1), None, owners=["A", "B"], now=0.0, ttl=1.0, error="OperationalError: not an error"), "C8.2", None),
        (call("claim", (0, 1), None, now=0.0, ttl=0.0, error="ValueError: ttl must be positive"), None, None),
    ],
)  # fmt: skip
def test_an_exception_is_a_fault_of_the_store_unless_the_contract_names_it(made, clause, fault):
    found, named = judged(made)
    assert named == ([("v_raised", clause)] if clause else [])
    assert [key for _, key, _ in found.faults] == ([fault] if fault else [])


def test_a_claim_that_does_not_raise_for_ttl_0_is_named_c4_1():
    _, named = judged(call("claim", (0, 1), 1, now=0.0, ttl=0.0, row=["A", 0.0, 1, None, 0]))
    assert ("v_no_error", "C4.1") in named


# Stress runs: every broken store caught in every seed, the reference never flagged


def clauses(summary):
    return {values["clause"] for _, _, values in summary.found.violations}


@pytest.mark.parametrize("seed", SEEDS)
def test_stress_never_flags_the_reference(tmp_path, seed):
    summary = stress.run(LAB_ROOT / "solutions", "solutions", seconds=STRESS_SECONDS, seed=seed, keep=tmp_path)
    assert summary.status == ExitStatus.ALL_PASS, (summary.found.violations[:3], summary.found.faults[:3])
    assert summary.found.judged > 50 and summary.found.counts.get("claim_many")


def _store_runs(every_seed):
    """(store, seed) pairs: one seed per store, the three taking turns, so that make test runs 14
    stress runs instead of 42; `pytest tests/test_stress_verdicts.py --all-seeds` runs every seed
    of every store (the issue's three of three)."""
    stores = list(CAUGHT)
    if every_seed:
        return [(store, seed) for store in stores for seed in SEEDS]
    return [(store, SEEDS[at % len(SEEDS)]) for at, store in enumerate(stores)]


def pytest_generate_tests(metafunc):
    if {"store", "seed"} <= set(metafunc.fixturenames):
        metafunc.parametrize("store, seed", _store_runs(metafunc.config.getoption("--all-seeds")))


def test_stress_catches_each_broken_store_under_its_clause(tmp_path, store, seed):
    fixture = store
    summary = stress.run(FIXTURES / f"{fixture}.py", fixture, seconds=STRESS_SECONDS, seed=seed, keep=tmp_path)
    assert summary.status == ExitStatus.SOME_FAIL and not summary.found.faults, summary.found.faults[:2]
    wanted = CAUGHT[fixture] if isinstance(CAUGHT[fixture], tuple) else (CAUGHT[fixture],)
    assert set(wanted) & clauses(summary), clauses(summary)
    if fixture == "claim_keeps_the_fence_of_an_expired_lease":  # two claims in a row, not a race
        repeats = [v["ops"] for _, k, v in summary.found.violations if k == "v_fence_repeat" and v["clause"] == "C4.5"]
        assert any(later.t0 > earlier.t1 for earlier, later, *_ in repeats) and "C4.6" not in clauses(summary)
    if fixture == "claim_uses_the_wall_clock":  # blamed on claim, with the until it stored
        stored = [v for _, k, v in summary.found.violations if k == "v_stored" and v["ops"][0].op == "claim"]
        assert stored and stored[0]["column"] == "until" and float(stored[0]["stored"]) > 10**9
        shown = f"until={number(float(stored[0]['stored']))}"
        assert shown in stored[0]["ops"][0].trace("killed") and not clauses(summary) & {"C5.3", "C6.2"}


@pytest.mark.parametrize("lang, says", [("en", "The store failed"), ("ja", "ストアが故障しました")])
def test_a_store_that_raises_is_a_fault_with_its_own_status_and_its_folder_shown(lang, says):
    done = subprocess.run(
        [sys.executable, "-m", "lab", "stress", "--impl", str(FIXTURES / "fence_stored_as_text.py")]
        + ["--seconds", "1", "--seed", "1", "--lang", lang],
        cwd=LAB_ROOT,
        capture_output=True,
        text=True,
        timeout=HANGS_AFTER,
    )
    kept = next(word for word in done.stdout.split() if "lab-stress-" in word).rstrip(";.,。")
    shutil.rmtree(kept)
    assert done.returncode == ExitStatus.STORE_FAULT == 5
    assert says in done.stdout and "TypeError" in done.stdout and "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize("header, holds", [(bytes(8), False), (recovery.HOT_JOURNAL, True)])
def test_a_journal_left_behind_is_flagged_only_when_it_holds_a_transaction(tmp_path, header, holds):
    """A journal with a zeroed header (journal_mode=PERSIST, or a worker killed before it wrote
    one) holds nothing to undo; one that SQLite would still roll back is a violation."""
    journal = tmp_path / "jobs.db-journal"
    journal.write_bytes(header + bytes(504))
    assert recovery.holds_a_transaction(journal) is holds
    assert recovery.holds_a_transaction(tmp_path / "none-journal") is False
