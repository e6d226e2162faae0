"""How alike the submissions' step files are, to the reference and to each other: winnowed token
fingerprints (Schleimer, Wilkerson and Aiken, "Winnowing", SIGMOD 2003: the method of MOSS and
of copydetect).

A file is read with Python's own tokenizer; comments, blank lines and layout are dropped, every
name (variables, functions, attributes) becomes one token and every string another, so renaming
and reformatting change nothing. Every run of K tokens is hashed with a stable hash
(blake2b: the same fingerprints in every process, unlike Python's salted hash()), and in each
window of W hashes the smallest is kept. What the shipped stubs already contain is taken out, so
the template every learner starts from is no likeness. A submission's likeness to another is the
share of its fingerprints the other holds too: 1.0 when all of its code is found there up to names
and layout (a learner who copied half the reference shares 1.0 with it, too).

Why no library: pyproject.toml says (copydetect was judged).
"""

import hashlib
import io
import keyword
import tokenize
from dataclasses import dataclass

from lab.grading.unwrapping import unwrap
from lab.model.course import load_course
from lab.model.defaults import SIMILAR
from lab.model.implementation import read
from lab.model.mutants import SOLUTIONS_DIR
from lab.model.pristine import stub_text

K = 12  # tokens per fingerprinted run: about one short statement
W = 4  # a shared run of K + W - 1 tokens is always seen
THRESHOLD = SIMILAR
MIN_SIZE = 20  # fingerprints: about one step's function; less is too little code to tell
DROPPED = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}


@dataclass(frozen=True)
class Likeness:
    size: int  # the submission's own fingerprints (the stubs' taken out)
    reference: float = 0.0  # the share of them found in the reference
    closest: str = ""  # the other submission that holds the largest share of them
    closest_share: float = 0.0
    wrapped: bool = False  # it hides code in its strings, or runs code it builds (lab/grading/unwrapping.py)

    def flagged(self, threshold=THRESHOLD):
        """Worth a look side by side: enough code of its own, and most of it found elsewhere."""
        return self.size >= MIN_SIZE and max(self.reference, self.closest_share) >= threshold


def tokens(text):
    """The normalized token sequence of Python source; as far as it reads when it does not."""
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in DROPPED:
                continue
            if token.type == tokenize.NAME and not keyword.iskeyword(token.string):
                found.append("V")
            elif token.type == tokenize.STRING or token.type in _FSTRING:
                found.append("S")
            else:
                found.append(token.string)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return found


_FSTRING = {
    getattr(tokenize, name) for name in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END") if hasattr(tokenize, name)
}


def fingerprints(text):
    """The winnowed hashes of text: in every window of W consecutive K-token hashes, the smallest."""
    sequence = tokens(text)
    hashes = [
        int.from_bytes(hashlib.blake2b("\0".join(sequence[i : i + K]).encode(), digest_size=8).digest(), "big")
        for i in range(len(sequence) - K + 1)
    ]
    if len(hashes) <= W:
        return set(hashes)
    kept = set()
    for start in range(len(hashes) - W + 1):
        kept.add(min(hashes[start : start + W]))
    return kept


def submission_prints(texts):
    """The fingerprints of one submission's step files and of the code they hide in their strings,
    less what the shipped stubs contain."""
    stubs = _stub_prints()
    prints = set()
    for text in texts:
        for source in (text, *unwrap(text).payloads):
            prints |= fingerprints(source) - stubs
    return prints


def wraps_code(texts):
    return any(unwrap(text).wrapped for text in texts)


def _stub_prints():
    prints = set()
    for step in load_course():
        prints |= fingerprints(stub_text(step))
    return prints


def share(own, other):
    """The share of own's fingerprints that other holds too (0 for no fingerprints)."""
    return len(own & other) / len(own) if own else 0.0


def compare(submissions, reference, wrapped=frozenset()):
    """submissions: name -> fingerprints; reference: the reference's. Returns name -> Likeness:
    how much of each submission is found in the reference, and in which other submission most
    (ties go to the first name); wrapped: the names of those that hide or build code."""
    result = {}
    for name, own in submissions.items():
        shares = sorted((-share(own, theirs), other) for other, theirs in submissions.items() if other != name)
        closest = (shares[0][1], -shares[0][0]) if shares else ("", 0.0)
        result[name] = Likeness(
            len(own), round(share(own, reference), 2), closest[0], round(closest[1], 2), name in wrapped
        )
    return result


def of_class(submissions):
    """Set each submission's likeness (those with step files): to the reference, and to the
    others. Called while the unpacked zips are still there."""
    reference = submission_prints(f.text for f in read(SOLUTIONS_DIR).files if f.text)
    prints, wrapped = {}, set()
    for submission in (s for s in submissions if s.impl is not None):
        try:  # a file no reading can take (deeper than the stack, too large) leaves its row blank
            own = [f.text for f in read(submission.impl).files if f.text]
            prints[submission.name] = submission_prints(own)
            wrapped |= {submission.name} if wraps_code(own) else set()
        except (RecursionError, MemoryError, ValueError, OSError):
            continue
    likeness = compare(prints, reference, wrapped)
    for submission in submissions:
        submission.likeness = likeness.get(submission.name)
