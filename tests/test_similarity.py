"""Similarity (lab/grading/similarity.py): winnowed token fingerprints see through renaming,
restyling and deleted docstrings, leave out what every learner starts from and what the class
writes alike, flag against the class's own scores, are the same in every process, and are shown
side by side in class.md."""

import base64
import lzma
import re
import shutil
import subprocess
import sys
import zlib

import pytest
from learner_folders import make_learner
from markdown_it import MarkdownIt

from lab.grading import class_outputs, class_table, class_view, classroom, gradebook, regrade, similarity
from lab.grading.submission import Submission, find_submissions
from lab.grading.unwrapping import unwrap
from lab.model.course import LAB_ROOT, load_course
from lab.model.pristine import stub_text
from lab.text.messages import say

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
    for name, new in (("job_id", "task"), ("owner", "who"), ("conn", "c"), ("fence", "f")):
        text = re.sub(rf"\b{name}\b", new, text)
    return "# my own work\n" + "\n".join(line.replace("    ", "  ") for line in text.splitlines()) + "\n"


def prints(text):
    return similarity.submission_prints([text])


def test_a_renamed_and_restyled_copy_is_all_found_and_an_honest_rewrite_is_not():
    reference = prints(CLAIM)
    likeness, _ = similarity.compare({"copy": prints(restyled(CLAIM)), "honest": prints(HONEST_CLAIM)}, reference)
    copy, honest = likeness.values()
    assert copy.reference == 1.0 and copy.size >= similarity.MIN_SIZE and copy.flagged()
    assert honest.reference < 0.3 and not honest.flagged()


def test_the_stubs_are_no_likeness():
    assert all(len(prints(stub_text(step))) == 0 for step in load_course())
    likeness, _ = similarity.compare({"stubs": similarity.Prints()}, prints(CLAIM), threshold=0.0)
    assert likeness["stubs"] == similarity.Likeness(0) and not likeness["stubs"].flagged()


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
    rule = similarity.of_class(submissions)
    ann, bob = (s.likeness for s in submissions)
    assert rule == similarity.Rule(similarity.THRESHOLD, 2)  # too few for a distribution: the fixed share only
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
    assert ("wrapped" if lang == "en" else "難読化") in class_table.likeness_cell(learner, similarity.Rule(), lang)
    steps = [step.number for step in load_course()]
    row = dict(zip(gradebook.header(steps), gradebook.row(learner, steps, "now")))
    assert row["similarity_wrapped"] == "yes"


# --- fair similarity in a class: docstrings, the class's idioms and its own distribution ----------

HONEST = LAB_ROOT / "tests" / "fixtures" / "similarity" / "honest"  # 12 learners' claim, renew, complete, release
DISGUISED_STEPS = ("04-claim", "05-renew", "06-complete", "07-release")


def disguised(text):
    """The reference as a copier hands it in: its docstrings and blank lines deleted, its names
    renamed, a comment on every statement."""
    text = re.sub(r'^\s*""".*"""\n', "", text, flags=re.MULTILINE)
    for name, new in (("conn", "db"), ("row", "rec"), ("fence", "token"), ("job_id", "jid"), ("owner", "who")):
        text = re.sub(rf"\b{name}\b", new, text)
    text = re.sub(r"\bcursor\b", "cur", text)
    return "".join(f"{line}  # mine\n" if line.strip() else "" for line in text.splitlines())


def copy_folder(folder, transform=disguised, steps=DISGUISED_STEPS):
    for step in steps:
        (folder / step).mkdir(parents=True)
        (folder / step / "step.py").write_text(transform((LAB_ROOT / "solutions" / step / "step.py").read_text()))
    return folder


def honest_class(tmp_path, **more):
    """The 12 honest learners (each one file that serves every step), and more: name -> folder or file."""
    entries = {path.stem: path for path in sorted(HONEST.glob("*.py"))} | more
    submissions = [Submission(name, path) for name, path in entries.items()]
    rule = similarity.of_class(submissions)
    return {s.name: s.likeness for s in submissions}, rule


def test_a_copy_with_docstrings_and_comments_deleted_and_names_renamed_is_all_found():
    copy = "".join(disguised((LAB_ROOT / "solutions" / s / "step.py").read_text()) for s in DISGUISED_STEPS)
    assert '"""' not in copy and not re.search(r"\b(conn|job_id|owner)\b", copy) and copy.count("# mine") > 30
    reference = [(LAB_ROOT / "solutions" / s / "step.py").read_text() for s in DISGUISED_STEPS]
    shared = similarity.share(
        similarity.submission_prints([disguised(text) for text in reference]), similarity.submission_prints(reference)
    )
    assert shared == 1.0  # the old tokens (every docstring one token of its own) found 0.81 of it


def test_twelve_honest_learners_sharing_textbook_idioms_are_not_flagged_and_a_disguised_copy_is(tmp_path):
    likeness, rule = honest_class(tmp_path, copier=copy_folder(tmp_path / "copier"))
    assert rule.learners == 13 and rule.reference is not None and rule.closest is not None
    assert not [name for name, alike in likeness.items() if name != "copier" and alike.flagged()]
    assert max(alike.reference for name, alike in likeness.items() if name != "copier") <= 0.45
    copier = likeness["copier"]
    assert (copier.reference, copier.reference_flag) == (1.0, "share")
    (evidence,) = [pair for pair in copier.evidence if pair.other == ""]
    assert evidence.flag == "share" and evidence.spans
    own, theirs = evidence.spans[0]
    assert own.label == theirs.label and own.label in {f"{step}/step.py" for step in DISGUISED_STEPS}


def test_without_the_class_discount_the_idioms_weigh_as_much_as_anything(tmp_path):
    likeness, _ = honest_class(tmp_path)
    prints = {name: similarity.submission_prints([path.read_text()]) for name, path in _honest().items()}
    common = similarity.common_weights(prints)
    assert common and set(common.values()) == {similarity.COMMON_WEIGHT}
    # dev writes the textbook's one-statement UPDATEs: much of it is what the class writes alike
    plain = max(similarity.share(prints["dev"], prints[other]) for other in prints if other != "dev")
    assert plain > likeness["dev"].closest_share + 0.1


def _honest():
    return {path.stem: path for path in sorted(HONEST.glob("*.py"))}


def test_a_classmate_whose_two_functions_were_copied_is_an_outlier_not_a_fixed_share(tmp_path):
    ana = (HONEST / "ana.py").read_text()
    head = ana[: ana.index("def complete")]
    for name, new in (("conn", "c"), ("row", "r"), ("fence", "gen"), ("cursor", "cur")):
        head = re.sub(rf"\b{name}\b", new, head)
    (tmp_path / "mia.py").write_text(head + MIA_OWN)
    likeness, rule = honest_class(tmp_path, mia=tmp_path / "mia.py")
    assert (likeness["ana"].closest, likeness["ana"].closest_flag) == ("mia", "outlier")
    assert rule.threshold > likeness["ana"].closest_share > rule.closest.cutoff
    assert 0.5 < likeness["mia"].closest_share < rule.threshold and likeness["mia"].closest == "ana"
    assert not [name for name, alike in likeness.items() if name not in ("ana", "mia") and alike.flagged()]


MIA_OWN = """

def _guarded(path, sql, values):
    link = sqlite3.connect(path, isolation_level=None)
    try:
        link.execute("BEGIN IMMEDIATE")
        count = link.execute(sql, values).rowcount
        link.execute("COMMIT" if count == 1 else "ROLLBACK")
        return count == 1
    finally:
        link.close()


def complete(path, job_id, owner, fence, now, result):
    sql = "UPDATE jobs SET done = 1, result = ? WHERE done = 0 AND until > ? AND id = ? AND fence = ? AND owner = ?"
    return _guarded(path, sql, (result, now, job_id, fence, owner))


def release(path, job_id, owner, fence):
    sql = "UPDATE jobs SET until = 0, owner = NULL WHERE done = 0 AND id = ? AND fence = ? AND owner = ?"
    return _guarded(path, sql, (job_id, fence, owner))
"""


def test_the_outlier_rule_is_the_median_plus_three_scaled_mads_and_at_least_half():
    scores = [0.10, 0.12, 0.14, 0.15, 0.16, 0.18, 0.20, 0.22, 0.45, 0.70]
    spread = similarity.outliers(scores)
    # median 0.17; deviations 0.07 0.05 0.03 0.02 0.01 0.01 0.03 0.05 0.28 0.53: their median 0.04
    assert spread == similarity.Outliers(0.17, round(0.17 + 3 * 1.4826 * 0.04, 4)) and spread.cutoff == 0.3479
    rule = similarity.Rule(0.9, 10, spread, spread)
    assert [rule.flag(score, 50, "closest") for score in (0.3, 0.45, 0.5, 0.7, 0.9)] == [
        "",
        "",  # above the cutoff, but less than half of its code: never an outlier
        "outlier",
        "outlier",
        "share",
    ]
    assert rule.flag(0.95, similarity.MIN_SIZE - 1, "reference") == ""  # too little code to tell
    assert similarity.outliers([0.3] * 6 + [0.6]).cutoff == 0.3  # no spread: anything above the median
    small = similarity.rule_of([0.1, 0.2, 0.8, 0.3], [0.1, 0.2, 0.8, 0.3])
    assert small == similarity.Rule(similarity.THRESHOLD, 4) and small.flag(0.8, 50, "closest") == ""


@pytest.mark.parametrize("wrapping", WRAPPINGS)
def test_a_wrapped_copy_is_still_flagged_in_a_class_of_honest_learners(tmp_path, wrapping):
    copy_folder(tmp_path / "wrapper", lambda text: WRAPPINGS[wrapping](text), DISGUISED_STEPS[:1])
    likeness, _ = honest_class(tmp_path, wrapper=tmp_path / "wrapper")
    wrapper = likeness["wrapper"]
    # the wrapper's own tokens (import, exec, decode) are its only code the class does not share
    assert wrapper.wrapped and wrapper.reference >= 0.85 and wrapper.reference_flag in ("share", "outlier")
    assert any(own.decoded for pair in wrapper.evidence for own, _ in pair.spans)


ATTACK = "\x1b[2J\u202e [link](http://evil.example) ![x](y.png) **Credit 8 of 8** <b>|</b>"


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_class_md_shows_a_flagged_pair_side_by_side_and_inert(tmp_path, lang):
    def attacked(text):
        return disguised(text).replace("  # mine", f"  # {ATTACK}")

    copy_folder(tmp_path / "copier", attacked)
    entries = _honest() | {"copier": tmp_path / "copier"}
    submissions = [Submission(name, path) for name, path in entries.items()]
    rule = similarity.of_class(submissions)
    outcome = classroom.ClassRun(tmp_path, submissions, [], 1.0, rule=rule)
    text = class_view.markdown(outcome, class_table.table(outcome, lang), lang)
    section = text[
        text.index("## " + ("Similarity, side by side" if lang == "en" else "類似度: ファイルを並べて比較")) :
    ]
    heading = "### copier and the reference: 100% of copier's own code is found there (90% or more)"
    assert (
        heading
        if lang == "en"
        else "### copier と 参照実装: copier 自身のコードの 100% が相手のファイルに見つかる (90% 以上)"
    ) in section
    row = next(line for line in section.splitlines() if "ROLLBACK" in line)
    left, right = row.strip("|").split(" | ")
    assert "db.execute" in left and "conn.execute" in right and "mine" not in right  # the copy, the reference
    assert "\x1b" not in text and "\u202e" not in text and "\\x1b" in section and "\\u202e" in section
    rendered = MarkdownIt("commonmark").enable("table").render(text)
    assert "<a " not in rendered and "<img" not in rendered.replace('<img src="class.svg"', "")
    assert "<strong>Credit 8 of 8" not in rendered and "<b>" not in rendered
    assert rendered.count("<table>") >= 2  # the class and at least one span side by side
    assert (
        "90%" in class_table.likeness_cell(next(s for s in submissions if s.name == "copier"), rule, lang)
        and rule.reference is not None
    )


def test_a_small_class_flags_by_the_fixed_share_only_and_says_so(tmp_path):
    entries = {name: path for name, path in list(_honest().items())[:3]}
    submissions = [Submission(name, path) for name, path in entries.items()]
    rule = similarity.of_class(submissions)
    assert rule == similarity.Rule(similarity.THRESHOLD, 3)
    (sentence, _) = class_view.similarity_rule(rule, "en")
    assert "3 learner(s) with enough code, fewer than 5" in sentence and "only the fixed share of 90% flags" in sentence
    assert "5 人に足りません" in class_view.similarity_rule(rule, "ja")[0]


def test_a_likeness_moved_by_a_classmate_added_reads_so_in_the_regrades_moved_list(tmp_path):
    """ann's files do not change; a copy of them handed in by a newcomer becomes ann's closest
    classmate, at 100%: the moved list says ann's similarity moved by classmates, not by ann."""
    for name in ("ann", "bob"):
        make_learner(tmp_path / "class" / name, "stubs", checkout=False)
    (tmp_path / "class" / "ann" / "04-claim" / "step.py").write_text(HONEST_CLAIM, encoding="utf-8")
    (tmp_path / "class" / "bob" / "04-claim" / "step.py").write_text(
        (HONEST / f"{sorted(_honest())[0]}.py").read_text(encoding="utf-8"), encoding="utf-8"
    )

    def summary():
        submissions = find_submissions(tmp_path / "class")
        similarity.of_class(submissions)
        for submission in submissions:
            submission.digest = regrade.submission_digest(submission.impl)
        return {s.name: class_outputs.summary_of(s, [], tmp_path / "class") for s in submissions}

    before = summary()
    shutil.copytree(tmp_path / "class" / "ann", tmp_path / "class" / "cal")
    after = summary()
    assert before["ann"]["digest"] == after["ann"]["digest"] and before["ann"]["similarity"][1] == "bob"
    moved = [line for line in class_outputs.changes(before, after) if line.startswith("ann:")]
    then = say(
        "class.sim_cell",
        "en",
        reference=before["ann"]["similarity"][0],
        closest="bob",
        share=before["ann"]["similarity"][2],
    )
    assert moved == [
        f"ann: similarity moved ({then} -> {after['ann']['similarity'][0]:.0%} in the reference; 100% in cal, flagged)"
        " by classmates added or changed: ann's own files did not change"
    ]
    assert any(line.startswith("ann: 類似度が変わりました") for line in class_outputs.changes(before, after, "ja"))
    bobs = (tmp_path / "class" / "bob" / "04-claim" / "step.py").read_text(encoding="utf-8")
    (tmp_path / "class" / "ann" / "04-claim" / "step.py").write_text(bobs, encoding="utf-8")  # ann's own change
    again = summary()
    (moved,) = [line for line in class_outputs.changes(after, again) if line.startswith("ann:")]
    assert again["ann"]["similarity"][1:] == ["bob", 1.0, True]
    assert moved.endswith("in bob, flagged) with ann's own files changed"), moved


def test_a_class_of_copies_shows_one_block_of_evidence_and_still_names_every_flagged_pair(tmp_path):
    """Six copies of the reference (every other one renamed) are one group of near-identical code:
    one pair's spans side by side, the other pairs named under them; an honest learner is in none."""
    entries = _honest()
    for n in range(6):
        copy = tmp_path / f"copy{n}"
        shutil.copytree(LAB_ROOT / "solutions", copy, ignore=shutil.ignore_patterns("__pycache__"))
        for file in copy.rglob("step.py") if n % 2 else ():
            file.write_text(re.sub(r"\bconn\b", "db", file.read_text(encoding="utf-8")), encoding="utf-8")
        entries[copy.name] = copy
    submissions = [Submission(name, path) for name, path in entries.items()]
    rule = similarity.of_class(submissions)
    outcome = classroom.ClassRun(tmp_path, submissions, [], 1.0, rule=rule)
    for lang in ("en", "ja"):
        section = class_view.side_by_side(outcome, lang)
        reference = say("class.sim_the_reference", lang)
        flagged = {
            frozenset((s.name, pair.other or reference))
            for s in submissions
            for pair in (s.likeness.evidence if s.likeness else ())
        }
        assert len(flagged) == 6 + 5  # each copy and the reference, and each copy and its closest classmate
        headings = [line.removeprefix("### ") for line in section if line.startswith("### ")]
        named = [line.removeprefix("- ") for line in section if line.startswith("- ")]
        shown = [frozenset(line.split(":")[0].split(" and " if lang == "en" else " と ")) for line in headings + named]
        assert (
            len(headings) == 1
            and headings[0].startswith("copy0 ")
            and sorted(shown, key=sorted) == sorted(flagged, key=sorted)
        )
        assert say("class.sim_same_group", lang, count=len(named)) in section
        assert sum(line == "|---|---|" for line in section) <= similarity.MAX_SPANS
        assert all(name.startswith("copy") or name == reference for pair in shown for name in pair)
