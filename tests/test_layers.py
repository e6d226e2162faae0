"""lab/ keeps its layers: the import contracts in pyproject.toml ([tool.importlinter]) hold, its
rooms stay small, course code reaches it through lab/api.py only, and it names no function of the
course."""

import ast
import subprocess
import sys
from pathlib import Path

import grimp
from hang import HANGS_AFTER

from lab.model.course import load_course

LAB_ROOT = Path(__file__).resolve().parent.parent


def test_every_import_contract_is_kept():
    linter = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(linter), "--no-cache"], cwd=LAB_ROOT, capture_output=True, text=True, timeout=HANGS_AFTER
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "Contracts: 3 kept, 0 broken." in done.stdout


def test_no_module_of_the_engine_or_the_field_is_over_400_lines():
    """Rooms of one job: a module that grows past this is split by role (as classroom.py was into
    classroom, class_table, class_view and class_outputs)."""
    lengths = {
        str(p.relative_to(LAB_ROOT)): len(p.read_text(encoding="utf-8").splitlines())
        for package in ("lab", "field")
        for p in (LAB_ROOT / package).rglob("*.py")
    }
    assert lengths and not {path: n for path, n in lengths.items() if n > 400}


COURSE_CODE = LAB_ROOT / "checks"
# Attributes and strings of the engine that are ordinary words, spelled like a function of the
# course: a result's or a prediction's `.complete` (and the catalogue's key "complete"), a
# semaphore's `.release`, and the "state" lines Hypothesis adds to an error's notes.
ENGINE_WORDS = {"complete", "release", "state"}


def _imports(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def test_course_code_reaches_the_engine_only_through_lab_api():
    reached = {
        (path.name, module)
        for path in COURSE_CODE.glob("*.py")
        for module in _imports(path)
        if module.split(".")[0] == "lab" and module != "lab.api"
    }
    assert not reached, reached


def _names_of_course_functions(path, functions):
    """Where a module of the engine reaches a function of the course: an attribute of that name
    (`module.claim`), or a string that is exactly its name (`getattr(module, "claim")`), docstrings
    aside."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in functions:
            yield node.lineno, node.attr
        elif isinstance(node, ast.Constant) and node.value in functions and id(node) not in docstrings:
            yield node.lineno, node.value


def test_the_engine_names_no_function_of_the_course():
    """What a step needs of the sandbox (claim_many's checks watch claim) is asked for by the
    course, by name: the engine's code holds no course function's name."""
    functions = {step.function for step in load_course()} - ENGINE_WORDS
    found = {
        (str(path.relative_to(LAB_ROOT)), line, name)
        for path in (LAB_ROOT / "lab").rglob("*.py")
        for line, name in _names_of_course_functions(path, functions)
    }
    assert functions and not found, found


def test_no_module_is_reached_back_by_a_module_it_imports():
    """The house drawn from the imports has no circle: for every import of lab/ and field/, lazy
    ones inside functions included, the imported module reaches the importer by no chain. Imports
    for the type checker alone (under TYPE_CHECKING) never run, and are left out."""
    graph = grimp.build_graph("lab", "field", exclude_type_checking_imports=True)
    circles = {
        (importer, imported)
        for importer in graph.modules
        for imported in graph.find_modules_directly_imported_by(importer)
        if graph.find_shortest_chain(importer=imported, imported=importer)
    }
    assert not circles, sorted(circles)
