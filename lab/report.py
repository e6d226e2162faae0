"""The human report of a check run, in English or Japanese, rendered with rich."""

from rich.console import Console
from rich.markup import escape

from lab.course import LAB_ROOT, load_course
from lab.learner.completion import completion_lines
from lab.learner.diff import marked

WORDS = {
    "en": {
        "heading": "Lease and fencing-token lab: checking step{s} {steps} of {impl}",
        "step": "Step {n} · {function}: {title}",
        "not_implemented": "not implemented yet: {file} still raises NotImplementedError ({count} checks wait for it)",
        "mutants": "Mutants of step {n}: the reference with one change that breaks the contract",
        "mutants_folded": "its {count} mutants are all caught (VERBOSE=1 shows each one and the checks that catch it)",
        "cached": "(their results are reused from build/kill-matrix/: the checks, reference and mutants have not changed)",
        "caught": "caught",
        "survived": "SURVIVED",
        "worksheet": "the broken change to review",
        "prediction_caught": "your prediction: caught",
        "prediction_missed": "your prediction: missed",
        "prediction_heading": "Your prediction ({file}) catches {caught} of {count} mutants, {tail}",
        "prediction_snippet_caught": "the broken change to review among them",
        "prediction_snippet_missed": "but not the broken change to review",
        "prediction_rejects": "Your prediction ({file}) rejects correct code: it fails on the reference, so it cannot tell a broken version apart:",
        "prediction_none": "No prediction yet: write test_my_prediction in {file}; it runs against the reference and these mutants, never against your code",
        "hidden": "Until step {n} passes or {file} holds your prediction, only what each mutant breaks is shown (SHOW=all shows everything)",
        "strict_fails": "STRICT=1: this prediction does not catch the broken change to review (exit status 1)",
        "breaks": "breaks",
        "caught_by": "caught by",
        "still_passes": "still passes",
        "survived_note": "no check catches this mutant: the lab itself has a gap (exit status 3)",
        "passes": "step {n} passes ({count} checks)",
        "fails": "step {n}: {passed} of {count} checks pass",
        "all_pass": "All checks of step(s) {steps} pass.",
        "next": "Stuck on step {n}? `make hint {n}` asks one question at a time.",
        "folded": "all {count} checks pass",
        "all_checks": "all {count} checks of this step:",
        "lab_broken": "The lab itself is broken:",
        "status": {"passed": "✔", "failed": "✘", "error": "✘", "not_implemented": "…", "timeout": "⏱", "crashed": "💥"},
    },
    "ja": {
        "heading": "リースと fencing token のラボ: {impl} のステップ {steps} を検査",
        "step": "ステップ {n} · {function}: {title}",
        "not_implemented": "まだ実装されていません: {file} が NotImplementedError を送出しています ({count} 件の検査が待機中)",
        "mutants": "ステップ {n} のミュータント: 契約を破る変更を 1 か所だけ加えた参照実装",
        "mutants_folded": "{count} 件のミュータントをすべて検出 (VERBOSE=1 で 1 件ずつと、検出した検査を表示)",
        "cached": "(結果は build/kill-matrix/ から再利用: 検査・参照実装・ミュータントは変わっていません)",
        "caught": "検出",
        "survived": "生存",
        "worksheet": "レビューする誤った変更",
        "prediction_caught": "あなたの予想: 検出",
        "prediction_missed": "あなたの予想: 見逃し",
        "prediction_heading": "あなたの予想 ({file}) は {count} 件中 {caught} 件のミュータントを検出。{tail}",
        "prediction_snippet_caught": "レビューする誤った変更も検出しています",
        "prediction_snippet_missed": "ただしレビューする誤った変更は見逃しています",
        "prediction_rejects": "あなたの予想 ({file}) は正しいコードを拒否します。参照実装で失敗するので、誤った版と見分けられません:",
        "prediction_none": "まだ予想がありません: {file} に test_my_prediction を書いてください。参照実装とこれらのミュータントに対して実行され、あなたのコードには実行されません",
        "hidden": "ステップ {n} が合格するか {file} に予想を書くまで、各ミュータントが破る契約だけを示します (SHOW=all ですべて表示)",
        "strict_fails": "STRICT=1: この予想はレビューする誤った変更を検出していません (終了コード 1)",
        "breaks": "破る契約",
        "caught_by": "検出した検査",
        "still_passes": "通ってしまう検査",
        "survived_note": "どの検査もこのミュータントを検出しません。ラボ自体の欠陥です (終了コード 3)",
        "passes": "ステップ {n} は合格 ({count} 件)",
        "fails": "ステップ {n}: {count} 件中 {passed} 件が合格",
        "all_pass": "ステップ {steps} のすべての検査に合格しました。",
        "next": "ステップ {n} で行き詰まったら、`make hint {n}` が 1 つずつ問いかけます。",
        "folded": "{count} 件すべて合格",
        "all_checks": "このステップの {count} 件すべての検査:",
        "lab_broken": "ラボ自体に問題があります:",
        "status": {"passed": "✔", "failed": "✘", "error": "✘", "not_implemented": "…", "timeout": "⏱", "crashed": "💥"},
    },
}
STYLES = {"passed": "green", "failed": "red", "error": "red", "not_implemented": "yellow", "timeout": "red", "crashed": "red"}


def span(steps):
    return f"{steps[0]}-{steps[-1]}" if len(steps) > 1 else str(steps[0])


def render(outcome, lang="en", console=None, verbose=False):
    """verbose: every check of every step; otherwise a passing step is one line."""
    console = console or Console(highlight=False, soft_wrap=True)
    words = WORDS[lang]
    course = load_course()
    plural = "s" if len(outcome.steps) > 1 else ""
    console.print(f"[bold]{escape(words['heading'].format(s=plural, steps=span(outcome.steps), impl=outcome.impl))}[/]")
    for number in outcome.steps:
        step = course[number - 1]
        clauses = step.clauses(lang)
        heading = escape(words["step"].format(n=number, function=step.function, title=step.title[lang]))
        console.print()
        console.print(f"[bold]{heading}[/]")
        _render_checks(console, words, step, outcome.step_results(number), clauses, outcome.impl, lang, verbose)
        verdicts = [v for v in outcome.verdicts if v.mutant.step == number]
        if verdicts and _folded(outcome, number, verdicts, verbose):
            console.print(f"  [green]✔[/] {escape(words['mutants_folded'].format(count=len(verdicts)))}")
            prediction = next((p for p in outcome.predictions if p.step == number), None)
            _render_prediction(console, words, prediction, verdicts, outcome.strict)
        elif verdicts:
            console.print(f"  [bold]{escape(words['mutants'].format(n=number))}[/]")
            if outcome.kill_matrix_cached:
                console.print(f"  [dim]{escape(words['cached'])}[/]")
            prediction = next((p for p in outcome.predictions if p.step == number), None)
            _render_prediction(console, words, prediction, verdicts, outcome.strict)
            # No spoilers: the change and the checks that catch it wait for the learner's own attempt.
            reveal = outcome.show_all or outcome.step_passes(number) or bool(prediction and prediction.written)
            if not reveal:
                file = prediction.file if prediction and prediction.file else f"{step.dir}/prediction.py"
                console.print(f"  [dim]{escape(words['hidden'].format(n=number, file=file))}[/]")
            for verdict in verdicts:
                _render_mutant(console, words, verdict, clauses, lang, prediction, reveal)
    _render_summary(console, words, outcome, lang, verbose)


def _folded(outcome, number, verdicts, verbose):
    """In a run over several steps' mutants (make check), a passing step whose mutants are all
    caught is one line; make check-step N always shows its own mutants in full."""
    several = len({v.mutant.step for v in outcome.verdicts}) > 1
    return several and not verbose and outcome.step_passes(number) and not any(v.survived for v in verdicts)


def _render_checks(console, words, step, results, clauses, impl, lang="en", verbose=True):
    waiting = [r for r in results if r.status == "not_implemented"]
    if results and len(waiting) == len(results):
        file = impl if impl.endswith(".py") else f"{impl}/{step.dir}/step.py"
        console.print(f"  [yellow]… {escape(words['not_implemented'].format(file=file, count=len(waiting)))}[/]")
        return
    if results and not verbose and all(r.status == "passed" for r in results):
        console.print(f"  [green]✔[/] {escape(words['folded'].format(count=len(results)))}")
        return
    if len(results) > 1 and len({(r.status, r.message) for r in results}) == 1 and results[0].status != "passed":
        # One cause for every check of the step (a file that does not load): say it once.
        first = results[0]
        console.print(f"  [{STYLES[first.status]}]{words['status'][first.status]}[/] {escape(words['all_checks'].format(count=len(results)))}")
        for line in first.message.splitlines():
            console.print(f"      {escape(line)}")
        return
    for result in results:
        mark = words["status"][result.status]
        style = STYLES[result.status]
        console.print(f"  [{style}]{mark}[/] {' '.join(result.clauses)}  {result.check}")
        if result.status != "passed":
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
        console.print(f"  [yellow]{escape(words['prediction_none'].format(file=prediction.file))}[/]")
    elif prediction.status == "rejects_correct_code":
        console.print(f"  [red]{escape(words['prediction_rejects'].format(file=prediction.file))}[/]")
        for line in prediction.message.splitlines():
            console.print(f"      {escape(line)}")
    else:
        snippet = prediction.catches_the_snippet([v.mutant for v in verdicts])
        tail = words["prediction_snippet_caught" if snippet else "prediction_snippet_missed"]
        heading = words["prediction_heading"].format(file=prediction.file, caught=prediction.caught_count, count=len(prediction.outcomes), tail=tail)
        console.print(f"  [{'green' if snippet else 'yellow'}]{escape(heading)}[/]")
    if strict and not prediction.catches_the_snippet([v.mutant for v in verdicts]):
        console.print(f"  [red bold]{escape(words['strict_fails'])}[/]")


def _render_mutant(console, words, verdict, clauses, lang, prediction=None, reveal=True):
    mutant = verdict.mutant
    flag = f"  ({words['worksheet']})" if mutant.worksheet else ""
    if not reveal:
        console.print(f"    • {mutant.id}{escape(flag)}")
        console.print(f"        {words['breaks']} {mutant.clause}: {escape(clauses.get(mutant.clause, ''))}")
        console.print(f"        [dim]{escape(mutant.why[lang])}[/]")
        return
    label = f"[red bold]{words['survived']}[/]" if verdict.survived else f"[green]{words['caught']}[/]"
    console.print(f"    {label}  {mutant.id}{escape(flag)}")
    console.print(f"        [red]- {escape(mutant.find)}[/]")
    console.print(f"        [green]+ {escape(mutant.replace)}[/]")
    console.print(f"        {words['breaks']} {mutant.clause}: {escape(clauses.get(mutant.clause, ''))}")
    console.print(f"        [dim]{escape(mutant.why[lang])}[/]")
    if verdict.survived:
        console.print(f"        [red bold]{escape(words['survived_note'])}[/]")
    else:
        console.print(f"        {words['caught_by']}: {', '.join(verdict.killed_by)}")
    if prediction and prediction.status == "written":
        caught = prediction.caught(mutant.id)
        console.print(f"        [{'green' if caught else 'yellow'}]{words['prediction_caught' if caught else 'prediction_missed']}[/]")
    if verdict.passed_by:
        console.print(f"        [dim]{words['still_passes']}: {', '.join(verdict.passed_by)}[/]")


def _render_summary(console, words, outcome, lang, verbose=True):
    console.print()
    failing = [n for n in outcome.steps if not outcome.step_passes(n)]
    for number in outcome.steps:
        results = outcome.step_results(number)
        passed = sum(r.status == "passed" for r in results)
        if number not in failing:
            console.print(f"[green]✔ {escape(words['passes'].format(n=number, count=len(results)))}[/]")
        else:
            console.print(f"[red]✘ {escape(words['fails'].format(n=number, passed=passed, count=len(results)))}[/]")
    if not failing:
        console.print(f"[green bold]{escape(words['all_pass'].format(steps=span(outcome.steps)))}[/]")
        _render_completion(console, outcome, lang)
    else:
        console.print(f"\n[bold]{escape(words['next'].format(n=failing[0]))}[/]")
    if outcome.lab_problems or any(v.survived for v in outcome.verdicts):
        console.print(f"\n[red bold]{escape(words['lab_broken'])}[/]")
        for problem in outcome.lab_problems:
            console.print(f"  {escape(problem)}")
        for verdict in outcome.verdicts:
            if verdict.survived:
                console.print(f"  {words['survived']}: {verdict.mutant.id}")


def _render_completion(console, outcome, lang):
    """After the learner's own steps/ pass all eight steps: the end of the course."""
    steps_dir = LAB_ROOT / "steps"
    if len(outcome.steps) != len(load_course()) or (LAB_ROOT / outcome.impl).resolve() != steps_dir.resolve():
        return
    console.print()
    for line in completion_lines(steps_dir, lang, LAB_ROOT):
        console.print(f"[bold]{escape(line)}[/]")
