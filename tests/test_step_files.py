"""Step files are read as Python reads a source file, and only when they really are in the
learner's folder: a BOM and CRLF line ends are fine; a symbolic link, a FIFO or a huge file is
refused with a message, never followed, waited on or read whole."""

import os
import shutil
import subprocess
import sys

from hang import HANGS_AFTER

from lab.model.course import LAB_ROOT, load_course
from lab.model.implementation import MAX_FILE, assemble, placed_files, read
from lab.model.mutants import SOLUTIONS_DIR

FIRST = load_course()[0].dir


def learner(tmp_path):
    folder = tmp_path / "steps"
    shutil.copytree(SOLUTIONS_DIR, folder)
    return folder


def test_a_bom_and_crlf_line_ends_pass_like_the_same_file_without_them(tmp_path):
    folder = learner(tmp_path)
    step = folder / FIRST / "step.py"
    step.write_bytes(b"\xef\xbb\xbf" + step.read_bytes().replace(b"\n", b"\r\n"))
    done = subprocess.run(
        [sys.executable, "-m", "lab", "check", "1", "--impl", str(folder), "--no-mutants"],
        cwd=LAB_ROOT,
        capture_output=True,
        text=True,
        timeout=HANGS_AFTER,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_step_file_that_is_a_link_to_the_reference_is_refused(tmp_path):
    folder = learner(tmp_path)
    step = folder / FIRST / "step.py"
    step.unlink()
    step.symlink_to(SOLUTIONS_DIR / FIRST / "step.py")
    found = read(folder).files[0]
    assert (found.text, found.refused) == (None, "refused_link")


def test_a_steps_folder_linked_to_the_reference_is_refused_file_by_file(tmp_path):
    (tmp_path / "steps").symlink_to(SOLUTIONS_DIR)
    files = read(tmp_path / "steps").files
    assert [f.refused for f in files] == ["refused_link"] * len(load_course())


def test_a_fifo_and_a_huge_file_are_refused_without_reading_them(tmp_path):
    folder = learner(tmp_path)
    fifo, huge = folder / FIRST / "step.py", folder / load_course()[1].dir / "step.py"
    fifo.unlink()
    os.mkfifo(fifo)  # opening it for reading would wait for a writer for ever
    huge.write_bytes(b"#" * (MAX_FILE + 1))
    files = read(folder).files
    assert [(f.text, f.refused) for f in files[:2]] == [(None, "refused_not_file"), (None, "refused_too_big")]


def test_a_one_file_implementation_that_is_a_link_is_refused_and_assembles_as_a_comment(tmp_path):
    (tmp_path / "lease.py").symlink_to(SOLUTIONS_DIR / FIRST / "step.py")
    implementation = read(tmp_path / "lease.py")
    assert [(f.text, f.refused) for f in implementation.files] == [(None, "refused_link")]
    assert (assemble(implementation), placed_files(implementation)) == ("# lease.py is missing\n", [])
    done = subprocess.run(
        [sys.executable, "-m", "lab", "check", "1", "--impl", str(tmp_path / "lease.py"), "--no-mutants"],
        cwd=LAB_ROOT,
        capture_output=True,
        text=True,
        timeout=HANGS_AFTER,
        check=False,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr and "symbolic link" in done.stdout, done.stderr
