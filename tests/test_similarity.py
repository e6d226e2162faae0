"""Similarity (lab/grading/similarity.py): winnowed token fingerprints see through renaming and
restyling, leave out what the stubs ship, and are the same in every process."""

import base64
import lzma
import subprocess
import sys
import zlib

import pytest
from learner_folders import make_learner

from lab.grading import class_table, gradebook, similarity
from lab.grading.submission import Submission, find_submissions
from lab.grading.unwrapping import unwrap
from lab.model.course import LAB_ROOT, load_course
from lab.model.pristine import stub_text

CLAIM = (LAB_ROOT / "solutions" / "04-claim" / "step.py").read_text(encoding="utf-8")
# claim written from the contract by someone who never saw the reference
HONEST_CLAIM = """import sqlite3


def claim(path, job_id, owner, now, ttl):
    if ttl <= 0:
        raise ValueError("bad ttl")
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("BEGIN IMMEDIATE")
        found = db.execute("SELECT fence, until, done FROM jobs WHERE id = ?", (job_id,)).fetchone()
        if found is None:
            db.execute("ROLLBACK")
            return None
        old_fence, until, done = found
        if done or until > now:
            db.execute("ROLLBACK")
            return None
        db.execute("UPDATE jobs SET owner = ?, until = ?, fence = ? WHERE id = ?", (owner, now + ttl, old_fence + 1, job_id))
        db.execute("COMMIT")
        return old_fence + 1
    finally:
        db.close()
"""


def restyled(text):
    """The same code, renamed, re-indented and commented."""
    renamed = text.replace("job_id", "task").replace("owner", "who").replace("conn", "c").replace("fence", "f")
    return "# my own work\n" + "\n".join(line.replace("    ", "  ") for line in renamed.splitlines()) + "\n"


def prints(text):
    return similarity.submission_prints([text])


def test_a_renamed_and_restyled_copy_is_all_found_and_an_honest_rewrite_is_not():
    reference = prints(CLAIM)
    copy, honest = similarity.compare(
        {"copy": prints(restyled(CLAIM)), "honest": prints(HONEST_CLAIM)}, reference
    ).values()
    assert copy.reference == 1.0 and copy.size >= similarity.MIN_SIZE and copy.flagged()
    assert honest.reference < 0.3 and not honest.flagged()


def test_the_stubs_are_no_likeness():
    assert all(prints(stub_text(step)) == set() for step in load_course())
    (stubs,) = similarity.compare({"stubs": set()}, prints(CLAIM)).values()
    assert stubs == similarity.Likeness(0) and not stubs.flagged(0.0)


def test_fingerprints_are_the_same_in_every_process():
    code = "from lab.grading import similarity; import sys; print(sorted(similarity.fingerprints(sys.stdin.read())))"
    seen = {
        subprocess.run(
            [sys.executable, "-c", code],
            input=CLAIM,
            capture_output=True,
            text=True,
            cwd=LAB_ROOT,
            env={"PYTHONHASHSEED": seed},
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(seen) == 1 and str(sorted(similarity.fingerprints(CLAIM))) + "\n" in seen


def test_a_class_names_each_learners_closest_classmate(tmp_path):
    for name in ("ann", "bob"):
        make_learner(tmp_path / name, "stubs", checkout=False)
    (tmp_path / "ann" / "04-claim" / "step.py").write_text(HONEST_CLAIM, encoding="utf-8")
    (tmp_path / "bob" / "04-claim" / "step.py").write_text(restyled(HONEST_CLAIM), encoding="utf-8")
    submissions = find_submissions(tmp_path)
    similarity.of_class(submissions)
    ann, bob = (s.likeness for s in submissions)
    assert (ann.closest, ann.closest_share, bob.closest, bob.closest_share) == ("bob", 1.0, "ann", 1.0)
    assert ann.reference < 0.3 and ann.flagged() and bob.flagged()


WRAPPINGS = {
    "base64": lambda source: f"import base64\nexec(base64.b64decode({base64.b64encode(source.encode()).decode()!r}))\n",
    "zlib inside base85": lambda source: (
        "import base64, zlib\n"
        f"exec(zlib.decompress(base64.b85decode({base64.b85encode(zlib.compress(source.encode())).decode()!r})))\n"
    ),
    "hex": lambda source: f"exec(bytes.fromhex({source.encode().hex()!r}).decode())\n",
    "lzma bytes": lambda source: f"import lzma\nexec(lzma.decompress({lzma.compress(source.encode())!r}))\n",
    "base64 twice": lambda source: (
        f"import base64\nexec(base64.b64decode({base64.b64encode(WRAPPINGS['base64'](source).encode()).decode()!r}))\n"
    ),
    "the source of an exec": lambda source: f"exec({source!r})\n",
}


@pytest.mark.parametrize("wrapping", WRAPPINGS)
def test_a_wrapped_copy_of_the_reference_is_seen_through_and_marked(wrapping):
    wrapped = WRAPPINGS[wrapping](CLAIM)
    shared = similarity.share(similarity.submission_prints([wrapped]), similarity.submission_prints([CLAIM]))
    assert shared >= similarity.THRESHOLD  # the wrapper's own few tokens are all it adds
    assert similarity.wraps_code([wrapped])


def test_code_built_at_run_time_is_marked_and_honest_code_is_not():
    built = "code = ''.join(map(chr, [120, 61, 49]))\nexec(code)\n"
    assert unwrap(built).runs_built_code and similarity.wraps_code([built])
    honest = [HONEST_CLAIM, CLAIM, *(stub_text(step) for step in load_course())]
    honest += [p.read_text() for p in (LAB_ROOT / "tests/fixtures/independent/correct").glob("*.py")]
    assert not [text[:60] for text in honest if similarity.wraps_code([text])]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_class_view_and_the_gradebook_say_wrapped(lang):
    learner = Submission("ada", None, likeness=similarity.Likeness(5, 0.0, "", 0.0, wrapped=True))
    assert ("wrapped" if lang == "en" else "難読化") in class_table.likeness_cell(learner, similarity.THRESHOLD, lang)
    steps = [step.number for step in load_course()]
    row = dict(zip(gradebook.header(steps), gradebook.row(learner, steps, "now")))
    assert row["similarity_wrapped"] == "yes"
