"""Nothing one learner hands in stops, taints or fools a class run.

Every entry gets a row and the run always writes its outputs, whatever the entry is (an odd zip,
a name in any encoding or length, a half-finished step); git metadata is read with a learner
file's protections; every learner string is inert where it lands (lab/text/inert.py): the
terminal, class.md, the feedback pages, the CSV files, the JUnit XML; and the outputs are moved
into place whole.
"""

import bz2
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from learner_folders import fingerprint, make_learner
from markdown_it import MarkdownIt

from lab import cache
from lab.grading import (
    class_outputs,
    class_table,
    classroom,
    feedback,
    git_checkout,
    similarity,
    submission,
    unpack,
    unwrapping,
)
from lab.model.course import LAB_ROOT
from lab.model.results import CheckStatus, Result
from lab.running import prediction_host
from lab.sandbox import confinement
from lab.text import inert

# Strings a learner can put in a name or an exception's message, each aimed at one place.
NASTY = [
    "\x1b[2K\rada: credit 8/8",  # a terminal escape that rewrites the line
    "\u202e8/8 tiderc",  # a right-to-left override
    "![x](http://example.com/i.png)",  # a remote image
    "[click](http://example.com)",  # a link
    "<img src=http://example.com/i.png>",  # HTML
    "**Credit: 8 of 8**",  # emphasis
    "a\n# Credit: 8 of 8",  # a heading on a line of its own
    "a | b | c",  # table cells
    '=HYPERLINK("http://example.com","8")',  # a spreadsheet formula
    "+1",
    "-1+1",
    "@SUM(A1)",
    "\tx",
    "\rx",
    "```\n# out of the fence",  # a code fence closed early
    "\x00\x07\x08\x0b\x0c\x7f\x85",  # controls XML cannot hold
    "\udc82\udca0",  # Shift-JIS bytes read as a file name (surrogate escapes)
    "\ud800",  # a lone surrogate
    "ada\u200b",  # a zero-width space: another learner's look-alike
    "www.example.com https://example.com/x help@example.com",  # what GitHub links by itself
]


@pytest.mark.parametrize("text", NASTY)
def test_every_nasty_string_is_inert_in_every_place(text):
    shown = inert.terminal(text)
    assert not any(ch in shown for ch in "\x1b\r\n\u202e\x00\x07") and shown.isprintable() or not shown
    markdown = inert.markdown(text)
    assert "\n" not in markdown
    bare = markdown.replace("`@`", "@")  # an at sign is set as code, so that no address links
    assert all(bare[i - 1] == "\\" for i, ch in enumerate(bare) if ch in "*_[]<>|`#!" and i > 0)
    cell = inert.csv_cell(text)
    assert not cell.startswith(("=", "+", "-", "@", "\t", "\r"))
    ET.fromstring(f"<a>{inert.xml(text).replace('&', '&amp;').replace('<', '&lt;')}</a>")  # parses
    for place in (shown, markdown, cell, inert.xml(text)):
        place.encode("utf-8")  # every place can be written as UTF-8


def test_xml_text_holds_only_what_xml_allows_and_keeps_the_rest_as_it_is():
    """XML 1.0's Char production: tab, line feed, carriage return, U+0020-U+D7FF, U+E000-U+FFFD and
    U+10000-U+10FFFF; every code point is tried."""

    def allowed(ch):
        return ch in "\t\n\r" or "\x20" <= ch <= "\ud7ff" or "\ue000" <= ch <= "\ufffd" or ch >= "\U00010000"

    every = "".join(map(chr, range(0x110000)))
    left_in = sorted({hex(ord(ch)) for ch in inert.xml(every) if not allowed(ch)})
    assert not left_in, f"characters XML cannot hold, left in: {left_in[:20]}"
    plain = "".join(ch for ch in inert.visible(every, keep="\n\t") if allowed(ch))
    shown = inert.xml(plain)
    taken_out = sorted({hex(ord(ch)) for ch in set(plain) - set(shown)})
    kept_whole = shown == plain  # not compared in the assert: pytest would diff a million characters
    assert len(plain) > 0x100000 and kept_whole, f"characters XML holds, taken out: {taken_out[:20]}"


def test_a_code_block_holds_any_text_as_it_is():
    text = "got: ```\n# heading\n````"
    block = inert.code_block(text)
    fence = block.splitlines()[0]
    assert set(fence) == {"`"} and fence not in text and block.endswith("\n" + fence)


@given(st.text(max_size=300), st.text(max_size=300))
@settings(derandomize=True, max_examples=200, database=None)
def test_a_learners_file_name_is_short_visible_and_never_another_learners(first, second):
    for name in (first, second):
        made = inert.file_name(name)
        assert "/" not in made and len(made.encode("utf-8")) <= 200 and made == inert.visible(made)
    if first != second:
        assert inert.file_name(first) != inert.file_name(second)


def _zip_with(path, members, bytes_for_xy=None):
    """A zip of (name, data) members; bytes_for_xy: bytes put where "XY" stands in the names, in
    place, with the UTF-8 flag set on every member, so that the names need not be UTF-8 at all."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
    if bytes_for_xy:
        raw = bytearray(path.read_bytes().replace(b"XY", bytes_for_xy))
        for signature, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # local and central headers
            at = raw.find(signature)
            while at != -1:
                raw[at + flags_at + 1] |= 0x08  # bit 11 of the little-endian flags: names are UTF-8
                at = raw.find(signature, at + 4)
        path.write_bytes(bytes(raw))


def _corrupt_stream(path):
    """A member whose deflate stream starts with a block of the reserved type: zlib refuses it."""
    _zip_with(path, [("steps/01-init-db/step.py", "x = 1\n" * 2000)])
    raw = bytearray(path.read_bytes())
    size, name, extra = (int.from_bytes(raw[at : at + n], "little") for at, n in ((18, 4), (26, 2), (28, 2)))
    start = 30 + name + extra
    raw[start : start + size] = b"\xff" * size
    path.write_bytes(bytes(raw))


ODD_ZIPS = {
    "a name not in UTF-8 under the UTF-8 flag": lambda p: _zip_with(p, [("steps/XY.py", "x")], b"\x83\x65"),
    "a corrupt deflate stream": _corrupt_stream,
    "a file, then a folder of the same name": lambda p: _zip_with(p, [("steps", "x"), ("steps/", "")]),
    "a folder with a 300-character name": lambda p: _zip_with(p, [("d" * 300 + "/", ""), ("d" * 300 + "/f", "x")]),
    "more members than any submission": lambda p: _zip_with(p, [(f"f{i}", "") for i in range(unpack.MAX_MEMBERS + 1)]),
    "no zip at all": lambda p: p.write_bytes(b"PK\x03\x04 not really"),
}


@pytest.mark.parametrize("kind", ODD_ZIPS)
def test_an_odd_zip_is_refused_with_a_reason_never_an_error(tmp_path, kind):
    path = tmp_path / "odd.zip"
    ODD_ZIPS[kind](path)
    (tmp_path / "work").mkdir()
    with pytest.raises(unpack.Refused) as refused:
        unpack.unpack(path, tmp_path / "work")
    assert refused.value.args[0].startswith("zip_")


def test_a_zip_whose_end_record_states_too_many_members_is_refused_before_its_list_is_read(tmp_path, monkeypatch):
    path = tmp_path / "many.zip"
    _zip_with(path, [(f"f{i}", "") for i in range(unpack.MAX_MEMBERS + 1)])
    monkeypatch.setattr(zipfile.ZipFile, "_RealGetContents", lambda self: pytest.fail("the list was read"))
    (tmp_path / "work").mkdir()
    with pytest.raises(unpack.Refused, match="zip_too_many"):
        unpack.unpack(path, tmp_path / "work")


COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _git(folder, head, **files):
    git = folder / ".git"
    git.mkdir(parents=True)
    if head == "fifo":
        os.mkfifo(git / "HEAD")
    elif head is not None:
        (git / "HEAD").write_text(head)
    for relative, text in files.items():
        (git / relative).parent.mkdir(parents=True, exist_ok=True)
        (git / relative).write_text(text)
    return folder


@pytest.mark.parametrize(
    ("head", "files", "expected"),
    [
        (COMMIT + "\n", {}, COMMIT),
        ("ref: refs/heads/main\n", {"refs/heads/main": COMMIT + "\n"}, COMMIT),
        ("ref: refs/heads/main\n", {"packed-refs": f"# pack-refs\n{COMMIT} refs/heads/main\n"}, COMMIT),
        ("fifo", {}, ""),  # waited for, it would hang the class run
        ("ref: /etc/hostname\n", {}, ""),  # a file of the grading machine
        ("ref: refs/../../../../etc/hostname\n", {}, ""),
        ('=HYPERLINK("http://example.com")\n', {}, ""),  # not a commit id
        ("ref: refs/heads/main\n", {"refs/heads/main": "\x1b[31m pwned\n"}, ""),
    ],
)
def test_the_commit_column_holds_a_commit_id_read_inside_the_checkout_or_nothing(tmp_path, head, files, expected):
    folder = _git(tmp_path / "learner", head, **{k.replace("/", os.sep): v for k, v in files.items()})
    began = time.monotonic()
    assert git_checkout.commit_of(folder) == expected
    assert time.monotonic() - began < 5


def test_a_linked_ref_is_not_followed(tmp_path):
    folder = _git(tmp_path / "learner", "ref: refs/heads/main\n")
    (folder / ".git" / "refs").mkdir()
    (folder / ".git" / "refs" / "heads").symlink_to("/etc")
    assert git_checkout.commit_of(folder) == ""


def test_an_entry_that_fails_to_be_read_is_a_row_of_its_own(tmp_path, monkeypatch):
    for name in ("ada", "ben", "cho"):
        make_learner(tmp_path / name, "stubs", checkout=False)
    located = submission._located

    def failing(found, folder, *args):
        if found.name == "ben":
            raise StopIteration  # any exception at all
        return located(found, folder, *args)

    monkeypatch.setattr(submission, "_located", failing)
    found = submission.find_submissions(tmp_path)
    assert [s.name for s in found] == ["ada", "ben", "cho"]
    assert found[1].problem == "class.entry_failed" and found[0].impl and found[2].impl


def test_a_step_half_not_implemented_and_half_passing_reads_not_implemented():
    results = [
        Result("a", "a", "t", 4, ["C4.1"], CheckStatus.PASSED, "", 0.0),
        Result("b", "b", "t", 4, ["C4.2"], CheckStatus.NOT_IMPLEMENTED, "not implemented yet", 0.0),
    ]
    assert class_table.cell(results) == "not implemented"


def test_the_outputs_are_put_in_place_whole_and_an_old_learners_files_go(tmp_path):
    out, run = tmp_path / "out", tmp_path / "out" / "runs" / "now"
    (out / "learners").mkdir(parents=True)
    (out / "learners" / "gone.json").write_text("{}")
    (out / "grades.csv").write_text("old")
    (run / "learners").mkdir(parents=True)
    (run / "learners" / "ada.json").write_text("{}")
    (run / "grades.csv").write_text("new")
    (out / ".grades.csv.new").write_text("left by a run stopped half-way")
    class_outputs._publish(run, out)
    assert (out / "grades.csv").read_text() == "new"
    assert sorted(p.name for p in (out / "learners").iterdir()) == ["ada.json"]
    assert not [p for p in out.iterdir() if p.name.endswith((".new", ".old"))]


# --- one real class run of odd entries beside honest controls --------------------------------


def _half_finished(folder):
    """An honest, half-finished step 4: its ttl branch raises NotImplementedError, the rest passes."""
    steps = make_learner(folder, "complete", checkout=False)
    file = steps / "04-claim" / "step.py"
    text = file.read_text()
    head, _, rest = text.partition("def claim(")
    body = rest.split("\n", 1)
    file.write_text(head + "def claim(" + body[0] + "\n    if ttl <= 0:\n        raise NotImplementedError\n" + body[1])


@pytest.fixture(scope="module")
def odd_class(tmp_path_factory):
    if not confinement.available():
        pytest.fail("bubblewrap is needed to grade a class (make test installs it through .ci/run)")
    root = tmp_path_factory.mktemp("odd-class")
    make_learner(root / "control", "stubs", checkout=False)  # honest, never started
    _half_finished(root / "half")
    names = {
        "escape": "esc\x1b[2K\r0 credit 8 of 8",
        "formula": '=HYPERLINK("http://example.com","8")',
        "markdown": "![x](http:⁄⁄example.com⁄i.png) **Credit 8 of 8**",
        "long": "ł" * 126,  # 252 bytes of UTF-8
        "sjis": os.fsdecode(b"\x83\x65\x83\x58\x83\x67"),  # テスト in Shift-JIS
    }
    for name in names.values():
        make_learner(root / name, "stubs", checkout=False)
    fifo = make_learner(root / "fifo", "stubs", checkout=True).parent
    _git(fifo, "fifo")
    outside = make_learner(root / "outside", "stubs", checkout=True).parent
    _git(outside, "ref: /etc/hostname\n")
    for kind, make in ODD_ZIPS.items():
        if kind != "more members than any submission":
            make(root / (kind.replace(" ", "-")[:40] + ".zip"))
    before = fingerprint(root)
    out = tmp_path_factory.mktemp("out")
    (out / "grades.csv").write_text("an earlier run's gradebook")
    arguments = ["class", str(root), "--out", str(out), "--no-mutants", "--regrade-all", "--time-limit", "10"]
    done = subprocess.run([sys.executable, "-m", "lab", *arguments], cwd=LAB_ROOT, capture_output=True, timeout=900)
    entries = sorted(p.name for p in root.iterdir() if not p.name.startswith("."))
    return done, out, entries, before, fingerprint(root)


@pytest.mark.long
def test_a_class_of_odd_entries_finishes_with_a_row_for_each(odd_class):
    done, out, entries, before, after = odd_class
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-2000:]
    assert b"Traceback" not in done.stderr
    rows = list(csv.reader((out / "class.csv").open(encoding="utf-8-sig")))[1:]
    assert len(rows) == len(entries)
    assert (out / "grades.csv").read_text(encoding="utf-8-sig") != "an earlier run's gradebook"
    assert before == after  # nothing the learners handed in was changed


@pytest.mark.long
def test_the_half_finished_step_reads_not_implemented_and_the_rest_passes(odd_class):
    _, out, _, _, _ = odd_class
    rows = {row[0]: row for row in csv.reader((out / "class.csv").open(encoding="utf-8-sig"))}
    assert rows["half"][4] == "not implemented" and rows["half"][1:4] == ["passed"] * 3


@pytest.mark.long
def test_no_output_carries_a_learners_escape_formula_markup_or_the_machines_files(odd_class):
    done, out, _, _, _ = odd_class
    assert b"\x1b" not in done.stdout and "\u202e".encode() not in done.stdout
    assert_inert(out)


def assert_inert(out):
    """Nothing a learner wrote acts in any output file of a class run in out."""
    hostname = Path("/etc/hostname").read_text().strip() if Path("/etc/hostname").exists() else None
    for path in out.rglob("*"):
        if not path.is_file() or path.suffix in (".png", ".svg"):
            continue
        text = path.read_text(encoding="utf-8-sig")
        assert "\x1b" not in text and "\u202e" not in text and "\r" not in text.replace("\r\n", "\n"), path
        if hostname and len(hostname) > 6:
            assert hostname not in text, path
        if path.suffix == ".csv":
            for row in csv.reader(text.splitlines()):
                assert not any(cell.startswith(("=", "+", "@")) for cell in row), (path, row)
        if path.suffix == ".xml":
            ET.fromstring(text.encode("utf-8"))
        if path.suffix == ".json":
            json.loads(text)
        if path.suffix == ".html":
            assert "Content-Security-Policy" in text and "<img" not in text and "href=" not in text, path
            assert "<strong>Credit 8 of 8" not in text, path
        if path.suffix == ".md":  # rendered as GitHub or the feedback page renders it
            rendered = MarkdownIt("commonmark").enable("table").render(text)
            assert re.findall(r"<img [^>]*>", rendered) in (
                [],
                ['<img src="class.svg" alt="The class at a glance" />'],
                ['<img src="class.svg" alt="クラスの概況" />'],
            ), path
            assert "<a " not in rendered and "<strong>Credit 8 of 8" not in rendered and "<h1>Credit" not in rendered, (
                path
            )
    commits = [row["commit"] for row in csv.DictReader((out / "grades.csv").open(encoding="utf-8-sig"))]
    assert all(c == "" or len(c) in (40, 64) for c in commits)


@pytest.mark.long
def test_the_outputs_folder_holds_no_staging_leftovers(odd_class):
    _, out, _, _, _ = odd_class
    assert not [p for p in out.iterdir() if p.name.endswith((".new", ".old"))]


# --- random odd classes, generated ------------------------------------------------------------

ENTRY_KINDS = ("empty folder", "stub learner", "file", "zip of a stub learner", "odd zip", "fifo", "link", "hidden")
NAMES = st.one_of(
    st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)), min_size=1, max_size=40),
    st.sampled_from([n.replace("/", "⁄").replace("\x00", "0") for n in NASTY if "\ud800" not in n] + ["ł" * 126]),
).filter(lambda name: name not in (".", "..") and len(name.encode("utf-8", "surrogateescape")) <= 250)
CLASSES = st.lists(st.tuples(NAMES, st.sampled_from(ENTRY_KINDS), st.sampled_from(NASTY)), min_size=1, max_size=6)


def _make_entry(root, name, kind):
    path = root / (("." + name) if kind == "hidden" else name)
    if kind in ("stub learner", "hidden"):
        make_learner(path, "stubs", checkout=False)
    elif kind == "empty folder":
        path.mkdir()
    elif kind == "file":
        path.write_text("notes")
    elif kind == "zip of a stub learner":
        make_learner(root.parent / "zipped" / "lab", "stubs", checkout=True)
        with zipfile.ZipFile(root / (name[:200] + ".zip"), "w") as archive:
            for file in sorted((root.parent / "zipped").rglob("*")):
                archive.write(file, file.relative_to(root.parent / "zipped"))
    elif kind == "odd zip":
        _corrupt_stream(root / (name[:200] + ".zip"))
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "link":
        path.symlink_to("/etc")


@given(CLASSES)
@settings(derandomize=True, max_examples=15, database=None, deadline=None)
def test_any_class_of_odd_entries_gets_a_row_each_and_inert_outputs(entries):
    with tempfile.TemporaryDirectory() as scratch:
        root, out = Path(scratch) / "class", Path(scratch) / "out"
        root.mkdir()
        messages = {}
        for name, kind, message in entries:
            if not (root / name).exists() and not (root / ("." + name)).exists():
                _make_entry(root, name, kind)
                shutil.rmtree(root.parent / "zipped", ignore_errors=True)
                messages[inert.file_name(name)] = message
        with unpack.workspace() as workspace:
            found = submission.find_submissions(root, workspace)
            for learner in found:  # graded: a failure whose message the learner's code chose
                if learner.impl is None:
                    submission.check_one(learner, (1,), 10, "en", None)
                    continue
                said = messages.get(learner.name, NASTY[0])
                learner.results = [Result("n", "c", learner.name, 1, ["C1.1"], CheckStatus.FAILED, said, 0.1)]
                learner.credit = {1: learner.results}
            outcome = classroom.ClassRun(root, found, [], 1.0)
            class_outputs.write(outcome, out, "en")
        shown = [p for p in root.iterdir() if not (p.name.startswith(".") and not p.is_dir())]
        rows = list(csv.reader((out / "class.csv").open(encoding="utf-8-sig")))[1:]
        assert len(rows) == len(shown) == len(found)
        assert not outcome.lab_problems
        assert_inert(out)


# --- found by an attack on the grader (each a kind, closed) -----------------------------------


def test_addresses_github_would_link_are_broken_and_read_the_same():
    markdown = inert.markdown("see www.example.com, https://example.com/x or help@example.com")
    assert "www." not in markdown and "https://" not in markdown and "@" not in markdown.replace("`@`", "")
    assert MarkdownIt("commonmark").render(markdown).count("example") == 3


def test_a_file_deeper_than_the_stack_or_a_decompression_bomb_costs_the_grader_nothing():
    deep = "_X = " + "+".join(["1"] * 100_000)
    assert unwrapping.unwrap(deep).payloads == []
    bomb = bz2.compress(bytes(1 << 28))  # 256 MiB of zeros in a few hundred bytes
    assert len(unwrapping._decompressed(bomb)) == unwrapping.MAX_PAYLOAD
    assert similarity.wraps_code([deep]) is False


@pytest.mark.parametrize(
    "text",
    [
        "_run = exec\n_run(SOURCE)\n",
        "import builtins\nbuiltins.exec(SOURCE)\n",
        "import builtins\ngetattr(builtins, 'exec')(SOURCE)\n",
        "import codecs\nexec(codecs.decode(SOURCE, 'rot13'))\n",
        "exec(''.join(PIECES))\n",
    ],
)
def test_code_run_by_any_name_of_exec_is_marked_wrapped(text):
    assert unwrapping.unwrap(text).wrapped
    assert not unwrapping.unwrap("import re\nPATTERN = re.compile('x')\n").wrapped


def test_two_entries_that_would_share_a_name_get_one_each(tmp_path):
    for name in ("ada.zip", "ada.ZIP"):
        make_learner(tmp_path / "src" / name / "lab", "stubs", checkout=True)
        with zipfile.ZipFile(tmp_path / name, "w") as archive:
            for file in sorted((tmp_path / "src" / name).rglob("*")):
                archive.write(file, file.relative_to(tmp_path / "src" / name))
    shutil.rmtree(tmp_path / "src")
    with unpack.workspace() as workspace:
        names = [s.name for s in submission.find_submissions(tmp_path, workspace)]
    assert sorted(names) == ["ada", "ada.zip"]


def test_a_zip_member_compressed_with_bz2_is_refused_unread(tmp_path):
    with zipfile.ZipFile(tmp_path / "bomb.zip", "w", zipfile.ZIP_BZIP2) as archive:
        archive.writestr("steps/01-init-db/step.py", "x = 1\n")
    (tmp_path / "work").mkdir()
    with pytest.raises(unpack.Refused, match="zip_method"):
        unpack.unpack(tmp_path / "bomb.zip", tmp_path / "work")


def test_where_python_is_installed_is_taken_out_of_feedback():
    learner = submission.Submission("ada", None)
    text = feedback.clean(f"{sys.base_prefix}/lib/python3.11/os.py raised", learner, Path("/nowhere"))
    assert sys.base_prefix not in text and "lib/python3.11/os.py" in text


def test_a_prediction_child_gets_none_of_the_graders_variables():
    given = {"PATH": "/usr/bin", "SECRET_TOKEN": "hunter2", "HOME": "/root", "LEASE_LAB_SHOWN_FROM": "/lab"}
    assert prediction_host._needed(given) == {"PATH": "/usr/bin"}


def test_a_path_that_is_not_utf8_keys_the_cache():
    assert cache.key(os.fsdecode(b"/class/Jos\xe9"), "x") != cache.key("/class/Jose", "x")
