"""The class view for the instructor: class.md, and the glance that says who needs help first,
which clauses failed most and which mutants the predictions caught."""

import time

from lab.grading import credit, lms_exports, similarity
from lab.grading.class_table import credit_cell, credit_count
from lab.model.course import load_course
from lab.model.mutants import load_mutants
from lab.model.results import CheckStatus, PredictionStatus
from lab.text import inert
from lab.text.messages import say, words_of


def markdown(outcome, rows, lang="en"):
    words = words_of("class", lang)
    steps = [step.number for step in load_course()]
    heading = words("heading", root=outcome.root.name, count=len(outcome.submissions), seconds=outcome.seconds)
    lines = [f"# {heading}", ""]
    broken = lab_broken(outcome, lang)
    if broken:
        lines += [f"**{broken}**", ""]
    left_out = lms_exports.left_out(outcome)
    if left_out:
        lines += [f"**{_md(words('lms_left_out', learners=', '.join(left_out)))}**", ""]
    lines += [words("legend"), "", words("sim_legend", threshold=outcome.similar), ""]
    lines += [*similarity_rule(outcome.rule, lang)]
    header = [
        words("learner"),
        words("credit"),
        *(words("step", n=n) for n in steps),
        words("time"),
        words("similarity"),
        words("predictions"),
    ]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for submission, row in zip(outcome.submissions, rows[1:]):
        name, cells, earned, seconds, alike, predicted = (
            row[0],
            row[1 : 1 + len(steps)],
            *row[1 + len(steps) : 5 + len(steps)],
        )
        if not submission.problem:
            cells = [f"{credit_cell(submission, n, lang, outcome.root)} · {course}" for n, course in zip(steps, cells)]
        lines.append("| " + " | ".join(_md(c) for c in (name, earned, *cells, seconds, alike, predicted)) + " |")
    lines += ["", *(f"- {_md(row[-1])}" for row in rows[1:]), ""]
    lines += side_by_side(outcome, lang)
    lines += glance(outcome, lang)
    return "\n".join(lines)


def lab_broken(outcome, lang="en"):
    """Why the run cannot be trusted, in one sentence (None when it can): the lab's files changed
    during the run, an output could not be written, a mutant survived. The reason behind
    LAB_BROKEN, said on the terminal and at the top of class.md."""
    problems = outcome.lab_problems + [
        say("class.survived", lang, mutant=v.mutant.id) for v in outcome.verdicts if v.survived
    ]
    return say("lab_broken", lang, error="; ".join(problems)) if problems else None


def similarity_rule(rule, lang="en"):
    """The legend's sentence on how this class flags: its own distribution, or the fixed share alone."""
    if rule is None:
        return []
    words = words_of("class", lang)
    if rule.reference is None:
        return [
            words("sim_small_class", learners=rule.learners, minimum=similarity.SMALL_CLASS, threshold=rule.threshold),
            "",
        ]
    sentence = words(
        "sim_class_rule",
        learners=rule.learners,
        reference_cutoff=rule.reference.cutoff,
        reference_typical=rule.reference.typical,
        closest_cutoff=rule.closest.cutoff,
        closest_typical=rule.closest.typical,
        floor=similarity.FLOOR,
        spread=f"{similarity.SPREAD:g}",
    )
    return [sentence, ""]


def side_by_side(outcome, lang="en"):
    """For each flagged likeness (a pair once, however many of its two are flagged), the matched spans
    of the two files next to each other: a table whose left column is the learner's lines, the right
    the other's. Every line is the learner's own text, made inert.

    Pairs flagged at the fixed share are near-identical code, and join into groups (copies of one
    another, or of the reference): a group shows the spans of its first pair only, and names each of
    its other pairs in a list under them. A class of 24 copies of the reference is one table of
    evidence and 46 lines naming the other pairs, not 47 tables of the same lines (132 KB); a pair
    flagged as an outlier, much less alike, keeps its own."""
    words = words_of("class", lang)
    rule = outcome.rule or similarity.Rule(outcome.similar)
    pairs = _flagged_pairs(outcome)
    group_of = _groups([(name, pair.other) for name, pair in pairs if pair.flag == "share"])
    blocks, first_of_group = [], {}
    for name, pair in pairs:
        heading = _md(_pair_heading(name, pair, rule, words))
        group = group_of.get(name) if pair.flag == "share" else None
        if group in first_of_group:
            first_of_group[group][2].append(heading)
            continue
        block = (heading, _spans(pair, name, pair.other or words("sim_the_reference"), words), [])
        if group is not None:
            first_of_group[group] = block
        blocks.append(block)
    if not blocks:
        return []
    intro = words("sim_evidence_intro", spans=similarity.MAX_SPANS, lines=similarity.MAX_LINES)
    lines = [f"## {words('sim_evidence')}", "", intro, ""]
    for heading, spans, others in blocks:
        lines += [f"### {heading}", "", *(spans or [words("sim_no_span"), ""])]
        if others:
            lines += [words("sim_same_group", count=len(others)), "", *(f"- {other}" for other in others), ""]
    return lines


def _flagged_pairs(outcome):
    """(learner, Pair) of every flagged likeness, each two once, in the class's order."""
    shown, pairs = set(), []
    for submission in outcome.submissions:
        for pair in submission.likeness.evidence if submission.likeness else ():
            key = frozenset((submission.name, pair.other))
            if key not in shown:
                shown.add(key)
                pairs.append((submission.name, pair))
    return pairs


def _groups(edges):
    """Each name's group (the name of its first member) where edges (two names; "" the reference)
    join names into groups."""
    parent = {}

    def root(name):
        while parent.setdefault(name, name) != name:
            name = parent[name]
        return name

    for one, other in edges:
        first, second = root(one), root(other)
        if first != second:
            parent[second] = first
    return {name: root(name) for name in parent}


def _pair_heading(name, pair, rule, words):
    heading = words("sim_pair", name=name, other=pair.other or words("sim_the_reference"), share=pair.share)
    kind = rule.reference if not pair.other else rule.closest
    if pair.flag == "share":
        return heading + words("sim_pair_share", threshold=rule.threshold)
    return heading + (words("sim_pair_outlier", typical=kind.typical) if kind is not None else "")


def _spans(pair, name, other, words):
    lines = []
    for own, theirs in pair.spans:
        header = [_excerpt_title(name, own, words), _excerpt_title(other, theirs, words)]
        lines += [f"| {header[0]} | {header[1]} |", "|---|---|"]
        left, right = _code_cells(own), _code_cells(theirs)
        for index in range(max(len(left), len(right))):
            cells = [side[index] if index < len(side) else "" for side in (left, right)]
            lines.append(f"| {cells[0]} | {cells[1]} |")
        lines.append("")
    return lines


def _excerpt_title(who, excerpt, words):
    return _md(f"{who} · {excerpt.label}") + (words("sim_decoded") if excerpt.decoded else "")


def _code_cells(excerpt):
    """Each line of excerpt as a table cell: its number, then its text, its indentation kept (no-break
    spaces: a cell trims ordinary ones), everything in it escaped."""
    cells = []
    for number, text in excerpt.lines:
        stripped = text.lstrip(" \t")
        indent = text[: len(text) - len(stripped)].replace("\t", "    ")
        cells.append(f"{number}: " + "\u00a0" * len(indent) + _md(stripped))
    return cells + (["…"] if excerpt.cut else [])


def glance(outcome, lang="en", now=None):
    """The class at a glance: who needs help first, the clauses failed most, the mutants caught
    (the chart, class.png and class.svg, draws the last two: lab/grading/class_chart.py)."""
    words = words_of("class", lang)
    steps = [step.number for step in load_course()]
    now = time.time() if now is None else now
    lines = [f"## {words('glance')}", "", f"![{words('glance')}](class.svg)", "", f"### {words('help_first')}", ""]
    graded = [s for s in outcome.submissions if not s.problem]
    for submission in sorted(graded, key=lambda s: (credit_count(s, steps), -(now - s.last_change))):
        last = words("last_change", ago=ago(now - submission.last_change, lang)) if submission.last_change else ""
        if all(r.status == CheckStatus.NOT_IMPLEMENTED for r in submission.results):
            lines.append(f"- {_md(submission.name)}: {words('never_started')}{last}")
            continue
        stuck = next((n for n in steps if not credit.earned(submission.credit.get(n, []))), None)
        if stuck is not None:
            lines.append(
                f"- {_md(submission.name)}: {words('stuck', step=stuck, cell=_md(credit_cell(submission, stuck, lang, outcome.root)))}{last}"
            )
    lines += ["", f"### {words('clauses_failed')}", ""]
    lines += [f"- {clause}: {words('learners', count=len(names))}" for clause, names in clauses_failed(outcome)] or [
        "-"
    ]
    caught = mutants_caught(outcome)
    if caught is not None:
        lines += [
            "",
            f"### {words('class_mutants')}",
            "",
            f"| {words('mutant')} | {words('step_col')} | {words('caught_by')} |",
            "|---|---|---|",
        ]
        for mutant, hits, wrote in caught:
            review = words("review_mark") if mutant.worksheet else ""
            lines.append(f"| {mutant.id}{review} | {mutant.step} | {words('k_of_n', k=hits, n=wrote)} |")
        lines += ["", words("class_caught", caught=sum(hits > 0 for _, hits, _ in caught), count=len(caught))]
    return [*lines, ""]


def clauses_failed(outcome):
    """(clause, names of the learners whose credit check fails it), the most failed first."""
    steps = [step.number for step in load_course()]
    failing = {}
    for submission in (s for s in outcome.submissions if not s.problem):
        for n in steps:
            bad = next(
                (
                    r
                    for r in submission.credit.get(n, [])
                    if r.status not in (CheckStatus.PASSED, CheckStatus.NOT_IMPLEMENTED)
                ),
                None,
            )
            for clause in credit.own_clauses(bad) if bad else []:
                failing.setdefault(clause, set()).add(submission.name)
    return sorted(failing.items(), key=lambda item: (-len(item[1]), item[0]))


def mutants_caught(outcome):
    """(mutant, learners whose prediction for its step catches it, learners with a prediction for
    its step) for every mutant; None when predictions were not run."""
    graded = [s for s in outcome.submissions if not s.problem]
    if not any(s.predictions is not None for s in graded):
        return None
    found = []
    for mutant in load_mutants():
        wrote = [
            p
            for s in graded
            for p in s.predictions or []
            if p.step == mutant.step and p.status == PredictionStatus.WRITTEN
        ]
        found.append((mutant, sum(p.caught(mutant.id) for p in wrote), len(wrote)))
    return found


def ago(seconds, lang="en"):
    """A time span as people say it: 5 min, 3 h, 2 days."""
    words = words_of("class", lang)
    if seconds < 3600:
        return words("ago_minutes", n=max(0, round(seconds / 60)))
    if seconds < 2 * 86400:
        return words("ago_hours", n=round(seconds / 3600))
    return words("ago_days", n=round(seconds / 86400))


def _md(text):
    return inert.markdown(text.replace("\n", " "))
