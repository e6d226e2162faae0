"""The human report of a check run, in English or Japanese, rendered with rich.

A step's mutants are shown in three phases (docs/learner.md, "Predict, implement, compare"), so that no
text answers the question the contract asks before the learner has answered it:

- *before the compare phase* (no prediction written, or the step does not pass yet): each mutant
  is a neutral label (`4-a`, `4-b`, ...) with the clause it breaks; once a prediction is written,
  whether it runs on the reference and which labels it catches. No change, no reason, no id.
- *the compare phase* (a prediction written and every check of the step passes; or an
  implementation without prediction files, such as solutions/, whose step passes): each mutant's
  change, why it breaks its clause, the checks that catch it, those it still passes, and the
  prediction's verdict beside them; then where the learner's function differs from the reference.
  Once seen, later runs fold it to one line (`seen`), unless VERBOSE=1 or SHOW=mutants.
- `SHOW=all` shows everything at once (instructors).

The rule is lab/reporters/phases.py's, which the files a run writes follow too.
"""

import functools

from rich.console import Console
from rich.markup import escape

from lab.model.course import load_course
from lab.model.failing import failing_clauses
from lab.model.results import CheckStatus, PredictionStatus
from lab.reporters.change import change_lines
from lab.reporters.diff import marked
from lab.reporters.phases import compare_phase, labels, prediction_of
from lab.reporters.yours import differences
from lab.text.messages import words_of

# How the report shows each status of a check: its mark and its colour.
MARKS = {
    CheckStatus.PASSED: ("✔", "green"),
    CheckStatus.FAILED: ("✘", "red"),
    CheckStatus.ERROR: ("✘", "red"),
    CheckStatus.NOT_IMPLEMENTED: ("…", "yellow"),
    CheckStatus.TIMEOUT: ("⏱", "red"),
    CheckStatus.CRASHED: ("💥", "red"),
}
CHANGE_STYLES = {"-": "red", "+": "green", " ": "dim"}  # a mutant's removed, added and kept lines
WIDTH = 78  # the label lines are wrapped here: the report fits an 80-column terminal


def span(steps):
    return f"{steps[0]}-{steps[-1]}" if len(steps) > 1 else str(steps[0])


def spans(steps):
    """'1-3, 5': the steps as runs of consecutive numbers."""
    runs = []
    for step in sorted(set(steps)):
        if runs and runs[-1][-1] == step - 1:
            runs[-1].append(step)
        else:
            runs.append([step])
    return ", ".join(span(run) for run in runs)


def render(outcome, lang="en", console=None, verbose=False, expand=False, seen=None, yours=None, closing=()):
    """verbose: every check of every step; otherwise a passing step is one line.
    expand (SHOW=mutants): a compare phase seen before is shown in full again.
    seen: the learner's memory of the compare phases already shown (lab.learner.compared), or None.
    yours: the folder of the code checked, to show where its functions differ from the reference.
    closing: the lines that end the course (lab.learner.completion), shown when every step passes."""
    console = console or Console(highlight=False, soft_wrap=True)
    words = words_of("report", lang)
    course = load_course()
    named = labels(v.mutant for v in outcome.verdicts)
    heading = words(
        "heading_steps" if len(outcome.steps) > 1 else "heading", steps=span(outcome.steps), impl=outcome.impl
    )
    console.print(f"[bold]{escape(heading)}[/]")
    for number in outcome.steps:
        step = course[number - 1]
        clauses = step.clauses(lang)
        title = words("step", n=number, function=step.function, title=step.title[lang])
        results = outcome.step_results(number)
        verdicts = [v for v in outcome.verdicts if v.mutant.step == number]
        folded = results and not verbose and all(r.status == CheckStatus.PASSED for r in results)
        if folded:  # a passing step is one line
            console.print(f"[green]✔[/] [bold]{escape(title)}[/]: {escape(words('folded', count=len(results)))}")
        else:
            console.print()
            console.print(f"[bold]{escape(title)}[/]")
        prediction = prediction_of(outcome, number)
        mutants = functools.partial(
            _render_mutants,
            console,
            words,
            outcome,
            number,
            step,
            verdicts,
            clauses,
            lang,
            prediction,
            verbose,
            expand,
            seen,
            named,
            yours,
        )
        if verdicts and not folded:  # the mutants before the checks: the first failure ends the screen
            mutants()
        if not folded:
            _render_checks(console, words, step, results, clauses, outcome.impl, lang, verbose)
        elif verdicts:  # a passing step's one line, then its mutants
            mutants()
    _render_summary(console, words, outcome, lang, named, seen, closing)


def _render_mutants(
    console, words, outcome, number, step, verdicts, clauses, lang, prediction, verbose, expand, seen, named, yours
):
    several = len({v.mutant.step for v in outcome.verdicts}) > 1
    if not compare_phase(outcome, number):
        _render_labels(console, words, outcome, number, step, verdicts, clauses, lang, prediction, verbose, named)
        return
    key = seen.key(step) if seen else None
    caught_all = not any(v.survived for v in verdicts)
    folded = not verbose and not expand and caught_all and (several or (seen is not None and seen.shown(number, key)))
    if folded:
        console.print(f"  [green]✔[/] {escape(_folded_line(words, number, verdicts, prediction))}")
        _render_prediction(console, words, prediction, verdicts, outcome.strict, lang, brief=True)
        return
    console.print(f"  [bold]{escape(words('mutants', n=number))}[/]")
    if outcome.kill_matrix_cached:
        console.print(f"  [dim]{escape(words('cached'))}[/]")
    _render_prediction(console, words, prediction, verdicts, outcome.strict, lang)
    for verdict in verdicts:
        _render_mutant(console, words, verdict, clauses, lang, prediction, named)
    if yours is not None:
        _render_yours(console, words, yours, step)
    if seen is not None:
        seen.remember(number, key)


def _folded_line(words, number, verdicts, prediction):
    caught = sum(not v.survived for v in verdicts)
    line = words("compare_folded", n=number, caught=caught, count=len(verdicts))
    if prediction and prediction.status == PredictionStatus.WRITTEN:
        tail = words(
            "prediction_snippet_caught"
            if prediction.catches_the_snippet([v.mutant for v in verdicts])
            else "prediction_snippet_missed"
        )
        line += words("compare_folded_prediction", caught=prediction.caught_count, count=len(verdicts), tail=tail)
    return line + words("compare_folded_more")


def _render_labels(console, words, outcome, number, step, verdicts, clauses, lang, prediction, verbose, named):
    """Before the compare phase: each mutant as a neutral label and the clause it breaks, with
    the prediction's verdict once there is one; nothing of the change itself."""
    console.print(f"  [bold]{escape(words('labels_heading', n=number, count=len(verdicts)))}[/]")
    _render_prediction(console, words, prediction, verdicts, outcome.strict, lang)
    written = prediction is not None and prediction.status == PredictionStatus.WRITTEN
    cells = []
    for verdict in verdicts:
        mutant = verdict.mutant
        cell = f"{named[mutant.id]} {mutant.clause}"
        if mutant.worksheet:
            cell += f" ({words('worksheet')})"
        if written:
            cell += f" {words('caught') if prediction.caught(mutant.id) else words('missed')}"
        cells.append(cell)
    if verbose:
        for cell, verdict in zip(cells, verdicts):
            console.print(f"    • {escape(cell)}")
            console.print(f"        [dim]{verdict.mutant.clause}: {escape(clauses.get(verdict.mutant.clause, ''))}[/]")
    else:
        for line in _wrapped(cells, "   ", "  ", width=80):  # eight labels in two rows of an 80-column screen
            console.print(escape(line))
    file = prediction.file if prediction and prediction.file else f"{step.dir}/prediction.py"
    key = "hidden" if prediction is not None and prediction.file and not prediction.written else "hidden_until_passing"
    console.print(f"  [dim]{escape(words(key, n=number, file=file))}[/]")


def _wrapped(cells, indent, joiner, width=WIDTH):
    lines, line = [], ""
    for cell in cells:
        candidate = f"{line}{joiner}{cell}" if line else cell
        if line and len(indent) + _columns(candidate) > width:
            lines.append(indent + line)
            candidate = cell
        line = candidate
    return lines + ([indent + line] if line else [])


def _columns(text):
    """Terminal columns: a Japanese character takes two."""
    return sum(2 if ord(char) > 0x2E7F else 1 for char in text)


def _render_checks(console, words, step, results, clauses, impl, lang="en", verbose=True):
    waiting = [r for r in results if r.status == CheckStatus.NOT_IMPLEMENTED]
    if results and len(waiting) == len(results):
        file = impl if impl.endswith(".py") else f"{impl}/{step.dir}/step.py"
        console.print(f"  [yellow]… {escape(words('not_implemented', file=file, count=len(waiting)))}[/]")
        return
    if (
        len(results) > 1
        and len({(r.status, r.message) for r in results}) == 1
        and results[0].status != CheckStatus.PASSED
    ):
        # One cause for every check of the step (a file that does not load): say it once.
        first = results[0]
        mark, style = MARKS[first.status]
        console.print(f"  [{style}]{mark}[/] {escape(words('all_checks', count=len(results)))}")
        for line in first.said(lang).splitlines():
            console.print(f"      {escape(line)}")
        return
    # The passing checks first, on one line unless verbose: the failures end the step.
    passing = [r for r in results if r.status == CheckStatus.PASSED]
    failing = [r for r in results if r.status != CheckStatus.PASSED]
    if passing and not verbose:
        console.print(f"  [green]✔[/] {escape(words('passing_count', passed=len(passing), count=len(results)))}")
    for result in results if verbose else failing:
        mark, style = MARKS[result.status]
        console.print(f"  [{style}]{mark}[/] {' '.join(result.clauses)}  {result.check}")
        if result.status != CheckStatus.PASSED:
            for line in marked(result.message, lang):
                console.print(f"      {escape(line)}")
            for clause in result.clauses:
                if clause in clauses:
                    console.print(f"      [dim]{clause}: {escape(clauses[clause])}[/]")


def _render_prediction(console, words, prediction, verdicts, strict, lang="en", brief=False):
    """What the learner's prediction did against the reference and these mutants."""
    if prediction is None or not prediction.file:
        return
    if prediction.status == PredictionStatus.NO_PREDICTION:
        console.print(f"  [yellow]{escape(words('prediction_none', file=prediction.file))}[/]")
    elif prediction.status in (PredictionStatus.REJECTS, PredictionStatus.CANNOT_RUN):
        key = "prediction_rejects" if prediction.status == PredictionStatus.REJECTS else "prediction_cannot_run"
        console.print(f"  [red]{escape(words(key, file=prediction.file))}[/]")
        for line in prediction.said(lang).splitlines():
            console.print(f"      {escape(line)}")
    elif not prediction.complete:
        console.print(f"  [yellow]{escape(words('prediction_not_judged', file=prediction.file))}[/]")
        console.print(f"      {escape(prediction.said(lang))}")
    elif not brief:
        snippet = prediction.catches_the_snippet([v.mutant for v in verdicts])
        tail = words("prediction_snippet_caught" if snippet else "prediction_snippet_missed")
        heading = words("prediction_heading", caught=prediction.caught_count, count=len(prediction.outcomes), tail=tail)
        console.print(f"  [{'green' if snippet else 'yellow'}]{escape(heading)}[/]")
    if strict and not prediction.catches_the_snippet([v.mutant for v in verdicts]):
        console.print(f"  [red bold]{escape(words('strict_fails'))}[/]")


def _render_mutant(console, words, verdict, clauses, lang, prediction, named):
    mutant = verdict.mutant
    flag = f"  ({words('worksheet')})" if mutant.worksheet else ""
    label = f"[red bold]{words('survived')}[/]" if verdict.survived else f"[green]{words('caught')}[/]"
    console.print(f"    {label}  {named[mutant.id]} · {mutant.id}{escape(flag)}")
    for sign, line in change_lines(mutant.find, mutant.replace):  # indented as in the file
        console.print(f"        [{CHANGE_STYLES[sign]}]{sign} {escape(line)}[/]")
    console.print(f"        {words('breaks')} {mutant.clause}: {escape(clauses.get(mutant.clause, ''))}")
    console.print(f"        [dim]{escape(mutant.why[lang])}[/]")
    if verdict.survived:
        console.print(f"        [red bold]{escape(words('survived_note'))}[/]")
    else:
        console.print(f"        {words('caught_by')}: {', '.join(verdict.killed_by)}")
    if prediction and prediction.status == PredictionStatus.WRITTEN:
        caught = prediction.caught(mutant.id)
        console.print(
            f"        [{'green' if caught else 'yellow'}]{words('prediction_caught' if caught else 'prediction_missed')}[/]"
        )
    if verdict.passed_by:
        console.print(f"        [dim]{words('still_passes')}: {', '.join(verdict.passed_by)}[/]")


def _render_yours(console, words, folder, step):
    """In the compare phase: where the learner's function differs from the reference's, if it does."""
    found = differences(folder, step)
    if not found:
        return
    file, lines, more = found
    console.print(f"  [bold]{escape(words('yours_heading', file=file))}[/]")
    for line in lines:
        style = "red" if line.startswith("-") else "green" if line.startswith("+") else "dim"
        console.print(f"    [{style}]{escape(line)}[/]")
    if more:
        console.print(f"    [dim]{escape(words('yours_more', count=more))}[/]")


def _render_reused(console, words, results):
    """One line, when some of the learner's checks were not run this time: unchanged since they last ran."""
    reused = [r for r in results if r.reused]
    if reused:
        steps, ran = spans([r.step for r in reused]), len(results) - len(reused)
        console.print(f"[dim]{escape(words('reused', steps=steps, count=len(reused), ran=ran))}[/]")


def _render_summary(console, words, outcome, lang, named, seen, closing):
    _render_reused(console, words, outcome.results)
    failing = [n for n in outcome.steps if not outcome.step_passes(n)]
    if not failing:
        console.print()
        console.print(f"[green bold]{escape(words('all_pass', steps=span(outcome.steps)))}[/]")
        if closing:
            console.print()
        for line in closing:
            console.print(f"[bold]{escape(line)}[/]")
    else:
        for number in failing:
            results = outcome.step_results(number)
            passed = sum(r.status == CheckStatus.PASSED for r in results)
            console.print(f"[red]✘ {escape(words('fails', n=number, passed=passed, count=len(results)))}[/]")
        clause = next(iter(failing_clauses(outcome.results, failing[0])), None)
        line = words("next_clause", n=failing[0], clause=clause) if clause else words("next", n=failing[0])
        console.print(f"[bold]{escape(line)}[/]")
    if outcome.lab_problems or any(v.survived for v in outcome.verdicts):
        console.print(f"\n[red bold]{escape(words('lab_broken'))}[/]")
        for problem in outcome.lab_problems:
            console.print(f"  {escape(problem)}")
        for verdict in outcome.verdicts:
            if verdict.survived:
                shown = verdict.mutant.id if compare_phase(outcome, verdict.mutant.step) else named[verdict.mutant.id]
                console.print(f"  {words('survived')}: {shown}")
