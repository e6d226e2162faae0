"""The human report of a check run, in English or Japanese, rendered with rich."""

from rich.console import Console
from rich.markup import escape

from lab.model.course import LAB_ROOT, load_course
from lab.learner.completion import completion_lines
from lab.learner.diff import marked
from lab.text.messages import words_of
from lab.model.status import CheckStatus

# How the report shows each status of a check: its mark and its colour.
MARKS = {
    CheckStatus.PASSED: ("✔", "green"), CheckStatus.FAILED: ("✘", "red"), CheckStatus.ERROR: ("✘", "red"),
    CheckStatus.NOT_IMPLEMENTED: ("…", "yellow"), CheckStatus.TIMEOUT: ("⏱", "red"), CheckStatus.CRASHED: ("💥", "red"),
}


def span(steps):
    return f"{steps[0]}-{steps[-1]}" if len(steps) > 1 else str(steps[0])


def render(outcome, lang="en", console=None, verbose=False):
    """verbose: every check of every step; otherwise a passing step is one line."""
    console = console or Console(highlight=False, soft_wrap=True)
    words = words_of("report", lang)
    course = load_course()
    heading = words("heading_steps" if len(outcome.steps) > 1 else "heading", steps=span(outcome.steps), impl=outcome.impl)
    console.print(f"[bold]{escape(heading)}[/]")
    for number in outcome.steps:
        step = course[number - 1]
        clauses = step.clauses(lang)
        heading = escape(words("step", n=number, function=step.function, title=step.title[lang]))
        console.print()
        console.print(f"[bold]{heading}[/]")
        _render_checks(console, words, step, outcome.step_results(number), clauses, outcome.impl, lang, verbose)
        verdicts = [v for v in outcome.verdicts if v.mutant.step == number]
        if verdicts and _folded(outcome, number, verdicts, verbose):
            console.print(f"  [green]✔[/] {escape(words('mutants_folded', count=len(verdicts)))}")
            prediction = next((p for p in outcome.predictions if p.step == number), None)
            _render_prediction(console, words, prediction, verdicts, outcome.strict)
        elif verdicts:
            console.print(f"  [bold]{escape(words('mutants', n=number))}[/]")
            if outcome.kill_matrix_cached:
                console.print(f"  [dim]{escape(words('cached'))}[/]")
            prediction = next((p for p in outcome.predictions if p.step == number), None)
            _render_prediction(console, words, prediction, verdicts, outcome.strict)
            # No spoilers: the change and the checks that catch it wait for the learner's own attempt.
            reveal = outcome.show_all or outcome.step_passes(number) or bool(prediction and prediction.written)
            if not reveal:
                file = prediction.file if prediction and prediction.file else f"{step.dir}/prediction.py"
                console.print(f"  [dim]{escape(words('hidden', n=number, file=file))}[/]")
            for verdict in verdicts:
                _render_mutant(console, words, verdict, clauses, lang, prediction, reveal)
    _render_summary(console, words, outcome, lang, verbose)


def _folded(outcome, number, verdicts, verbose):
    """In a run over several steps' mutants (make check), a passing step whose mutants are all
    caught is one line; make check-step N always shows its own mutants in full."""
    several = len({v.mutant.step for v in outcome.verdicts}) > 1
    return several and not verbose and outcome.step_passes(number) and not any(v.survived for v in verdicts)


def _render_checks(console, words, step, results, clauses, impl, lang="en", verbose=True):
    waiting = [r for r in results if r.status == CheckStatus.NOT_IMPLEMENTED]
    if results and len(waiting) == len(results):
        file = impl if impl.endswith(".py") else f"{impl}/{step.dir}/step.py"
        console.print(f"  [yellow]… {escape(words('not_implemented', file=file, count=len(waiting)))}[/]")
        return
    if results and not verbose and all(r.status == CheckStatus.PASSED for r in results):
        console.print(f"  [green]✔[/] {escape(words('folded', count=len(results)))}")
        return
    if len(results) > 1 and len({(r.status, r.message) for r in results}) == 1 and results[0].status != CheckStatus.PASSED:
        # One cause for every check of the step (a file that does not load): say it once.
        first = results[0]
        mark, style = MARKS[first.status]
        console.print(f"  [{style}]{mark}[/] {escape(words('all_checks', count=len(results)))}")
        for line in first.message.splitlines():
            console.print(f"      {escape(line)}")
        return
    for result in results:
        mark, style = MARKS[result.status]
        console.print(f"  [{style}]{mark}[/] {' '.join(result.clauses)}  {result.check}")
        if result.status != CheckStatus.PASSED:
            for line in marked(result.message, lang):
                console.print(f"      {escape(line)}")
            for clause in result.clauses:
                if clause in clauses:
                    console.print(f"      [dim]{clause}: {escape(clauses[clause])}[/]")


def _render_prediction(console, words, prediction, verdicts, strict):
    """What the learner's prediction did against the reference and these mutants."""
    if prediction is None or not prediction.file:
        return
    if prediction.status == "no_prediction":
        console.print(f"  [yellow]{escape(words('prediction_none', file=prediction.file))}[/]")
    elif prediction.status == "rejects_correct_code":
        console.print(f"  [red]{escape(words('prediction_rejects', file=prediction.file))}[/]")
        for line in prediction.message.splitlines():
            console.print(f"      {escape(line)}")
    else:
        snippet = prediction.catches_the_snippet([v.mutant for v in verdicts])
        tail = words("prediction_snippet_caught" if snippet else "prediction_snippet_missed")
        heading = words("prediction_heading", file=prediction.file, caught=prediction.caught_count, count=len(prediction.outcomes), tail=tail)
        console.print(f"  [{'green' if snippet else 'yellow'}]{escape(heading)}[/]")
    if strict and not prediction.catches_the_snippet([v.mutant for v in verdicts]):
        console.print(f"  [red bold]{escape(words('strict_fails'))}[/]")


def _render_mutant(console, words, verdict, clauses, lang, prediction=None, reveal=True):
    mutant = verdict.mutant
    flag = f"  ({words('worksheet')})" if mutant.worksheet else ""
    if not reveal:
        console.print(f"    • {mutant.id}{escape(flag)}")
        console.print(f"        {words('breaks')} {mutant.clause}: {escape(clauses.get(mutant.clause, ''))}")
        console.print(f"        [dim]{escape(mutant.why[lang])}[/]")
        return
    label = f"[red bold]{words('survived')}[/]" if verdict.survived else f"[green]{words('caught')}[/]"
    console.print(f"    {label}  {mutant.id}{escape(flag)}")
    console.print(f"        [red]- {escape(mutant.find)}[/]")
    console.print(f"        [green]+ {escape(mutant.replace)}[/]")
    console.print(f"        {words('breaks')} {mutant.clause}: {escape(clauses.get(mutant.clause, ''))}")
    console.print(f"        [dim]{escape(mutant.why[lang])}[/]")
    if verdict.survived:
        console.print(f"        [red bold]{escape(words('survived_note'))}[/]")
    else:
        console.print(f"        {words('caught_by')}: {', '.join(verdict.killed_by)}")
    if prediction and prediction.status == "written":
        caught = prediction.caught(mutant.id)
        console.print(f"        [{'green' if caught else 'yellow'}]{words('prediction_caught' if caught else 'prediction_missed')}[/]")
    if verdict.passed_by:
        console.print(f"        [dim]{words('still_passes')}: {', '.join(verdict.passed_by)}[/]")


def _render_summary(console, words, outcome, lang, verbose=True):
    console.print()
    failing = [n for n in outcome.steps if not outcome.step_passes(n)]
    for number in outcome.steps:
        results = outcome.step_results(number)
        passed = sum(r.status == CheckStatus.PASSED for r in results)
        if number not in failing:
            console.print(f"[green]✔ {escape(words('passes', n=number, count=len(results)))}[/]")
        else:
            console.print(f"[red]✘ {escape(words('fails', n=number, passed=passed, count=len(results)))}[/]")
    if not failing:
        console.print(f"[green bold]{escape(words('all_pass', steps=span(outcome.steps)))}[/]")
        _render_completion(console, outcome, lang)
    else:
        console.print(f"\n[bold]{escape(words('next', n=failing[0]))}[/]")
    if outcome.lab_problems or any(v.survived for v in outcome.verdicts):
        console.print(f"\n[red bold]{escape(words('lab_broken'))}[/]")
        for problem in outcome.lab_problems:
            console.print(f"  {escape(problem)}")
        for verdict in outcome.verdicts:
            if verdict.survived:
                console.print(f"  {words('survived')}: {verdict.mutant.id}")


def _render_completion(console, outcome, lang):
    """After the learner's own steps/ pass all eight steps: the end of the course."""
    steps_dir = LAB_ROOT / "steps"
    if len(outcome.steps) != len(load_course()) or (LAB_ROOT / outcome.impl).resolve() != steps_dir.resolve():
        return
    console.print()
    for line in completion_lines(steps_dir, lang, LAB_ROOT):
        console.print(f"[bold]{escape(line)}[/]")
