"""What a survivor is matched and shown with, without running anything: the kind of a change
(lab.mutation.kinds) against the ledger's reviewed entries, and the clauses of the code it changes
(lab.mutation.clauses) from the checks that catch its neighbours."""

from lab.model.results import MutantStatus
from lab.mutation import clauses, equivalents
from lab.mutation.kinds import kind_of
from lab.mutation.model import Mutant
from lab.mutation.variants import Variant
from lab.running.runner import Result

HELPER = """def _open(path):
    con = sqlite3.connect(path, timeout=30.0, isolation_level=None)
    return con"""
POOL = """def claim_many(path, job_id, owners, now, ttl):
    with ThreadPoolExecutor(max_workers=min(32, max(2, len(owners)))) as pool:
        return list(pool.map(lambda owner: claim(path, job_id, owner, now, ttl), owners))"""


def variant(original, old, new, function):
    assert old in original
    return Variant(f"lease.x_{function}__mutmut_1", function, 1, original, original.replace(old, new))


def test_the_same_change_to_the_same_construct_is_one_kind_however_the_code_is_laid_out():
    reviewed = kind_of(
        "with closing(sqlite3.connect(path, isolation_level=None)) as conn:",
        "with closing(sqlite3.connect(path, )) as conn:",
    )
    restyled = variant(HELPER, "isolation_level=None)", ")", "_open")
    assert reviewed is not None and kind_of(restyled.original, restyled.mutated) == reviewed
    other_argument = variant(HELPER, "timeout=30.0, ", "", "_open")
    assert kind_of(other_argument.original, other_argument.mutated) != reviewed


def test_a_constant_changed_in_another_construct_is_another_kind():
    reviewed = kind_of(
        "with ThreadPoolExecutor(max_workers=len(owners) or 1) as pool:",
        "with ThreadPoolExecutor(max_workers=len(owners) or 2) as pool:",
    )
    same = kind_of(
        "with ThreadPoolExecutor(max_workers=(len(owners) or 1)) as pool:",
        "with ThreadPoolExecutor(max_workers=(len(owners) or 2)) as pool:",
    )
    other = kind_of(
        "with ThreadPoolExecutor(max_workers=max(1, len(owners))) as pool:",
        "with ThreadPoolExecutor(max_workers=max(2, len(owners))) as pool:",
    )
    assert same == reviewed and other != reviewed
    assert kind_of("if row[0] > now:", "if row[0] >= now:") != kind_of("if row[0] > now:", "if row[0] < now:")


def test_the_labs_ledger_excuses_a_restyled_survivor_by_kind_but_not_by_text():
    ledger = equivalents.Ledger()
    pool = variant(POOL, "max_workers=min(32, max(2, len(owners)))", "max_workers=None", "claim_many")
    connect = variant(HELPER, "isolation_level=None)", ")", "_open")
    assert ledger.match(pool) is None and ledger.match(connect) is None  # not the reference's lines
    excused = ledger.by_kind(pool)
    assert excused.by_kind and "max_workers=None" in excused.id and excused.reason
    assert "isolation_level=None" in ledger.by_kind(connect).id
    assert ledger.by_kind(variant(HELPER, "timeout=30.0", "timeout=31.0", "_open")) is None


def test_the_sql_letter_case_rule_covers_a_learners_pragma_and_isolation_level():
    ledger = equivalents.Ledger()
    text = 'def _open(path):\n    con = sqlite3.connect(path, isolation_level="IMMEDIATE")\n    con.execute("PRAGMA journal_mode=WAL")\n    return con'
    assert ledger.match(variant(text, '"IMMEDIATE"', '"immediate"', "_open")).id == "sql-letter-case"
    assert (
        ledger.match(variant(text, '"PRAGMA journal_mode=WAL"', '"pragma journal_mode=wal"', "_open")).id
        == "sql-letter-case"
    )
    assert ledger.match(variant(text, '"IMMEDIATE"', '"XXIMMEDIATEXX"', "_open")) is None


def mutant(mutant_id, line, status):
    return Mutant(mutant_id, "mutmut", 4, "claim", status, "", "steps/04-claim/step.py", (line, 1, line, 10), "")


def failed(mutant_id, *clause_lists):
    return [Result(f"n{i}", f"c{i}", mutant_id, 4, list(c), "failed", "", 0.0) for i, c in enumerate(clause_lists)]


def test_a_survivor_gets_the_clauses_that_catch_its_nearest_neighbours_the_most_specific_first():
    survivor, same_line, everything, far = (
        mutant("s", 12, MutantStatus.SURVIVED),
        mutant("a", 12, MutantStatus.KILLED),
        mutant("b", 12, MutantStatus.KILLED),
        mutant("c", 20, MutantStatus.KILLED),
    )
    results = {
        "a": failed(
            "a", ["C4.5"], ["C2.1", "C4.5", "C4.6"], ["C2.1"]
        ),  # the checks of fewest clauses of the step speak
        "b": failed("b", ["C4.1"], ["C4.2"], ["C4.5"], ["C4.6"]),  # connect(None): every check fails
        "c": failed("c", ["C4.3"]),
    }
    clauses.survivors_clauses([survivor, same_line, everything, far], results)
    assert survivor.clauses == ["C4.5"]
    lonely = mutant("t", 30, MutantStatus.SURVIVED)
    assert clauses.clauses_near(lonely, [far], results) == ["C4.3"]  # the nearest line of the function
    assert clauses.clauses_near(lonely, [], results) == []
