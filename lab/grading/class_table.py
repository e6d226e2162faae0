"""The class table's words: one cell per learner and step (the verdict, its credit, the time,
the likeness and the predictions), the table of them and a learner's one-line summary."""

from lab.grading import credit, feedback, similarity, standing, unpack
from lab.grading.roster import is_missing
from lab.model.course import load_course
from lab.model.mutants import load_mutants
from lab.model.results import CheckStatus, PredictionStatus
from lab.text.messages import words_of


def cell(results, lang="en", root=None, own_step=False):
    """One learner's verdict on one step: 'passed', 'failed at C4.5', 'error: …'.

    Paths in messages are shown relative to the class folder root: 'cho/05-renew/step.py'.
    own_step: a credit's cell, which names only clauses of its own step."""
    words = words_of("class", lang)
    if not results:
        return words("missing")
    if all(r.status == CheckStatus.PASSED for r in results):
        return words(CheckStatus.PASSED)
    first = next((r for r in results if r.status not in (CheckStatus.PASSED, CheckStatus.NOT_IMPLEMENTED)), None)
    if first is None:  # not implemented, in whole or in part (a branch still raises NotImplementedError)
        return words(CheckStatus.NOT_IMPLEMENTED)
    if (
        first.status == CheckStatus.TIMEOUT
        and first.duration == 0.0
        and getattr(first.message, "key", None) == "budget"
    ):
        return words("budget_used")  # never run: the learner's BUDGET ran out, not their code
    if first.status == CheckStatus.ERROR:
        message = first.said(lang).splitlines()[0] if first.message else ""
        message = unpack.shown(message.replace(f"{root}/", "") if root else message)
        for folder in feedback.RUNTIME:  # where Python is installed on the grading machine
            message = message.replace(folder, "…")
        return words("error", message=message[:160] + ("…" if len(message) > 160 else ""))
    clauses = credit.own_clauses(first) if own_step else first.clauses
    return words(CheckStatus(first.status), clause=" ".join(clauses) or first.check)


def credit_cell(submission, number, lang="en", root=None):
    return cell(submission.credit.get(number, []), lang, root, own_step=True)


def credit_count(submission, steps):
    return sum(credit.earned(submission.credit.get(n, [])) for n in steps)


def time_cell(submission, lang="en"):
    words = words_of("class", lang)
    text = words("seconds", seconds=submission.seconds)
    if submission.cached:
        text += words("cached")
    return text + (words("budget_note") if submission.budget_used else "")


def table(outcome, lang="en"):
    """Rows learner × step (the header first), and the one-line summary of each learner: the
    course's verdict per step, then the credit, the time, the predictions and the summary."""
    words = words_of("class", lang)
    steps = [step.number for step in load_course()]
    header = [
        words("learner"),
        *(words("step", n=n) for n in steps),
        words("credit"),
        words("time"),
        words("similarity"),
        words("predictions"),
        words("summary"),
    ]
    rows = [header]
    for submission in outcome.submissions:
        line = summary_line(submission, steps, lang, outcome.root)
        if submission.problem:
            cell_of_step = (
                words("not_handed_in") if is_missing(submission) else words("error", message=submission.problem)
            )
            cells = [cell_of_step] * len(steps)
            earned = ""
        else:
            cells = [cell([r for r in submission.results if r.step == n], lang, outcome.root) for n in steps]
            earned = words("credit_cell", earned=credit_count(submission, steps), steps=len(steps))
        rows.append(
            [
                submission.name,
                *cells,
                earned,
                time_cell(submission, lang),
                likeness_cell(submission, outcome.rule or similarity.Rule(outcome.similar), lang),
                prediction_cell(submission, lang),
                line,
            ]
        )
    return rows


def likeness_cell(submission, rule, lang="en"):
    """How much of the learner's own code is found in the reference and in the closest classmate's,
    and why it is flagged (rule: the class's similarity.Rule)."""
    words = words_of("class", lang)
    likeness = submission.likeness
    if likeness is None:
        return ""
    wrapped = words("sim_wrapped") if likeness.wrapped else ""
    if likeness.size < similarity.MIN_SIZE:
        return words("sim_small", size=likeness.size) + wrapped
    text = words("sim_cell", reference=likeness.reference, closest=likeness.closest, share=likeness.closest_share)
    return text + flag_note(likeness, rule, lang) + wrapped


def flag_note(likeness, rule, lang="en"):
    """Why a likeness is flagged: at the fixed share, or far above the class's typical score."""
    words = words_of("class", lang)
    flags = {"reference": likeness.reference_flag, "closest": likeness.closest_flag}
    if "share" in flags.values():
        return words("sim_flag", threshold=rule.threshold)
    kind = next((kind for kind, flag in flags.items() if flag == "outlier"), None)
    if kind is None or getattr(rule, kind) is None:
        return ""
    return words("sim_outlier", typical=getattr(rule, kind).typical)


def prediction_cell(submission, lang="en"):
    """What the learner's predictions catch, scored against the mutants of the steps they
    predicted (a prediction that rejects correct code, or could not run, catches none; one not
    judged counts in neither number): no prediction, never started, or per step k of its n
    mutants, with the broken change to review marked."""
    words = words_of("class", lang)
    if submission.predictions is None:
        return words("not_run")
    written = [p for p in submission.predictions if p.written]
    if not written:
        started = any(r.status != CheckStatus.NOT_IMPLEMENTED for r in submission.results)
        return words("no_prediction" if started else "never_started")
    every_mutant = load_mutants()
    parts, caught, count = [], 0, 0
    for prediction in written:
        own = [m for m in every_mutant if m.step == prediction.step]
        if not prediction.complete:
            parts.append(words("pred_not_judged", step=prediction.step))
            continue
        if prediction.status in (PredictionStatus.REJECTS, PredictionStatus.CANNOT_RUN):
            parts.append(
                words("pred_rejects", step=prediction.step)
                if prediction.status == PredictionStatus.REJECTS
                else words("pred_cannot_run", step=prediction.step, reason=why_not_run(prediction, lang))
            )
            count += len(own)
            continue
        hits = sum(prediction.caught(m.id) for m in own)
        caught, count = caught + hits, count + len(own)
        part = words("pred_step", step=prediction.step, caught=hits, count=len(own))
        if hits == 0:
            part += words("pred_nothing")
        elif prediction.catches_the_snippet(every_mutant):
            part += words("pred_review")
        parts.append(part)
    return words("pred_total", caught=caught, count=count, steps="; ".join(parts))


REASON_LENGTH = 100  # characters of why a prediction could not run, in a cell of the table


def why_not_run(prediction, lang="en"):
    """Why a prediction could not run, briefly: the last line of what its run said (pytest's last
    line of a SyntaxError or of an exception at import: "NameError: name 'x' is not defined")."""
    lines = [line.strip() for line in prediction.said(lang).splitlines() if line.strip()]
    last = lines[-1].removeprefix("E ").strip() if lines else ""
    return last if len(last) <= REASON_LENGTH else last[: REASON_LENGTH - 1] + "…"


def summary_line(submission, steps, lang="en", root=None):
    words = words_of("class", lang)
    if is_missing(submission):
        return f"{submission.name}: {submission.problem}"
    if submission.problem:
        return f"{submission.name}: {words('error', message=submission.problem)}" + standing.note(submission, lang)
    by_step = {n: [r for r in submission.results if r.step == n] for n in steps}
    passed = [n for n in steps if by_step[n] and all(r.status == CheckStatus.PASSED for r in by_step[n])]
    failing = next((n for n in steps if n not in passed), None)
    first = words("first", step=failing, cell=cell(by_step[failing], lang, root)) if failing else ""
    return (
        words(
            "line",
            name=submission.name,
            passed=len(passed),
            steps=len(steps),
            first=first,
            checks=len(submission.results),
            checks_passed=sum(r.status == CheckStatus.PASSED for r in submission.results),
        )
        + words("line_credit", earned=credit_count(submission, steps), steps=len(steps))
        + standing.note(submission, lang)
    )
