"""The stage (lab.mutation.stage): mutmut writes the mutants of a module once, and again
only when its text changes; the implementation is checked from a snapshot of its files."""

import shutil
from types import SimpleNamespace

import pytest

from lab.model.implementation import assemble, read
from lab.model.mutants import SOLUTIONS_DIR
from lab.model.results import MutantStatus
from lab.mutation import last_run, stage, variants

SOURCE = assemble(read(SOLUTIONS_DIR, label="solutions"))


def test_mutmut_writes_the_mutants_of_a_module_once_and_again_after_an_edit(tmp_path):
    stage.stage(SOURCE, tmp_path)
    with stage.generating(tmp_path) as first:
        assert first is not None
        mutated = stage.generated(first, tmp_path)
    assert variants.read_variants(mutated, stage.MODULE, SOURCE)

    stage.stage(SOURCE, tmp_path)  # the same text: nothing to start, the same mutants
    with stage.generating(tmp_path) as again:
        assert again is None and stage.generated(again, tmp_path) == mutated

    edited = SOURCE.replace("ttl must be positive", "ttl must be above 0", 1)
    stage.stage(edited, tmp_path)
    with stage.generating(tmp_path) as after_edit:
        assert after_edit is not None
        assert stage.generated(after_edit, tmp_path) != mutated


def test_mutmut_ends_with_the_report_that_gives_up_before_it_is_done(tmp_path):
    stage.stage(SOURCE, tmp_path)
    with pytest.raises(KeyboardInterrupt), stage.generating(tmp_path) as process:
        raise KeyboardInterrupt  # Ctrl-C while the implementation's checks run
    assert process.returncode is not None  # ended, not left writing in the stage
    with stage.generating(tmp_path) as process:  # what it had written is not taken as done
        assert process is not None
        stage.generated(process, tmp_path)


def test_the_snapshot_holds_the_text_the_keys_were_made_of_whatever_the_learner_saves_later(tmp_path):
    impl = tmp_path / "steps"
    shutil.copytree(SOLUTIONS_DIR, impl)
    (impl / "07-release" / "step.py").unlink()  # a step not written yet stays missing
    implementation = read(impl, label="steps")
    copy = stage.snapshot(implementation, tmp_path / "stage")
    renew = impl / "05-renew" / "step.py"
    renew.write_text(renew.read_text(encoding="utf-8").replace("until>?", "until>=?"), encoding="utf-8")
    assert assemble(read(copy, label="steps")) == assemble(implementation) != assemble(read(impl, label="steps"))
    assert not (copy / "07-release" / "step.py").exists()


def test_the_snapshot_of_one_file_is_one_file(tmp_path):
    single = tmp_path / "lease.py"
    single.write_text(SOURCE, encoding="utf-8")
    copy = stage.snapshot(read(single, label="lease.py"), tmp_path / "stage")
    assert copy.is_file() and assemble(read(copy, label="lease.py")) == SOURCE


def test_the_last_reports_findings_are_read_for_the_source_they_were_found_on_only(tmp_path):
    """What `make equivalent` reads (lab.mutation.last_run): each of mutmut's mutants' status and
    killers; nothing of a source other than the one the report ran on, or of a report never finished."""
    assert last_run.finding(tmp_path, SOURCE, "lease.x_claim__mutmut_1") is None  # no report yet
    found = [
        SimpleNamespace(
            id="lease.x_claim__mutmut_1", origin="mutmut", status=MutantStatus.KILLED, killed_by=["test_a"]
        ),
        SimpleNamespace(id="lease.x_claim__mutmut_2", origin="mutmut", status=MutantStatus.SURVIVED, killed_by=[]),
        SimpleNamespace(
            id="m4-expired-counts-as-live", origin="pre-built", status=MutantStatus.KILLED, killed_by=["t"]
        ),
    ]
    last_run.write(tmp_path, SOURCE, found)
    assert last_run.finding(tmp_path, SOURCE, "lease.x_claim__mutmut_1") == (MutantStatus.KILLED, ["test_a"])
    assert last_run.finding(tmp_path, SOURCE, "lease.x_claim__mutmut_2") == (MutantStatus.SURVIVED, [])
    assert last_run.finding(tmp_path, SOURCE, "m4-expired-counts-as-live") is None  # mutmut's only
    assert last_run.finding(tmp_path, SOURCE + "\n# edited\n", "lease.x_claim__mutmut_1") is None
