"""`dev new-step NAME`: the next step's folders, stub, contracts, prediction template and manifest entry.

Everything here is made from course.toml and the step's name; what only the author can write
(the contract's clauses, the reference, the checks and their rules file, the mutants, the titles
and each clause's hints) is left as a TODO, or an empty slot, that `dev check` and `make test`
point at until it is written. The files made from
course.toml are written again (lab/dev/generated.py): each names the course's steps or their
count, which has just grown; the step's rules file, checks/rules_<NN>_<function>.py, is written
with them (lab/dev/rules.py). Once the author has filled in the entry, `dev update` writes them
from it.
"""

from lab.dev.generated import update
from lab.model.course import load_course
from lab.model.implementation import STEP_FILE, UsageError

# English, then Japanese, as every shipped stub: `make language ja` puts the Japanese first (lab/model/starter.py).
STUB = '''def {function}({signature}):
    """TODO: what {function} returns, in one line.

    See CONTRACT.md (C{n}.1).

    TODO: {function} が返すものを 1 行で。

    CONTRACT.ja.md (C{n}.1) を参照。
    """
    # TODO(step {n}): replace the raise below with your implementation.
    #               下の raise を、あなたの実装に置き換えてください。
    raise NotImplementedError("step {n} is not implemented yet / ステップ {n} はまだ実装されていません")
'''
REFERENCE = '''def {function}({signature}):
    """TODO: the reference implementation of step {n}."""
    raise NotImplementedError("the reference of step {n} is not written yet")
'''
CONTRACT = {
    "en": "# Step {n} · `{function}`: TODO\n\n```python\n{function}({signature})\n```\n\n## Contract\n\n- **C{n}.1** TODO\n",
    "ja": "# ステップ {n} · `{function}`: TODO\n\n```python\n{function}({signature})\n```\n\n## 契約\n\n- **C{n}.1** TODO\n",
}
ENTRY = """
[[steps]]
dir = "{dir}"
function = "{function}"
parameters = [{parameters}]
snippet = "TODO: the broken change to review, as the worksheet quotes it"
title.en = "TODO"
title.ja = "TODO"
builds.en = "TODO"
builds.ja = "TODO"
# hints: for each clause of the contract, 1-3 questions, more specific each, never the answer
hints."C{n}.1".en = []
hints."C{n}.1".ja = []
"""


def new_step(root, name, function, parameters):
    """Write the next step of the course at root; the paths written, course.toml first."""
    course = load_course(root)
    number = len(course) + 1
    folder = f"{number:02d}-{name}"
    taken = {step.dir[3:] for step in course} | {step.function for step in course}
    if not name.replace("-", "").isalnum() or not function.isidentifier() or {name, function} & taken:
        raise UsageError(f"dev new-step: {name} ({function}) is not a new step name and function")
    values = {"n": number, "function": function, "signature": ", ".join(parameters)}
    manifest = root / "course.toml"
    entry = ENTRY.format(n=number, dir=folder, function=function, parameters=", ".join(f'"{p}"' for p in parameters))
    manifest.write_text(manifest.read_text(encoding="utf-8") + entry, encoding="utf-8")
    load_course.cache_clear()
    written = [manifest]
    files = {
        root / "steps" / folder / STEP_FILE: STUB.format(**values),
        root / "steps" / folder / "CONTRACT.md": CONTRACT["en"].format(**values),
        root / "steps" / folder / "CONTRACT.ja.md": CONTRACT["ja"].format(**values),
        root / "solutions" / folder / STEP_FILE: REFERENCE.format(**values),
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return [*written, *update(root)]
