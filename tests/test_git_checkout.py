"""When a learner's git checkout was committed, read from its .git folder and never by running
git: a commit stored loose, one in a pack, one stored in a pack as a delta of others."""

import os
import shutil
import subprocess
from datetime import UTC, datetime

import pytest
from learner_folders import make_learner

from lab.grading import git_checkout

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git makes the checkouts these tests read")


def git(folder, *arguments, when="2026-12-07T10:00:00+00:00"):
    environment = {**os.environ, "GIT_COMMITTER_DATE": when, "GIT_AUTHOR_DATE": when}
    command = ["git", "-c", "user.name=Ada", "-c", "user.email=ada@example.com", "-c", "commit.gpgsign=false"]
    done = subprocess.run(
        [*command, *arguments], cwd=folder, env=environment, capture_output=True, text=True, check=True
    )
    return done.stdout


def committed(folder, when):
    """folder made a git checkout of its files, with one commit at when (ISO 8601)."""
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "my work", when=when)
    return folder


@needs_git
def test_the_commit_time_is_read_loose_and_packed(tmp_path):
    folder = committed(make_learner(tmp_path / "ada", "stubs").parent, "2026-12-07T10:00:00+09:00")
    expected = datetime(2026, 12, 7, 1, tzinfo=UTC).timestamp()
    assert git_checkout.commit_time(folder / "steps") == expected  # a fresh commit: a loose object
    git(folder, "gc", "-q")
    assert not list((folder / ".git" / "objects").glob("??/*"))  # every object now lies in a pack
    assert git_checkout.commit_time(folder / "steps") == expected


@needs_git
def test_a_commit_stored_as_a_delta_is_read_through_its_bases(tmp_path):
    folder = tmp_path / "ada"
    folder.mkdir()
    git(folder, "init", "-q", "-b", "main")
    message = "the same long message each time, so that the pack stores commits as deltas " * 4
    for n in range(30):
        (folder / "notes.txt").write_text(f"{n}\n")
        git(folder, "add", "-A")
        git(folder, "commit", "-q", "-m", f"{message}{n}", when=f"2026-12-0{n % 9 + 1}T10:{n:02d}:00+00:00")
    git(folder, "repack", "-adf", "-q", "--depth=50", "--window=250")
    listed = git(folder, "verify-pack", "-v", *map(str, (folder / ".git" / "objects" / "pack").glob("*.idx")))
    deltas = [
        line.split()[0] for line in listed.splitlines() if line.split()[1:2] == ["commit"] and len(line.split()) == 7
    ]
    assert deltas, "git stored no commit as a delta"
    for oid in deltas[:5]:
        git(folder, "checkout", "-q", "--detach", oid)
        assert git_checkout.commit_time(folder) == int(git(folder, "log", "-1", "--format=%ct"))


def test_an_object_that_is_a_link_gives_no_time(tmp_path):
    folder = tmp_path / "ada"
    oid = "0123456789abcdef0123456789abcdef01234567"
    (folder / ".git" / "objects" / "01").mkdir(parents=True)
    (folder / ".git" / "HEAD").write_text(oid + "\n")
    (folder / ".git" / "objects" / "01" / oid[2:]).symlink_to("/etc/hostname")
    assert git_checkout.commit_of(folder) == oid and git_checkout.commit_time(folder) is None
