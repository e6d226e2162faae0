"""The per-step cache of which steps an implementation passes (lab.mutation.passing): a re-run
checks again only the steps whose reachable code changed, and a step that starts failing is seen."""

import shutil

from lab import cache
from lab.model.implementation import assemble, read
from lab.model.mutants import SOLUTIONS_DIR
from lab.mutation import passing
from lab.running.runner import Result

RELEASE = "07-release/step.py"


def fake_run(calls, failing=()):
    """A stand-in for lab.running.runner.run: one result per step asked for, failed for `failing`."""
    def run(targets):
        (target,) = targets
        calls.append(target.steps)
        return [
            Result(f"check_{n}", f"check_{n}", target.id, n, [], "failed" if n in failing else "passed", "", 0.0)
            for n in target.steps
        ]
    return run


def steps_of(impl, store, monkeypatch, failing=()):
    calls = []
    monkeypatch.setattr(cache, "ROOT", store)
    monkeypatch.setattr(passing, "run", fake_run(calls, failing))
    source = assemble(read(impl, label="impl"))
    return passing.passing_steps(impl, "impl", source, lambda message: None), calls


def test_only_the_steps_that_reach_an_edited_function_run_again(tmp_path, monkeypatch):
    impl, store = tmp_path / "impl", tmp_path / "cache"
    shutil.copytree(SOLUTIONS_DIR, impl)
    assert steps_of(impl, store, monkeypatch) == ((1, 2, 3, 4, 5, 6, 7, 8), [(1, 2, 3, 4, 5, 6, 7, 8)])
    assert steps_of(impl, store, monkeypatch) == ((1, 2, 3, 4, 5, 6, 7, 8), [])

    path = impl / RELEASE
    path.write_text(path.read_text().replace("    return cursor.rowcount == 1", "    released = cursor.rowcount == 1\n    return released"))
    # release is reached by step 7's checks and by step 8's generated check, never by 1-6
    assert steps_of(impl, store, monkeypatch, failing=(7,)) == ((1, 2, 3, 4, 5, 6), [(7, 8)])
    # the failure is cached too, and so is every other step's pass
    assert steps_of(impl, store, monkeypatch) == ((1, 2, 3, 4, 5, 6), [])


def test_a_change_to_module_level_code_checks_every_step_again(tmp_path, monkeypatch):
    impl, store = tmp_path / "impl", tmp_path / "cache"
    shutil.copytree(SOLUTIONS_DIR, impl)
    steps_of(impl, store, monkeypatch)
    path = impl / RELEASE
    path.write_text("TIMEOUT = 5\n" + path.read_text())
    assert steps_of(impl, store, monkeypatch)[1] == [(1, 2, 3, 4, 5, 6, 7, 8)]
