"""Learner folders as a classroom hands them in: complete, half done, or broken in one way each.

Used by the tests of broken code, of tamper-proof grading and of class checking, and by hand to
make a class: ``.venv/bin/python tests/learner_folders.py DIR 30``.
"""

import hashlib
import shutil
import sys
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(LAB_ROOT))

from lab.model.course import load_course  # noqa: E402
from lab.model.pristine import stub_text, write_stubs  # noqa: E402

REDEFINE = {
    "claim": "def claim(path, job_id, owner, now, ttl):\n",
    "renew": "def renew(path, job_id, owner, fence, now, ttl):\n",
    "complete": "def complete(path, job_id, owner, fence, now, result):\n",
    "release": "def release(path, job_id, owner, fence):\n",
    "claim_many": "def claim_many(path, job_id, owners, now, ttl):\n",
    "state": "def state(path, job_id):\n",
    "enqueue": "def enqueue(path, job_id):\n",
}


def _body(function, body):
    return "\n\n" + REDEFINE[function] + "".join(f"    {line}\n" for line in body.strip().splitlines())


# kind -> (the step it breaks, how: "append" code, "replace" the file, or "delete" it, the text,
#          words the report must show for that step)
BROKEN = {
    "syntax_error": (5, "replace", "def renew(:\n    pass\n", ["05-renew/step.py", "line 1", "SyntaxError"]),
    "import_error": (
        3,
        "prepend",
        "import no_such_module_here\n",
        ["03-state/step.py", "line 1", "ModuleNotFoundError"],
    ),
    "raises_at_import": (
        4,
        "append",
        "\nraise RuntimeError('half-typed line')\n",
        ["04-claim/step.py", "RuntimeError", "half-typed line"],
    ),
    "misnamed_function": (4, "rename", ("def claim(", "def claim_job("), ["04-claim/step.py", "defines no `claim`"]),
    "missing_file": (6, "delete", None, ["06-complete/step.py", "is missing"]),
    "endless_loop": (5, "append", _body("renew", "while True:\n    pass"), ["did not finish within"]),
    "endless_loop_at_import": (
        2,
        "append",
        "\nwhile True:\n    pass\n",
        ["02-enqueue/step.py", "did not finish within", "top level"],
    ),
    "deadlock_in_threads": (
        8,
        "append",
        "\nimport threading\n_lock = threading.Lock()\n"
        + _body(
            "claim_many",
            "from concurrent.futures import ThreadPoolExecutor\n"
            "def grab(owner):\n    _lock.acquire()\n    _lock.acquire()\n"
            "with ThreadPoolExecutor(2) as pool:\n    return list(pool.map(grab, owners))",
        ),
        ["did not finish within"],
    ),
    "uninterruptible_hang": (
        7,
        "append",
        _body(
            "release",
            "import signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\nwhile True:\n    pass",
        ),
        # The alarm is the checks' own, in another process: blocking it in the learner's changes nothing.
        ["did not finish within", "07-release/step.py"],
    ),
    "sys_exit": (4, "append", _body("claim", "import sys\nsys.exit(3)"), ["SystemExit: 3", "04-claim/step.py"]),
    "os_exit": (
        6,
        "append",
        _body("complete", "import os\nos._exit(3)"),
        ["process running this check ended", "exit status 3"],
    ),
    "os_exit_at_import": (
        7,
        "append",
        "\nimport os\nos._exit(0)\n",
        ["07-release/step.py", "ended the process", "top level"],
    ),
    "keyboard_interrupt": (
        3,
        "append",
        _body("state", "raise KeyboardInterrupt"),
        ["KeyboardInterrupt", "03-state/step.py"],
    ),
    "crash": (
        5,
        "append",
        _body("renew", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"),
        ["process running this check ended"],
    ),
    "stdout_flood": (
        2,
        "append",
        "\n_quiet_enqueue = enqueue\n"
        + _body("enqueue", "print('x' * 1_000_000)\nreturn _quiet_enqueue(path, job_id)"),
        [],  # a flood alone is no fault: the step passes
    ),
    "database_left_locked": (
        2,
        "append",
        "\nimport sqlite3\n_held = []\n_quiet_enqueue = enqueue\n"
        + _body(
            "enqueue",
            "answer = _quiet_enqueue(path, job_id)\nconn = sqlite3.connect(path, isolation_level=None)\n"
            "conn.execute('BEGIN EXCLUSIVE')\n_held.append(conn)\nreturn answer",
        ),
        ["database stayed locked"],
    ),
}

# What a learner may ship to try to change the verdict: none of it may take part.
TAMPERING = {
    "checks/conftest.py": "import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
    "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n",
    "checks/test_01_init_db.py": "def test_everything_passes():\n    assert True\n",
    "checks/pytest.ini": "[pytest]\naddopts = -k nothing_matches\n",
    "conftest.py": "import pytest\n\ndef pytest_collection_modifyitems(items):\n    items.clear()\n",
    "pytest.ini": "[pytest]\naddopts = -p no:lab.running.recorder -k nothing_matches\n",
    "steps/conftest.py": "raise SystemExit('a conftest in steps/ ran')\n",
    "steps/pytest.ini": "[pytest]\naddopts = -x\n",
    "steps/sqlite3.py": "raise SystemExit('the learner shadowed sqlite3')\n",
    "solutions/04-claim/step.py": "def claim(*args):\n    return 1\n",
    "mutants/m4-fake.toml": "step = 4\n",
}


def make_learner(folder, kind, checkout=True):
    """A learner folder of this kind under folder; returns the path to pass as IMPL."""
    folder = Path(folder)
    steps = folder / "steps" if checkout else folder
    course = load_course()
    if kind in ("stubs", "tampering"):
        write_stubs(steps)
    else:
        shutil.copytree(LAB_ROOT / "solutions", steps, ignore=_only_step_files)
    if kind == "half_done":
        for step in course[4:]:
            (steps / step.dir / "step.py").write_text(stub_text(step), encoding="utf-8")
    if kind == "boundary_bug":
        file = steps / "04-claim" / "step.py"
        file.write_text(file.read_text().replace("row[0] > now", "row[0] >= now"))
    if kind == "tampering":
        for relative, text in TAMPERING.items():
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            (folder / relative).write_text(text)
    if kind in BROKEN:
        number, how, text, _ = BROKEN[kind]
        file = steps / course[number - 1].dir / "step.py"
        original = file.read_text()
        if how == "delete":
            file.unlink()
        elif how == "rename":
            file.write_text(original.replace(*text))
        else:
            file.write_text({"replace": text, "prepend": text + original, "append": original + text}[how])
    return steps


def _only_step_files(directory, names):
    return [n for n in names if n.startswith(".") or n == "__pycache__" or n.endswith(".md")]


def fingerprint(folder):
    """Every file under folder, with a digest of its bytes and its mode: equal before and after."""
    folder = Path(folder)
    return {
        str(path.relative_to(folder)): (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mode)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    } | {str(path.relative_to(folder)) + "/": "dir" for path in folder.rglob("*") if path.is_dir()}


KINDS = ["complete", "half_done", "stubs", "boundary_bug", "tampering", *BROKEN]


def make_class(root, count):
    """count learner folders under root, cycling through every kind; half checkouts, half steps/."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    for index in range(count):
        kind = KINDS[index % len(KINDS)]
        make_learner(root / f"learner-{index + 1:02d}-{kind}", kind, checkout=index % 2 == 0 or kind == "tampering")


if __name__ == "__main__":
    make_class(sys.argv[1], int(sys.argv[2]))
