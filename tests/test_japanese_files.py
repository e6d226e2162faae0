"""A learner who chose Japanese finds no English outside code in the files the lab writes for them
either (tests/test_japanese_output.py reads what the commands print and the mutation report):
steps/ANSWERS.md, the header of a new steps/equivalents.toml, the starter files once `make language
ja` has put their Japanese first (the part before the English that follows it), the bench's chart
and the class's chart (the SVG keeps each text it draws, beside its glyphs, as a comment; the PNG is
drawn from the same figure), bench.json, and the files `check` writes when asked (JSON=, JUNIT=,
EXERCISM=). In a JSON or XML file the names of fields are code, and so is a value of one word (a
status, a setting, a check's name): what is read as words is each value that has a space in it.
"""

import ast
import io
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from contextlib import redirect_stderr, redirect_stdout

from test_japanese_output import JAPANESE, WRONG, english_words

from field import bench
from lab import commands
from lab.grading import class_chart, class_view
from lab.learner import completion
from lab.model.course import LAB_ROOT, load_course
from lab.model.implementation import STEP_FILE
from lab.model.prediction_file import PREDICTION_FILE
from lab.model.prediction_template import prediction_template
from lab.model.pristine import write_stubs
from lab.text.messages import say

COURSE = load_course()


def drawn_texts(svg):
    """Every text a matplotlib SVG draws: the comments it keeps beside the glyphs."""
    return "\n".join(re.findall(r"<!-- (.*?) -->", svg.read_text(encoding="utf-8"), re.DOTALL))


def json_sentences(value):
    """The values of a JSON document that are read as words (those with a space), one a line."""
    if isinstance(value, dict):
        return "\n".join(json_sentences(item) for item in value.values())
    if isinstance(value, list):
        return "\n".join(json_sentences(item) for item in value)
    return value if isinstance(value, str) and re.search(r"\s", value) else ""


def xml_sentences(tree):
    """The attribute values and texts of an XML document that are read as words, one a line."""
    found = []
    for element in tree.iter():
        found += [value for value in element.attrib.values() if re.search(r"\s", value)]
        found += [element.text] if element.text and element.text.strip() else []
    return "\n".join(found)


def japanese_part(text):
    """A starter file's Japanese, which now comes first: the docstring's paragraphs up to the first
    English one, and each comment's or message's part before its ' / ' or its English line."""
    tree = ast.parse(text)
    function = next((node for node in tree.body if isinstance(node, ast.FunctionDef)), None)
    docstring = ast.get_docstring(tree) or ast.get_docstring(function)
    paragraphs = docstring.split("\n\n")
    first_english = next(i for i, paragraph in enumerate(paragraphs) if not JAPANESE.search(paragraph))
    lines = paragraphs[:first_english]
    comments = [line.strip() for line in text.splitlines() if line.strip().startswith("#")]
    # the first comment line, or the first half of the only one; TODO(step N) is the marker the lab looks for
    lines += [re.sub(r"^# TODO\(step \d+\):", "#", comments[0]).split(" / ")[0]]
    lines += [value.split(" / ")[0] for value in re.findall(r'NotImplementedError\("([^"]+)"\)', text)]
    return "\n".join(lines)


def test_the_answers_file_is_japanese(tmp_path):
    text = completion.ensure_answers_file(tmp_path, "ja").read_text(encoding="utf-8")
    assert JAPANESE.search(text) and not english_words(text), english_words(text)


def test_a_new_equivalents_ledger_starts_in_japanese():
    header = say("mutation.ledger_header", "ja")
    assert JAPANESE.search(header) and not english_words(header), english_words(header)


def test_the_starter_files_lead_with_japanese_once_it_is_chosen(tmp_path):
    steps = write_stubs(tmp_path / "steps")
    for step in COURSE:
        (steps / step.dir / PREDICTION_FILE).write_text(prediction_template(step), encoding="utf-8")
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        commands.main(["language", "ja"], root=tmp_path)
    found = {}
    for step in COURSE:
        for name in (STEP_FILE, PREDICTION_FILE):
            part = japanese_part((steps / step.dir / name).read_text(encoding="utf-8"))
            assert JAPANESE.search(part), (step.dir, name)
            if english_words(part):
                found[f"{step.dir}/{name}"] = english_words(part)
    assert not found, found


def test_the_bench_chart_and_the_class_chart_are_japanese(tmp_path):
    from test_bench_verdict import NEAR_ONE, _rows
    from test_class_glance import a_class

    bench.write(_rows(NEAR_ONE), "solutions", tmp_path, 0.05, lang="ja")  # a preview: its mark too
    outcome = a_class()
    class_chart.draw(class_view.mutants_caught(outcome), class_view.clauses_failed(outcome), 5, tmp_path, "ja")
    empty = tmp_path / "empty"
    empty.mkdir()
    class_chart.draw(None, [], 0, empty, "ja")  # predictions not run, no clause failed
    found = {}
    for svg in (tmp_path / "bench.svg", tmp_path / "class.svg", empty / "class.svg"):
        text = drawn_texts(svg)
        assert JAPANESE.search(text), svg
        if english_words(text):
            found[svg.name] = english_words(text)
    assert not found, found


def test_bench_json_is_japanese(tmp_path):
    from test_bench_verdict import NEAR_ONE, _rows

    bench.write(_rows(NEAR_ONE), "solutions", tmp_path, 0.05, lang="ja")
    text = json_sentences(json.loads((tmp_path / "bench.json").read_text(encoding="utf-8")))
    assert JAPANESE.search(text) and not english_words(text), english_words(text)


def test_the_json_junit_and_exercism_files_of_a_check_are_japanese(tmp_path):
    """A real run that fails some of step 3's checks: each check's name, each suite's, each message."""
    files = {option: tmp_path / f"results.{option}" for option in ("json", "junit", "exercism")}
    wrong = WRONG / "wrong_s3_missing_as_default_row.py"
    arguments = ["check", "3", "--impl", str(wrong), "--no-mutants", "--lang", "ja"]
    arguments += [part for option, path in files.items() for part in (f"--{option}", str(path))]
    done = subprocess.run(
        [sys.executable, "-m", "lab", *arguments], cwd=LAB_ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    texts = {
        "json": json_sentences(json.loads(files["json"].read_text(encoding="utf-8"))),
        "junit": xml_sentences(ET.parse(files["junit"])),
        "exercism": json_sentences(json.loads(files["exercism"].read_text(encoding="utf-8"))),
    }
    assert all(JAPANESE.search(text) for text in texts.values()), texts
    # the lab's own path (in a node id, as pytest escapes it too) is where the lab was cloned, not prose
    for path in (str(LAB_ROOT), str(LAB_ROOT).encode("ascii", "backslashreplace").decode()):
        texts = {name: text.replace(path, "") for name, text in texts.items()}
    found = {name: english_words(text) for name, text in texts.items() if english_words(text)}
    assert not found, found
