"""The course hangs together: manifest, step folders, contracts, stubs, mutants and checks agree."""

import ast
import re
from dataclasses import replace

import pytest

from lab.dev import readme
from lab.model.course import LAB_ROOT, load_course, step_of_clause
from lab.model.implementation import STEP_FILE, Implementation, read
from lab.model.mutants import SOLUTIONS_DIR, MutantError, apply, load_mutants
from lab.model.pristine import stub_text
from lab.text.language import LANGUAGES
from lab.text.messages import say

COURSE = load_course()
MUTANTS = load_mutants()


def test_the_manifest_lists_the_steps_in_the_folders_order():
    assert [s.dir for s in COURSE] == sorted(p.name for p in (LAB_ROOT / "steps").iterdir() if p.is_dir())
    assert [s.dir for s in COURSE] == sorted(p.name for p in (LAB_ROOT / "solutions").iterdir() if p.is_dir())
    for step in COURSE:
        assert step.dir.startswith(f"{step.number:02d}-"), step.dir


@pytest.mark.parametrize("step", COURSE, ids=lambda s: s.dir)
def test_every_step_has_titles_in_both_languages(step):
    for lang in LANGUAGES:
        assert step.title[lang].strip() and step.builds[lang].strip()


@pytest.mark.parametrize("step", COURSE, ids=lambda s: s.dir)
def test_every_clause_of_every_step_has_one_to_three_questions_in_both_languages(step):
    assert list(step.hints) == list(step.clauses())  # one entry per clause, in the contract's order
    for clause in step.clauses():
        english, japanese = step.questions(clause, "en"), step.questions(clause, "ja")
        assert 1 <= len(english) == len(japanese) <= 3, clause
        assert all(question.endswith("?") for question in english), english
        assert all(question.endswith(("か。", "ょう。")) for question in japanese), japanese
        # Japanese punctuation: a comma or a full stop in Latin letters only inside code
        assert not [q for q in japanese if re.search(r"[,.] ", re.sub(r"`[^`]*`", "", q))], japanese


@pytest.mark.parametrize("step", COURSE, ids=lambda s: s.dir)
def test_every_contract_numbers_its_clauses_and_both_languages_agree(step):
    english, japanese = step.clauses("en"), step.clauses("ja")
    assert list(english) == list(japanese)
    assert list(english) == [f"C{step.number}.{n}" for n in range(1, len(english) + 1)]
    for lang in LANGUAGES:
        text = step.contract_path(lang).read_text(encoding="utf-8")
        assert f"`{step.function}`" in text.splitlines()[0]
        assert step.snippet in text


@pytest.mark.parametrize("step", COURSE, ids=lambda s: s.dir)
def test_every_stub_has_the_reference_signature_a_todo_and_raises_not_implemented(step):
    stub = stub_text(step)
    reference = (LAB_ROOT / "solutions" / step.dir / STEP_FILE).read_text(encoding="utf-8")
    assert _signature(stub, step.function) == _signature(reference, step.function)
    assert f"TODO(step {step.number})" in stub
    assert "raise NotImplementedError" in stub
    assert ast.get_docstring(_function(stub, step.function))


@pytest.mark.parametrize("step", COURSE, ids=lambda s: s.dir)
def test_every_stub_points_to_both_contracts_and_all_its_clauses(step):
    docstring = ast.get_docstring(_function(stub_text(step), step.function))
    clauses = list(step.clauses())
    span = f"({clauses[0]}-{clauses[-1]})"
    assert f"CONTRACT.md {span}" in docstring and f"CONTRACT.ja.md {span}" in docstring


def _function(source, name):
    return next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef) and n.name == name)


def _signature(source, name):
    return ast.dump(_function(source, name).args)


@pytest.mark.parametrize("step", COURSE, ids=lambda s: s.dir)
def test_every_step_has_at_least_three_mutants_one_of_them_the_worksheet_snippet(step):
    own = [m for m in MUTANTS if m.step == step.number]
    assert len(own) >= 3
    quoted = [m for m in own if m.worksheet]
    assert len(quoted) == 1 and step.snippet in quoted[0].replace


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.id)
def test_every_mutant_applies_once_and_names_its_clause_checks_and_reasons(mutant):
    assert mutant.id.startswith(f"m{mutant.step}-")
    mutated = apply(mutant)  # raises unless the text occurs exactly once
    assert mutant.replace in mutated.file_for(mutant.edits_step).text and mutant.find != mutant.replace
    assert step_of_clause(mutant.clause) == mutant.step
    assert mutant.clause in COURSE[mutant.step - 1].clauses("en")
    assert mutant.caught_by
    assert all(mutant.why[lang].strip() for lang in LANGUAGES)
    checks_of_step = _check_names(mutant.step)
    assert set(mutant.caught_by) <= checks_of_step, set(mutant.caught_by) - checks_of_step


def test_a_mutant_of_a_reference_file_that_is_missing_does_not_apply():
    """The lab is broken, and says so (MutantError: exit status 3), never with a traceback."""
    mutant, reference = MUTANTS[0], read(SOLUTIONS_DIR, label="solutions")
    files = tuple(replace(f, text=None) if mutant.edits_step in f.steps else f for f in reference.files)
    with pytest.raises(MutantError, match="occurs 0 times"):
        apply(mutant, Implementation("solutions", files))


def _check_names(step_number):
    names = set()
    for path in (LAB_ROOT / "checks").glob("test_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                clauses = re.findall(r"C(\d+)\.\d+", ast.unparse(node.decorator_list))
                if clauses and max(int(c) for c in clauses) == step_number:
                    names.add(node.name)
    return names


def test_the_readme_starts_with_the_two_commands():
    readme = (LAB_ROOT / "README.md").read_text(encoding="utf-8")
    # after the line that settles the reader's language (tests/test_readme_languages.py)
    typed = re.findall(r"^\s*(make [\w-]+(?: \d)?)", readme, re.MULTILINE)
    assert [c for c in typed if not c.startswith("make language")][:2] == ["make check-step 1", "make test"]
    assert typed[0] == "make language"


def test_the_readmes_step_tables_and_the_guides_progress_lines_are_made_from_the_manifest():
    readme_text = (LAB_ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| `steps/([\w-]+)/` \| `(\w+)\(", readme_text, re.MULTILINE)
    assert rows == [(str(s.number), s.dir, s.function) for s in COURSE] * 2  # the English part, then the Japanese one
    for lang, guide in (("en", "learner.md"), ("ja", "learner.ja.md")):  # where the progress transcripts are
        heading = say("learner.progress_heading", lang, count=len(COURSE), steps=f"3/{len(COURSE)}")
        assert f"\n    {heading}\n" in (LAB_ROOT / "docs" / guide).read_text(encoding="utf-8"), guide
    for path in readme.documents(LAB_ROOT):
        text = path.read_text(encoding="utf-8")
        assert readme.made(text, COURSE) == text, readme.problems(LAB_ROOT, COURSE)
