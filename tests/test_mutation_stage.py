"""mutmut in the stage (lab.mutation.stage): it writes the mutants of a module once, and again
only when the module's text changes."""

from lab.model.implementation import assemble, read
from lab.model.mutants import SOLUTIONS_DIR
from lab.mutation import stage, variants

SOURCE = assemble(read(SOLUTIONS_DIR, label="solutions"))


def test_mutmut_writes_the_mutants_of_a_module_once_and_again_after_an_edit(tmp_path):
    stage.stage(SOURCE, tmp_path)
    first = stage.start_generating(tmp_path)
    assert first is not None
    mutated = stage.generated(first, tmp_path)
    assert variants.read_variants(mutated, stage.MODULE, SOURCE)

    stage.stage(SOURCE, tmp_path)  # the same text: nothing to start, the same mutants
    again = stage.start_generating(tmp_path)
    assert again is None and stage.generated(again, tmp_path) == mutated

    edited = SOURCE.replace("ttl must be positive", "ttl must be above 0", 1)
    stage.stage(edited, tmp_path)
    after_edit = stage.start_generating(tmp_path)
    assert after_edit is not None
    assert stage.generated(after_edit, tmp_path) != mutated
