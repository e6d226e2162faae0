"""Every shape a submission comes in: a folder, a checkout, a "Download ZIP" nest, a zip file, or
anything else with a reason. A zip is unpacked only when it is safe (lab/grading/unpack.py)."""

import stat
import zipfile
from pathlib import Path

import pytest
from learner_folders import make_learner

from lab.grading import unpack
from lab.grading.submission import find_submissions


def write_zip(path, members):
    """members: name -> text, or (text, mode) for a member with Unix mode bits."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            text, mode = content if isinstance(content, tuple) else (content, 0o644 | stat.S_IFREG)
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            archive.writestr(info, text)
    return path


def shapes(tmp_path):
    root, workspace = tmp_path / "class", tmp_path / "workspace"
    root.mkdir()
    workspace.mkdir()
    return root, workspace


def test_a_checkout_a_steps_folder_and_a_download_nest_are_found(tmp_path):
    root, workspace = shapes(tmp_path)
    make_learner(root / "ada", "stubs", checkout=True)
    make_learner(root / "ben", "stubs", checkout=False)
    make_learner(root / "cho" / "lab-main", "stubs", checkout=True)
    (root / "cho" / "__MACOSX").mkdir()
    found = {s.name: s for s in find_submissions(root, workspace)}
    assert found["ada"].impl == root / "ada" / "steps" and found["ben"].impl == root / "ben"
    assert found["cho"].impl == root / "cho" / "lab-main" / "steps"


def test_a_zip_nested_as_downloaded_is_unpacked_into_the_workspace_and_named_after_the_zip(tmp_path):
    root, _ = shapes(tmp_path)
    make_learner(tmp_path / "lab-main", "stubs", checkout=True)
    with zipfile.ZipFile(root / "ada.zip", "w") as archive:
        for file in (tmp_path / "lab-main").rglob("*"):
            archive.write(file, file.relative_to(tmp_path))
    with unpack.workspace() as workspace:
        (ada,) = find_submissions(root, workspace)
        assert (
            ada.name == "ada"
            and ada.source == root / "ada.zip"
            and ada.impl == Path(workspace) / "ada.zip" / "lab-main" / "steps"
        )
        assert (
            unpack.shown(f"File {ada.impl}/04-claim/step.py, line 3")
            == "File ada.zip/lab-main/steps/04-claim/step.py, line 3"
        )
    assert not Path(workspace).exists()


@pytest.mark.parametrize(
    "members,problem",
    [
        ({"../outside.py": "x"}, "class.zip_outside"),
        ({"/etc/outside.py": "x"}, "class.zip_outside"),
        ({"C:/outside.py": "x"}, "class.zip_outside"),
        ({"steps/link": ("/etc/passwd", 0o777 | stat.S_IFLNK)}, "class.zip_link"),
        ({f"f{n}.py": "" for n in range(unpack.MAX_MEMBERS + 1)}, "class.zip_too_many"),
    ],
)
def test_an_unsafe_zip_is_refused_and_nothing_is_written_outside_its_folder(tmp_path, members, problem):
    root, workspace = shapes(tmp_path)
    write_zip(root / "eve.zip", members)
    (eve,) = find_submissions(root, workspace)
    assert eve.impl is None and eve.problem == problem
    assert (
        sorted(p.name for p in tmp_path.iterdir()) == ["class", "workspace"] and not (tmp_path / "outside.py").exists()
    )


def test_a_zip_that_unpacks_to_more_than_the_bound_is_refused_by_the_bytes_written(tmp_path, monkeypatch):
    root, workspace = shapes(tmp_path)
    monkeypatch.setattr(unpack, "MAX_BYTES", 1000)
    write_zip(root / "eve.zip", {"a.py": "x" * 600, "b.py": "x" * 600})
    (eve,) = find_submissions(root, workspace)
    assert eve.problem == "class.zip_too_big"


def test_anything_else_gets_a_row_saying_what_was_found_where(tmp_path):
    root, workspace = shapes(tmp_path)
    (root / "notes.txt").write_text("hello")
    (root / "gus" / "work").mkdir(parents=True)
    (root / "gus" / "work" / "claim.py").write_text("")
    (root / ".git").mkdir()
    (root / ".DS_Store").write_text("")
    (root / "bad.zip").write_text("not a zip")
    found = {s.name: s for s in find_submissions(root, workspace)}
    assert sorted(found) == [".git", "bad", "gus", "notes.txt"]
    assert found["notes.txt"].problem == "class.not_a_submission" and found["notes.txt"].found == {
        "notes.txt": {"bytes": 5}
    }
    assert found["gus"].found == {"gus": ["work/"], "gus/work": ["claim.py"]} and found["gus"].details == {
        "where": "gus/, gus/work/"
    }
    assert found[".git"].problem == "class.hidden" and found["bad"].problem == "class.zip_unreadable"
