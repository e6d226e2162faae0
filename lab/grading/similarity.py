"""How alike the submissions' step files are, to the reference and to each other: winnowed token
fingerprints (Schleimer, Wilkerson and Aiken, "Winnowing", SIGMOD 2003: the method of MOSS and
of copydetect), weighed against what the class writes alike, and flagged against the class's own
scores.

Each file is read as fingerprints (lab/grading/fingerprints.py): runs of K tokens with comments,
docstrings and layout dropped and names numbered in order of use, winnowed.

What every learner starts from is no likeness: every run the shipped stubs or the reference's
imports and `def` lines hold is taken out. In a class of at least SMALL_CLASS learners with enough
code (not counting those whose code, weighed all alike, is found at the fixed share elsewhere: they
make no idiom), a fingerprint that at least COMMON of them hold is the class's idiom and counts COMMON_WEIGHT
(a tenth) against 1 for the others: twelve learners who write the same textbook statement do not
look copied, while a whole copy, all of whose fingerprints weigh alike whatever they weigh, is
still found whole. A submission's likeness to another is the weighed share of its fingerprints the
other holds too: 1.0 when all of its code is found there up to names and layout.

A likeness is flagged at the fixed share (THRESHOLD, `--similar`), and also when it is an outlier
in its class: above the median of the class's shares of the same kind (found in the reference;
found in the closest classmate's) by SPREAD scaled median absolute deviations, and at least FLOOR
(Rule). A class of fewer than SMALL_CLASS learners with enough code
has no distribution to speak of: only the fixed share flags there, and the class view says so. For
each flagged pair the matched spans of the two files are kept (Pair), for the class view to show
side by side.

Why no library: pyproject.toml says (copydetect was judged).
"""

import statistics
from dataclasses import dataclass, field

from lab.grading.fingerprints import every_run, fingerprints, skeleton
from lab.grading.unwrapping import unwrap
from lab.model.course import load_course
from lab.model.defaults import SIMILAR
from lab.model.implementation import read
from lab.model.mutants import SOLUTIONS_DIR
from lab.model.pristine import stub_text

THRESHOLD = SIMILAR
MIN_SIZE = 20  # fingerprints: about one step's function; less is too little code to tell
SMALL_CLASS = 5  # learners with enough code: fewer, and the class has no distribution to flag against
COMMON = 0.5  # a fingerprint at least this share of the class holds is the class's idiom...
COMMON_WEIGHT = 0.1  # ...and counts this much, against 1 for the others
SPREAD = 3.0  # scaled median absolute deviations above the median pair score: an outlier
MAD_SCALE = 1.4826  # the MAD of a normal distribution times this is its standard deviation
FLOOR = 0.5  # an outlier also has at least half of its own code found in the other
MAX_SPANS = 3  # matched spans shown per flagged pair, the longest first
MAX_LINES = 12  # lines shown of one side of a span
MAX_WIDTH = 100  # characters shown of one line


@dataclass(frozen=True)
class Source:
    """One text that was fingerprinted: a step file, or code decoded out of one of its strings."""

    label: str  # "04-claim/step.py"
    decoded: bool
    lines: tuple


@dataclass
class Prints:
    """One submission's fingerprints, each with where it is first found: hash -> (index of the
    source, first line, last line)."""

    where: dict = field(default_factory=dict)
    places: dict = field(default_factory=dict)  # hash -> every (source, first, last) it is found at
    sources: list = field(default_factory=list)
    wrapped: bool = False  # it hides code in its strings, or runs code it builds (lab/grading/unwrapping.py)

    def __len__(self):
        return len(self.where)

    def __contains__(self, digest):
        return digest in self.where

    def __iter__(self):
        return iter(self.where)


@dataclass(frozen=True)
class Excerpt:
    """Lines of one side of a matched span, as the class view shows them."""

    label: str
    decoded: bool
    lines: tuple  # (line number, text cut to MAX_WIDTH)
    cut: bool  # the span is longer than the lines shown


@dataclass(frozen=True)
class Pair:
    """The evidence of one flagged likeness: whose code, how much of the learner's is found there,
    why it is flagged, and the matched spans side by side (the learner's, the other's)."""

    other: str  # a classmate's name, or "" for the reference
    share: float
    flag: str  # "share" or "outlier"
    spans: tuple  # (Excerpt of the learner's, Excerpt of the other's)


@dataclass(frozen=True)
class Outliers:
    """Where a class's scores of one kind sit: their median, and the line above which one is an
    outlier (the median + SPREAD scaled median absolute deviations)."""

    typical: float
    cutoff: float


def outliers(scores):
    """The Outliers of scores: median + SPREAD x 1.4826 x MAD (a robust rule: one copy, or a few,
    move neither the median nor the MAD as they would move a mean and a standard deviation)."""
    typical = statistics.median(scores)
    spread = statistics.median(abs(score - typical) for score in scores)
    return Outliers(round(typical, 4), round(typical + SPREAD * MAD_SCALE * spread, 4))


@dataclass(frozen=True)
class Rule:
    """When a likeness is flagged in this class: at the fixed share, or as an outlier among the
    class's shares of the same kind (found in the reference; found in the closest classmate's).
    reference and closest are None for a class of fewer than SMALL_CLASS learners with enough
    code: the fixed share alone flags there."""

    threshold: float = THRESHOLD
    learners: int = 0  # with at least MIN_SIZE fingerprints of their own
    reference: Outliers | None = None  # of the shares found in the reference
    closest: Outliers | None = None  # of the shares found in the closest classmate's

    def flag(self, score, size, against):
        """ "share" at or above the fixed share, "outlier" far above the class's typical score of its
        kind and at least FLOOR, or "". against: "reference" or "closest"."""
        if size < MIN_SIZE:
            return ""
        if score >= self.threshold:
            return "share"
        spread = getattr(self, against)
        if spread is not None and score > spread.cutoff and score >= FLOOR:
            return "outlier"
        return ""


def rule_of(of_reference, closest, threshold=THRESHOLD):
    """The class's Rule from the shares of its learners with enough code: each one's share found in
    the reference, and in their closest classmate's."""
    learners = len(of_reference)
    if learners < SMALL_CLASS:
        return Rule(threshold, learners)
    return Rule(threshold, learners, outliers(of_reference), outliers(closest))


@dataclass(frozen=True)
class Likeness:
    size: int  # the submission's own fingerprints (what every learner starts from taken out)
    reference: float = 0.0  # the weighed share of them found in the reference
    closest: str = ""  # the other submission that holds the largest share of them
    closest_share: float = 0.0
    wrapped: bool = False  # it hides code in its strings, or runs code it builds (lab/grading/unwrapping.py)
    reference_flag: str = ""  # Rule.flag of the share found in the reference
    closest_flag: str = ""  # Rule.flag of the share found in the closest classmate's
    evidence: tuple = ()  # Pair per flagged likeness

    def flagged(self):
        """Worth a look side by side: enough code of its own, and much of it found elsewhere."""
        return bool(self.reference_flag or self.closest_flag)


def scaffolding():
    """Every run the shipped stubs hold, and the reference's imports and `def` lines: what every
    learner starts from."""
    runs = set()
    for step in load_course():
        runs |= every_run(stub_text(step))
    for file in read(SOLUTIONS_DIR).files:
        if file.text:
            runs |= every_run(skeleton(file.text))
    return runs


def submission_prints(files, scaffold=None):
    """The fingerprints of one submission's step files and of the code they hide in their strings,
    less what every learner starts from. files: texts, or (label, text) pairs."""
    scaffold = scaffolding() if scaffold is None else scaffold
    prints = Prints()
    for index, entry in enumerate(files):
        label, text = entry if isinstance(entry, tuple) else (f"file {index + 1}", entry)
        found = unwrap(text)
        prints.wrapped |= found.wrapped
        for source, decoded in ((text, False), *((payload, True) for payload in found.payloads)):
            number = len(prints.sources)
            prints.sources.append(Source(label, decoded, tuple(source.splitlines())))
            for digest, (first, last) in fingerprints(source).items():
                if digest not in scaffold:
                    prints.where.setdefault(digest, (number, first, last))
                    prints.places.setdefault(digest, []).append((number, first, last))
    return prints


def wraps_code(texts):
    return any(unwrap(text).wrapped for text in texts)


def common_weights(class_prints):
    """hash -> COMMON_WEIGHT for the fingerprints at least COMMON of the class's learners hold (a
    class of at least SMALL_CLASS of them: a smaller one has no idioms to tell). class_prints: the
    learners with enough code, less those whose code is found whole elsewhere (compare)."""
    if len(class_prints) < SMALL_CLASS:
        return {}
    held = {}
    for prints in class_prints.values():
        for digest in prints:
            held[digest] = held.get(digest, 0) + 1
    return {digest: COMMON_WEIGHT for digest, count in held.items() if count >= COMMON * len(class_prints)}


def _near_copy(name, sized, reference, threshold):
    """Whether name's code, weighed all alike, is found at the fixed share in the reference or in a
    classmate's: such a learner's code makes no idiom of the class's (else a class where many
    handed in the reference would discount the reference itself)."""
    own = sized[name]
    return any(share(own, other) >= threshold for other in (reference, *(p for n, p in sized.items() if n != name)))


def share(own, other, weights=None):
    """The weighed share of own's fingerprints that other holds too (0 for no fingerprints)."""
    weights = weights or {}
    total = sum(weights.get(digest, 1.0) for digest in own)
    return sum(weights.get(digest, 1.0) for digest in own if digest in other) / total if total else 0.0


def compare(submissions, reference, threshold=THRESHOLD):
    """submissions: name -> Prints; reference: the reference's. Returns (name -> Likeness, Rule):
    how much of each submission is found in the reference, and in which other submission most (ties
    go to the first name), each flagged by the class's Rule, with the evidence of each flag."""
    sized = {name: own for name, own in submissions.items() if len(own) >= MIN_SIZE}
    weights = common_weights(
        {name: own for name, own in sized.items() if not _near_copy(name, sized, reference, threshold)}
    )
    scores = {
        name: {other: round(share(own, theirs, weights), 2) for other, theirs in submissions.items() if other != name}
        for name, own in submissions.items()
    }
    of_reference = {name: round(share(own, reference, weights), 2) for name, own in submissions.items()}
    closest = {}
    for name in submissions:
        ranked = sorted((-score, other) for other, score in scores[name].items())
        closest[name] = (ranked[0][1], -ranked[0][0]) if ranked else ("", 0.0)
    rule = rule_of([of_reference[name] for name in sized], [closest[name][1] for name in sized], threshold)
    result = {}
    for name, own in submissions.items():
        mate, mate_share = closest[name]
        flags = (
            rule.flag(of_reference[name], len(own), "reference"),
            rule.flag(mate_share, len(own), "closest") if mate else "",
        )
        evidence = tuple(
            Pair(other, score, flag, spans(own, theirs, weights))
            for other, theirs, score, flag in (
                ("", reference, of_reference[name], flags[0]),
                (mate, submissions.get(mate), mate_share, flags[1]),
            )
            if flag
        )
        result[name] = Likeness(len(own), of_reference[name], mate, mate_share, own.wrapped, *flags, evidence)
    return result, rule


def spans(own, other, weights=None):
    """The matched spans of own and other, the longest first (at most MAX_SPANS): runs of shared
    fingerprints on neighbouring lines, each with the lines it covers in both. Fingerprints the
    class writes alike are left out when others are shared."""
    weights = weights or {}
    shared = [digest for digest in own if digest in other]
    shared = [digest for digest in shared if digest not in weights] or shared
    groups = {}
    for digest in shared:
        source, first, last = own.where[digest]
        label = own.sources[source].label  # the other's place in a file of the same name, if it has one
        theirs, their_first, their_last = next(
            (place for place in other.places[digest] if other.sources[place[0]].label == label), other.where[digest]
        )
        groups.setdefault((source, theirs), []).append((first, last, their_first, their_last))
    found = []
    for (source, theirs), ranges in groups.items():
        current = None
        for first, last, their_first, their_last in sorted(ranges):
            if current and first <= current[1] + 1:
                current = [
                    current[0],
                    max(current[1], last),
                    min(current[2], their_first),
                    max(current[3], their_last),
                    current[4] + 1,
                ]
                continue
            if current:
                found.append((source, theirs, *current))
            current = [first, last, their_first, their_last, 1]
        found.append((source, theirs, *current))
    found.sort(key=lambda span: (-span[-1], span[0], span[2]))
    return tuple(
        (_excerpt(own, source, first, last), _excerpt(other, theirs, their_first, their_last))
        for source, theirs, first, last, their_first, their_last, _ in found[:MAX_SPANS]
    )


def _excerpt(prints, index, first, last):
    source = prints.sources[index]
    shown = range(first, min(last, first + MAX_LINES - 1) + 1)
    lines = tuple(
        (n, text[:MAX_WIDTH] + ("…" if len(text) > MAX_WIDTH else ""))
        for n in shown
        if 0 < n <= len(source.lines)
        for text in [source.lines[n - 1]]
    )
    return Excerpt(source.label, source.decoded, lines, last - first + 1 > MAX_LINES)


def _files(implementation):
    """(label, text) of each step file read: its step folder and name, 04-claim/step.py."""
    return [(f"{f.path.parent.name}/{f.path.name}", f.text) for f in implementation.files if f.text]


def of_class(submissions, threshold=THRESHOLD):
    """Set each submission's likeness (those with step files): to the reference, and to the
    others. Called while the unpacked zips are still there. Returns the class's Rule."""
    scaffold = scaffolding()
    reference = submission_prints(_files(read(SOLUTIONS_DIR)), scaffold)
    prints = {}
    for submission in (s for s in submissions if s.impl is not None):
        try:  # a file no reading can take (deeper than the stack, too large) leaves its row blank
            prints[submission.name] = submission_prints(_files(read(submission.impl)), scaffold)
        except (RecursionError, MemoryError, ValueError, OSError):
            continue
    likeness, rule = compare(prints, reference, threshold)
    for submission in submissions:
        submission.likeness = likeness.get(submission.name)
    return rule
