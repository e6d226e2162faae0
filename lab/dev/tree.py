"""The course manifest against the files of the tree, read without running anything.

Each function returns the problems it finds, one sentence each; none means the tree is what
course.toml says: every step's files (its checks' own rules written: lab/dev/rules.py; a correct
and a wrong independent implementation: lab/dev/independent.py), the
reference's signature, the prediction templates, README's step tables, the guides' progress lines
and the Classroom workflow made from the manifest, every check weighed in checks/durations.toml, a
check for every clause and a mutant for every clause or a reason why not, and questions for every
clause in every language.
"""

import ast
import re

from lab.dev import independent, readme, rules
from lab.dev.generated import workflow_file
from lab.grading import autograding
from lab.model import checks
from lab.model.course import LAB_ROOT, load_course
from lab.model.implementation import STEP_FILE
from lab.model.prediction_file import PREDICTION_FILE
from lab.model.prediction_template import prediction_template
from lab.model.starter import swapped
from lab.text.language import LANGUAGES

STEP_FILES = (STEP_FILE, PREDICTION_FILE, "CONTRACT.md", "CONTRACT.ja.md")
CLAUSE_ID = re.compile(r"[\"'](C\d+\.\d+)[\"']")
MUTANT_CLAUSE = re.compile(r"^clause\s*=\s*\"(C\d+\.\d+)\"", re.MULTILINE)


def problems(root=LAB_ROOT):
    """Every problem of the tree at root, in the order a reader would fix them."""
    course = load_course(root)
    return [
        *files(course, root),
        *signatures(course, root),
        *templates(course, root),
        *readme.problems(root, course),
        *workflow(course, root),
        *durations(course, root),
        *clauses(course, root),
        *hints(course, root),
    ]


def files(course, root):
    found = []
    for step in course:
        if not step.dir.startswith(f"{step.number:02d}-"):
            found.append(f"step {step.number}: its folder {step.dir} does not start with {step.number:02d}-")
        found += [
            f"step {step.number}: no steps/{step.dir}/{name}"
            for name in STEP_FILES
            if not (root / "steps" / step.dir / name).is_file()
        ]
        if not (root / "solutions" / step.dir / STEP_FILE).is_file():
            found.append(f"step {step.number}: no solutions/{step.dir}/{STEP_FILE}")
        if not list((root / "checks").glob(f"test_{step.number:02d}_*.py")):
            found.append(f"step {step.number}: no checks/test_{step.number:02d}_*.py")
        found += rules.problems(root, step)
        if not _mutant_clauses(root, step.number):
            found.append(f"step {step.number}: no mutants/m{step.number}-*.toml")
    found += independent.problems(root, course)
    listed = {step.dir for step in course}
    for folder in ("steps", "solutions"):
        found += [
            f"{folder}/{p.name}: a step folder course.toml does not list"
            for p in sorted((root / folder).glob("[0-9][0-9]-*"))
            if p.name not in listed
        ]
    return found


def signatures(course, root):
    """The reference's and the stub's def of each step's function take course.toml's parameters."""
    found = []
    for step in course:
        for folder in ("solutions", "steps"):
            path = root / folder / step.dir / STEP_FILE
            if path.is_file() and _parameters(path.read_text(encoding="utf-8"), step.function) != step.parameters:
                found.append(
                    f"{folder}/{step.dir}/{STEP_FILE}: {step.function} does not take ({', '.join(step.parameters)}) as course.toml says"
                )
    return found


def templates(course, root):
    """Every prediction.py as shipped is the one made from course.toml, byte for byte (led by
    either language: `make language` may have put Japanese first)."""
    found = []
    for step in course:
        path = root / "steps" / step.dir / PREDICTION_FILE
        made = prediction_template(step, course)
        if path.is_file() and _shipped_prediction(step, path, root) not in (made, swapped(made)):
            found.append(
                f"steps/{step.dir}/{PREDICTION_FILE}: not the template made from course.toml (python -m lab dev update writes it)"
            )
    return found


def workflow(course, root):
    """GitHub Classroom's workflow, where the tree has one, is the one made from course.toml."""
    path = workflow_file(root)
    if path.is_file() and path.read_text(encoding="utf-8") != autograding.workflow(course):
        shown = path.relative_to(root).as_posix()
        return [f"{shown}: not the one course.toml makes (python -m lab dev update writes it)"]
    return []


def durations(course, root):
    """checks/durations.toml weighs every check of every step and names no other. The checks are
    those of the lab's own tree (lab.model.checks reads them): dev check runs on it."""
    if root != LAB_ROOT:
        return []
    listed = checks.durations()
    found = []
    for step in course:
        weighed = {name for number, name in listed if number == step.number}
        if weighed != set(checks.checks_of(step.number)):
            found.append(
                f"step {step.number}: checks/durations.toml does not weigh its checks as they are (python -m lab dev durations writes it)"
            )
    return found


def clauses(course, root):
    """Every clause of every contract is named by a check, and broken by a mutant or says why not."""
    found = []
    checked = {
        c for path in (root / "checks").glob("test_*.py") for c in CLAUSE_ID.findall(path.read_text(encoding="utf-8"))
    }
    for step in course:
        mutated = _mutant_clauses(root, step.number)
        for clause in step.clauses("en", root):
            if clause not in checked:
                found.append(f"{clause}: no check names it (@pytest.mark.clause)")
            if clause not in mutated and clause not in step.unmutated:
                found.append(f"{clause}: no mutant breaks it, and course.toml's unmutated does not say why")
            if clause in mutated and clause in step.unmutated:
                found.append(f"{clause}: course.toml says no mutant breaks it, but mutants/ has one")
    return found


def hints(course, root):
    """Every clause has its questions in every language, and course.toml asks about no other clause."""
    found = []
    for step in course:
        contract = step.clauses("en", root)
        for clause in contract:
            missing = [lang for lang in LANGUAGES if not step.questions(clause, lang)]
            if missing:
                found.append(f'{clause}: no hint in course.toml\'s hints."{clause}" for {", ".join(missing)}')
        found += [
            f'hints."{clause}": course.toml asks about a clause that steps/{step.dir}/CONTRACT.md does not have'
            for clause in step.hints
            if clause not in contract
        ]
    return found


def _mutant_clauses(root, number):
    return {
        c
        for path in (root / "mutants").glob(f"m{number}-*.toml")
        for c in MUTANT_CLAUSE.findall(path.read_text(encoding="utf-8"))
    }


def _parameters(source, name):
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    found = next((node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == name), None)
    return tuple(arg.arg for arg in found.args.args) if found else None


def _shipped_prediction(step, path, root):
    """The lab's own steps/ may hold the learner's prediction: git keeps the one shipped."""
    if root == LAB_ROOT:
        from lab.model.pristine import prediction_text

        return prediction_text(step)
    return path.read_text(encoding="utf-8")
