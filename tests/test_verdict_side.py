"""The verdict side holds when learner code attacks what the grader shares with it
(docs/instructor.md, "What the grader guarantees"): the checks' own process, its files, its scratch
folder, the channel, and the prediction files. Each attack is a kind, run beside an honest control
where it needs one.

Where bubblewrap cannot make a sandbox, the tests of the sandbox itself are not run: the lab
then grades nothing (check-class refuses), and .ci/run installs bubblewrap.
"""

import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import asdict
from pathlib import Path

import attack_submissions as attacks
import pytest
from hang import HANGS_AFTER

import lab.grading.classroom as classroom
from lab.clock import Deadline
from lab.grading import kill_matrix, predictions
from lab.grading.submission import find_submissions
from lab.model.checks import checks_of
from lab.model.course import LAB_ROOT, load_course
from lab.model.implementation import MAX_FILE, assemble, load, read
from lab.model.mutants import SOLUTIONS_DIR, load_mutants
from lab.model.prediction_file import PREDICTION_FILE
from lab.model.results import PredictionOutcome, PredictionStatus
from lab.model.targets import Plan, Target, implementation_of
from lab.running import prediction_plugin
from lab.running.runner import _check_files, _probed, _seen_by_child, run
from lab.sandbox import channel, confinement, integrity

STEP_1 = load_course()[0]
STEP_4 = load_course()[3]
sandboxed = pytest.mark.skipif(not confinement.available(), reason="bubblewrap cannot make a sandbox here")


def in_verdict_sandbox(code, readable=()):
    """Run python code as the checks run: in the verdict sandbox, with -I, from its working folder."""
    script = Path(os.environ.get("TMPDIR", "/tmp")) / f"lease-lab-probe-{os.getpid()}-{threading.get_ident()}.py"
    script.write_text(code, encoding="utf-8")
    try:
        sandbox = confinement.verdict_sandbox(script, _seen_by_child([], [*readable]))
        done = subprocess.run(
            [*sandbox, sys.executable, "-I", "-B", confinement.PLAN_INSIDE],
            capture_output=True,
            text=True,
            timeout=HANGS_AFTER,
            check=False,
        )
    finally:
        script.unlink()
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def stub_that(top_level):
    """A one-file implementation: `top_level` runs when it loads, every function is a stub."""
    functions = "".join(f"\ndef {step.function}(*args):\n    raise NotImplementedError\n" for step in load_course())
    return f"import os\n{top_level}\n{functions}"


@sandboxed
def test_the_checks_import_nothing_from_a_folder_a_learner_process_can_write():
    found = in_verdict_sandbox(
        "import json, os, sys\n"
        "paths = [p or os.getcwd() for p in sys.path]\n"
        "print(json.dumps({'cwd': os.getcwd(), 'uid': os.getuid(), 'writable': [p for p in paths if os.access(p, os.W_OK)],"
        " 'lab_writable': os.access(sys.argv[0], os.W_OK) or os.access(os.path.dirname(__import__('lab').__file__), os.W_OK)}))\n"
    )
    assert found["cwd"] == confinement.HOME_INSIDE and found["uid"] == 65534
    assert found["writable"] == [] and not found["lab_writable"]


@sandboxed
def test_the_scratch_folder_is_bounded_by_the_kernel_not_by_the_host_memory():
    found = in_verdict_sandbox(
        "import json, os\n"
        f"written, block = 0, b'x' * (1 << 20)\n"
        "for n in range(1000):\n"
        f"    try:\n"
        f"        with open(os.path.join({confinement.SCRATCH_INSIDE!r}, f'f{{n}}'), 'wb') as f:\n"
        "            for _ in range(32):\n"
        "                f.write(block); f.flush(); written += len(block)\n"
        "    except OSError as error:\n"
        "        print(json.dumps({'written': written, 'errno': error.errno})); break\n"
        "else:\n"
        "    print(json.dumps({'written': written, 'errno': None}))\n"
    )
    assert found["errno"] is not None and found["written"] <= confinement.SCRATCH_QUOTA


def test_a_package_written_into_the_learners_working_folder_never_reaches_the_checks(tmp_path):
    """The attack: `-m` put the working folder first on sys.path, and a stub planted lab/ there."""
    planted = (
        "for folder in ('lab', 'lab/running'):\n"
        "    os.makedirs(folder, exist_ok=True)\n"
        "    open(os.path.join(folder, '__init__.py'), 'w').write('')\n"
        "open('lab/running/child.py', 'w').write('import os; os._exit(0)')\n"
    )
    (tmp_path / "lease.py").write_text(stub_that(planted), encoding="utf-8")
    results = run([Target("stub", (1,), impl=str(tmp_path / "lease.py"))], time_limit=10)
    assert results and all(r.status == "not_implemented" for r in results), [(r.check, r.status) for r in results]


def test_a_link_planted_where_a_database_was_is_refused_not_followed(tmp_path):
    """The learner's init_db replaces its database by a link to a file of the checks' side."""
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched", encoding="utf-8")
    code = f"import sqlite3\ndef init_db(path):\n    os.remove(path)\n    os.symlink({str(victim)!r}, path)\n"
    functions = "".join(f"\ndef {step.function}(*args):\n    raise NotImplementedError\n" for step in load_course()[1:])
    (tmp_path / "lease.py").write_text(f"import os\n{code}{functions}", encoding="utf-8")
    results = run([Target("links", (1,), impl=str(tmp_path / "lease.py"))], time_limit=10)
    assert results and not any(r.status == "passed" for r in results)
    assert victim.read_text(encoding="utf-8") == "untouched"


# After the reference's text: every function that writes does so on a copy of the database, which
# then replaces the file the path names. The old file keeps what it held before the call.
WRITES_ON_A_COPY = """
import os as _os, shutil as _shutil


def _on_a_copy(function):
    def call(path, *args):
        copy = path + ".next"
        _shutil.copyfile(path, copy)
        try:
            return function(copy, *args)
        finally:
            _os.replace(copy, path)

    return call


for _name in ("enqueue", "claim", "renew", "complete", "release"):
    globals()[_name] = _on_a_copy(globals()[_name])
"""


def test_a_database_replaced_by_a_new_file_at_each_write_is_read_as_its_path_names_it(tmp_path):
    """Code whose writes put a new file in the database's place is judged by that new file: the
    checks read the file the path names at each moment, never one a connection opened earlier."""
    (tmp_path / "lease.py").write_text(assemble(read(LAB_ROOT / "solutions")) + WRITES_ON_A_COPY, encoding="utf-8")
    # Steps 2-7: step 1's generated check calls init_db alone, which this code leaves as it is,
    # and claim_many's claims at once would race on the copies.
    steps = tuple(range(2, len(load_course())))
    generated = tuple(check for step in steps for check in checks_of(step) if "_random_" in check)
    results = run([Target("copies", steps, impl=str(tmp_path / "lease.py"), checks=generated)], time_limit=10)
    assert sorted(r.check for r in results) == sorted(generated)
    assert all(r.status == "passed" for r in results), [(r.check, r.said("en")) for r in results if not r.passed]


def reply_line(ident, size=0):
    return (json.dumps({"id": ident, "value": "x" * size}) + "\n").encode()


class Replies:
    """A stand-in for a learner process's stdout: the lines it is given, then the end."""

    def __init__(self, lines):
        self.stdout = io.BytesIO(b"".join(lines))
        self.stdin = io.BytesIO()
        self.returncode = 0
        self.pid = -1

    def poll(self):
        return 0

    def wait(self, timeout=None):
        return 0

    def end(self):
        pass


def channel_reading(lines, asked=()):
    """A LearnerProcess whose replies are `lines`, with the requests `asked` sent first."""
    process = channel.LearnerProcess.__new__(channel.LearnerProcess)
    process.popen = Replies(lines)
    process.replies, process.lost, process.awaited, process.held = {}, None, set(asked), 0
    process.arrived, process.on_event = threading.Condition(), None
    process.ending = threading.RLock()
    process._read()
    return process


def test_replies_to_requests_never_made_are_dropped_and_held_replies_are_capped():
    flood = [reply_line(1000 + n, size=(1 << 20) - 100) for n in range(40)]
    process = channel_reading([*flood, reply_line(7)], asked={7})
    assert list(process.replies) == [7] and process.held < 100
    capped = channel_reading([reply_line(n, size=(1 << 20) - 100) for n in range(8)], asked=set(range(8)))
    assert capped.lost.reason == "flood" and capped.held <= channel.MAX_HELD


def test_a_reply_whose_id_is_not_a_number_garbles_the_channel():
    process = channel_reading([b'{"id": [1], "value": 1}\n'], asked={1})
    assert process.lost.reason == "garbled"


def test_a_hidden_class_folder_gets_a_row_saying_why_it_is_not_graded(tmp_path):
    shutil.copytree(LAB_ROOT / "solutions", tmp_path / ".ann" / "steps")
    shutil.copytree(LAB_ROOT / "solutions", tmp_path / "bob" / "steps")
    found = {s.name: s for s in find_submissions(tmp_path)}
    assert set(found) == {".ann", "bob"}
    assert found[".ann"].impl is None and found[".ann"].problem == "class.hidden" and found["bob"].impl is not None


def steps_with_prediction(folder, write):
    shutil.copytree(LAB_ROOT / "solutions", folder)
    write(folder / STEP_4.dir / PREDICTION_FILE)
    return folder


@pytest.mark.parametrize(
    "kind",
    ["link", "linked-folder", "fifo", "too-big"],
)
@pytest.mark.usefixtures("cache_entries_added_only")
def test_a_prediction_file_gets_every_protection_a_step_file_has(tmp_path, kind):
    secret = tmp_path / "secret.py"
    secret.write_text("SECRET = 'host file'\ndef test_my_prediction(lease, db):\n    pass\n", encoding="utf-8")
    folder = tmp_path / "steps"
    shutil.copytree(LAB_ROOT / "solutions", folder)
    target = folder / STEP_4.dir / PREDICTION_FILE
    target.unlink(missing_ok=True)
    if kind == "link":
        target.symlink_to(secret)
    elif kind == "linked-folder":
        shutil.rmtree(folder / STEP_4.dir)
        (tmp_path / "elsewhere").mkdir()
        shutil.copy(secret, tmp_path / "elsewhere" / PREDICTION_FILE)
        (folder / STEP_4.dir).symlink_to(tmp_path / "elsewhere")
    elif kind == "fifo":
        os.mkfifo(target)
    else:
        target.write_text("def test_my_prediction(lease, db):\n    pass\n" + "#" * MAX_FILE, encoding="utf-8")
    (found,) = predictions.run_predictions(folder, (4,), time_limit=10, use_cache=False)
    assert found.status == PredictionStatus.CANNOT_RUN and found.caught_count == 0
    assert "host file" not in found.said("en") and found.message


@pytest.mark.usefixtures("cache_entries_added_only")
def test_a_prediction_with_more_tests_than_the_cap_is_refused_whole(tmp_path):
    tests = "".join(
        f"def test_{n}(lease, db):\n    assert lease.init_db(db) is None\n\n"
        for n in range(prediction_plugin.MAX_TESTS + 1)
    )
    folder = steps_with_prediction(tmp_path / "steps", lambda path: path.write_text(tests, encoding="utf-8"))
    (found,) = predictions.run_predictions(folder, (4,), time_limit=10, use_cache=False)
    assert found.status == PredictionStatus.CANNOT_RUN and str(prediction_plugin.MAX_TESTS) in found.said("en")


# A prediction that sleeps far past the budget (but within its time limit), so that only the budget
# can stop it; the budget is ten times what starting the prediction's run takes on a quiet machine,
# so that a loaded one still starts it within the budget: at 3 s, one beside busy workers had not
# collected the prediction yet (no_prediction, not not_judged).
SLOW_BUDGET, SLOW_PREDICTION, SLOW_TIME_LIMIT = 10, 90, 120


@pytest.mark.usefixtures("cache_entries_added_only")
def test_predictions_count_in_the_learners_budget(tmp_path):
    slow = f"import time\n\ndef test_my_prediction(lease, db):\n    time.sleep({SLOW_PREDICTION})\n"
    folder = steps_with_prediction(tmp_path / "steps", lambda path: path.write_text(slow, encoding="utf-8"))
    began = time.monotonic()
    (found,) = predictions.run_predictions(
        folder,
        (4,),
        time_limit=SLOW_TIME_LIMIT,
        use_cache=False,
        budget=SLOW_BUDGET,
        deadline=Deadline(SLOW_BUDGET, began),
    )
    assert time.monotonic() - began < SLOW_PREDICTION / 2  # stopped by the budget, long before the sleep ends
    # Cut short, it gave no verdict: not judged, neither wrong (as "rejects correct code" said) nor right.
    assert found.status == PredictionStatus.NOT_JUDGED and found.caught_count == 0
    assert "time budget of 10 s" in found.said("en")


SEES_ONLY_BEHAVIOUR = """
import json, os
from lab.model.course import LAB_ROOT


def test_by_its_id(lease, db, request):  # passed on the reference, failed on a mutant, if ids told
    assert not request.node.callspec.id.startswith("m")


def test_by_the_lab_files(lease, db):
    assert not (LAB_ROOT / "solutions").exists() and not (LAB_ROOT / "mutants").exists()
    assert not (LAB_ROOT / "steps").exists() and not (LAB_ROOT / "reports").exists()


def test_by_the_plan(lease, db):
    with open(os.environ["LEASE_LAB_PLAN"]) as plan:
        targets = json.load(plan)["targets"]
    assert all(t["impl"] is None and t["mutant"] is None and t["module_file"] is None for t in targets)


def test_by_where_it_raised(lease, db):
    try:
        lease.claim(db, "job", "A", 0, 0)
    except Exception as error:
        assert getattr(error, "lab_where", None) is None
"""


@pytest.mark.usefixtures("cache_entries_added_only")
def test_a_prediction_sees_its_targets_only_through_their_behaviour(tmp_path):
    """The attack: one line, `assert request.node.callspec.id.startswith("solutions")`, caught
    every mutant; a prediction could also read the reference, the plan or a traceback's file."""
    folder = steps_with_prediction(
        tmp_path / "steps", lambda path: path.write_text(SEES_ONLY_BEHAVIOUR, encoding="utf-8")
    )
    (found,) = predictions.run_predictions(folder, (4,), time_limit=10, use_cache=False)
    assert found.status == PredictionStatus.WRITTEN, found.message
    assert found.outcomes and found.caught_count == 0


HONEST = {  # step -> an honest prediction, beside the dishonest ones of the same learner
    1: """
def test_my_prediction(lease, db):
    lease.enqueue(db, "job")
    lease.init_db(db)
    assert lease.state(db, "job") is not None
""",
    2: """
def test_my_prediction(lease, db):
    assert lease.enqueue(db, "job") is True
    assert lease.claim(db, "job", "A", now=0, ttl=10) == 1
    assert lease.enqueue(db, "job") is False
    assert lease.state(db, "job")["owner"] == "A"
""",
    3: """
def test_my_prediction(lease, db):
    assert lease.state(db, "nope") is None
""",
}


def verdict_here(text, target, folder):
    """Whether the prediction passes against target run here, the target loaded by the lab's own
    loader: the verdict it must get, found without the predictions' processes."""
    namespace = {}
    exec(compile(text, "prediction.py", "exec"), namespace)
    db = tempfile.mkdtemp(dir=folder) + "/jobs.db"
    with sqlite3.connect(db) as conn:
        conn.execute(prediction_plugin._conftest.SCHEMA)  # the table the `db` fixture makes
    try:
        namespace["test_my_prediction"](load(implementation_of(target)).module, db)
    except Exception:  # noqa: BLE001 - anything the test raises fails it, as in pytest
        return False
    return True


@sandboxed
@pytest.mark.usefixtures("cache_entries_added_only")
def test_a_prediction_is_judged_against_its_target_and_compares_it_with_no_other(tmp_path):
    """The dishonest predictions of tests/attack_submissions.py, in steps 4-8 of one learner: each
    fails on whichever target answers unlike most of the others it can reach (by another target's
    label in the link's requests, descriptors of other processes, a thread started at import, a
    module global, files and shared memory, a daemon). Where the targets could be compared, they
    caught most mutants; judged against one target at a time, each catches nothing, as a
    prediction that knows nothing. The honest predictions of steps 1-3, in the same run, get
    exactly the verdicts they get here, run against each target by the lab's own loader."""
    folder = tmp_path / "steps"
    shutil.copytree(LAB_ROOT / "solutions", folder)
    for step in load_course():
        dishonest = attacks.PREDICTION_ATTACKS.get(step.number)
        text = attacks.PREDICTION_LIBRARY + dishonest if dishonest else HONEST[step.number]
        (folder / step.dir / PREDICTION_FILE).write_text(text, encoding="utf-8")
    steps = [step.number for step in load_course()]
    found = predictions.run_predictions(folder, steps, time_limit=60, use_cache=False)
    for prediction in found:
        own = [m.id for m in load_mutants() if m.step == prediction.step]
        assert prediction.status == PredictionStatus.WRITTEN, (prediction.step, prediction.said("en"))
        if prediction.step in attacks.PREDICTION_ATTACKS:
            assert prediction.outcomes == dict.fromkeys(own, PredictionOutcome.MISSED), prediction.step
            continue
        text, step = HONEST[prediction.step], (prediction.step,)
        assert verdict_here(text, Target(f"solutions-{prediction.step}", step, impl=str(SOLUTIONS_DIR)), tmp_path)
        expected = {
            m: PredictionOutcome.MISSED
            if verdict_here(text, Target(m, step, mutant=m), tmp_path)
            else PredictionOutcome.CAUGHT
            for m in own
        }
        assert prediction.outcomes == expected and prediction.caught_count >= 1, prediction.step


FORGES_MEETINGS = '''
import os

def _forge():
    """What a dishonest claim_many could send to look concurrent: an `enter` event on every
    descriptor that might be the channel."""
    for fd in range(3, 64):
        try:
            os.write(fd, b'{"event": "enter", "call": 0}\\n')
        except OSError:
            pass

def claim_many(path, job_id, owners, now, ttl):
    _forge()
    stand_in = globals()["claim"]
    results = []
    for owner in owners:  # one after the other: the race the lab is about never happens
        results.append(stand_in(path, job_id, owner, now, ttl))
    return results
'''


def test_claims_made_one_after_the_other_are_never_counted_as_meeting_whatever_they_send(tmp_path):
    """The attack: one forged `enter` on the channel passed sequential claims (C8.3)."""
    impl = tmp_path / "steps"
    shutil.copytree(LAB_ROOT / "solutions", impl)
    step_file = impl / load_course()[7].dir / "step.py"
    step_file.write_text(step_file.read_text(encoding="utf-8") + FORGES_MEETINGS, encoding="utf-8")
    results = run([Target("forger", (8,), impl=str(impl))], time_limit=10)
    at_once = [r for r in results if r.check == "test_claim_many_runs_the_claims_at_the_same_time"]
    assert at_once and at_once[0].status != "passed"


AUDITED = """
import json, os, sys
SCRATCH = sys.argv[1]
OUT = os.dup(2)  # the child sends its own stderr to /dev/null while a check runs, and ends with os._exit

def hook(event, args):
    if event in ("open", "sqlite3.connect", "os.mkdir", "os.symlink", "os.rename", "shutil.rmtree") and args and isinstance(args[0], str):
        if os.path.abspath(args[0]).startswith(SCRATCH):
            os.write(OUT, (json.dumps([event, args[0]]) + "\\n").encode())

sys.addaudithook(hook)
import runpy
sys.path.insert(0, sys.argv[2])
name = sys.argv[3]
del sys.argv[1:4]
try:
    runpy.run_module(name, run_name="__main__", alter_sys=True)
except SystemExit:
    pass
"""


@sandboxed
def test_the_checks_open_nothing_in_the_scratch_folder_but_the_databases_they_made(tmp_path):
    """Every path the checks' process opens where a learner process can write: only databases in
    folders the checks made (support.open_db looks at them first), and the claims' socket."""
    target = _probed(
        Target("honest", (2, 8), impl=str(LAB_ROOT / "solutions")),
        Plan([], None, [], 10.0, confinement.SCRATCH_INSIDE, True),
    )
    plan = Plan([asdict(target)], None, [], 10.0, confinement.SCRATCH_INSIDE, True)
    plan_path = tmp_path / "plan.json"
    plan.dump(plan_path)
    reading, writing = os.pipe()
    command = [
        *confinement.verdict_sandbox(plan_path, _seen_by_child([target], [])),
        sys.executable,
        "-I",
        "-B",
        "-c",
        AUDITED,
        confinement.SCRATCH_INSIDE,
        str(LAB_ROOT),
        "lab.running.child",
        confinement.PLAN_INSIDE,
        str(writing),
        *_check_files([target]),
    ]
    done = subprocess.run(
        command, pass_fds=(writing,), capture_output=True, text=True, timeout=HANGS_AFTER, check=False
    )
    os.close(writing)
    events = os.read(reading, 1 << 22).decode()
    os.close(reading)
    assert '"status": "passed"' in events and '"status": "failed"' not in events, events[-2000:]
    seen = [json.loads(line) for line in done.stderr.splitlines() if line.startswith('["')]
    made = {path for event, path in seen if event == "os.mkdir"}
    assert seen and made
    for event, path in seen:
        assert event in ("os.mkdir", "sqlite3.connect", "open") or path.endswith("/claims"), (event, path)
        if event == "open":
            assert path.endswith("/claims") or os.path.dirname(path) in made, (event, path)
        if event == "sqlite3.connect":
            assert os.path.dirname(path) in made and path.endswith("/jobs.db"), (event, path)


CATCHES_THE_SNIPPET = """
def test_my_prediction(lease, db):
    lease.enqueue(db, "job")
    assert lease.claim(db, "job", "A", now=0, ttl=10) == 1
    assert lease.claim(db, "job", "B", now=10, ttl=5) == 2  # at now == until the lease has expired
"""

READS_A_CLASSMATE = '''
import glob, os


def test_my_prediction(lease, db, request):
    """Looks for the class folder, a classmate's prediction and the earlier class reports."""
    here = os.path.dirname(str(request.node.path))
    seen = [p for pattern in ("/work/*/class*/*/steps/*/prediction.py", here + "/../../*/steps/*/prediction.py", "/tmp/**/class.csv")
            for p in glob.glob(pattern, recursive=True)]
    assert not seen, seen  # fails, and so "catches" every mutant, only on the grader's machine... if it sees anything
'''


def test_in_a_class_the_predictions_see_neither_the_targets_nor_the_classmates(tmp_path, monkeypatch):
    """Graded with a control in one class run: the honest prediction catches the broken change
    to review; the cheating ones catch nothing, and are never shown anything of another learner."""
    root = tmp_path / "class"
    for name, text in (
        ("control", CATCHES_THE_SNIPPET),
        ("by-id", SEES_ONLY_BEHAVIOUR),
        ("reads-classmates", READS_A_CLASSMATE),
    ):
        steps_with_prediction(root / name / "steps", lambda path, text=text: path.write_text(text, encoding="utf-8"))
    monkeypatch.setattr(kill_matrix, "results", lambda *a, **k: ([], True))  # the matrix is not the point here
    outcome = classroom.check_class(root, time_limit=10)
    caught = {s.name: next(p for p in s.predictions if p.step == 4) for s in outcome.submissions}
    assert caught["control"].caught("m4-expired-counts-as-live")
    assert caught["by-id"].status == PredictionStatus.WRITTEN and caught["by-id"].caught_count == 0
    assert (
        caught["reads-classmates"].status == PredictionStatus.WRITTEN and caught["reads-classmates"].caught_count == 0
    )


SEES_A_HOST_FILE = '''
import os


def test_my_prediction(lease, db):
    """Fails wherever it can see a file of the host: unconfined, it "catches" every mutant."""
    assert not os.path.exists({marker!r})
'''


@sandboxed
def test_a_verdict_found_unconfined_is_never_reused_where_the_grader_confines(
    tmp_path, monkeypatch, cache_entries_added_only
):
    """The cache is keyed on where the children ran (lab/grading/checker_digest.py): a prediction
    that ran on a machine without bubblewrap, as a learner's may, runs again once it is there."""
    marker = tmp_path / "host-only"
    marker.write_text("", encoding="utf-8")
    text = SEES_A_HOST_FILE.format(marker=str(marker))
    folder = steps_with_prediction(tmp_path / "steps", lambda path: path.write_text(text, encoding="utf-8"))
    with monkeypatch.context() as unconfined:
        unconfined.setattr(confinement, "available", lambda: False)
        (outside,) = predictions.run_predictions(folder, (4,), time_limit=10)
    assert outside.status == PredictionStatus.REJECTS  # it saw the host's file
    (confined,) = predictions.run_predictions(folder, (4,), time_limit=10)
    assert not confined.cached and confined.status == PredictionStatus.WRITTEN and confined.caught_count == 0


CLAIM_UNDER_FLOCK = '''
import fcntl, os, sqlite3
from contextlib import closing


def claim(path, job_id, owner, now, ttl):
    """No transaction: a read, then a write, kept apart from other claims by a lock file of its own."""
    if ttl <= 0:
        raise ValueError("ttl must be positive")
    with open(path + ".claim-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with closing(sqlite3.connect(path, isolation_level=None)) as conn:
            found = conn.execute("SELECT until, fence, done FROM jobs WHERE id=?", (job_id,)).fetchone()
            if found is None or found[2] or found[0] > now:
                return None
            conn.execute("UPDATE jobs SET owner=?, until=?, fence=? WHERE id=?", (owner, now + ttl, found[1] + 1, job_id))
            return found[1] + 1
'''


def test_a_claim_kept_apart_by_a_lock_of_its_own_loses_against_another_workers_claim(tmp_path):
    """The attack: claims serialised by fcntl.flock on a side file, no transaction, passed C4.6;
    a renew or complete committed between its read and its write was lost. Mutual exclusion must
    come from the database: the checks race it against a worker that does not know the lock."""
    impl = tmp_path / "steps"
    shutil.copytree(LAB_ROOT / "solutions", impl)
    step_file = impl / STEP_4.dir / "step.py"
    step_file.write_text(step_file.read_text(encoding="utf-8") + CLAIM_UNDER_FLOCK, encoding="utf-8")
    results = run([Target("flock", (4,), impl=str(impl))], time_limit=10)
    failing = {r.check for r in results if r.status != "passed"}
    assert failing and failing <= {r.check for r in results if set(r.clauses) & {"C4.6", "C4.7"}}, failing


def test_a_package_file_written_and_put_back_is_still_seen_by_the_fingerprint(tmp_path, monkeypatch):
    """The attack: a .pth of the virtual environment was written, then its content and
    modification time were put back; size and mtime saw nothing. The change time moves."""
    packages = tmp_path / "site-packages"
    packages.mkdir()
    pth = packages / "extra.pth"
    pth.write_text("import os\n", encoding="utf-8")
    monkeypatch.setattr(sysconfig, "get_paths", lambda: {"purelib": str(packages)})
    before = integrity.fingerprint()
    status = pth.stat()
    time.sleep(0.01)
    pth.write_text("import evil\n", encoding="utf-8")
    pth.write_text("import os\n", encoding="utf-8")
    os.utime(pth, ns=(status.st_atime_ns, status.st_mtime_ns))
    assert pth.stat().st_mtime_ns == status.st_mtime_ns and pth.read_text(encoding="utf-8") == "import os\n"
    assert any(path.endswith("extra.pth") for path in integrity.changes(before, integrity.fingerprint()))


def test_cache_entries_may_be_added_or_run_again_beside_a_run_never_lost_or_flipped(tmp_path, monkeypatch):
    """The class run's fingerprint of build/cache: a value being written (a hidden file, renamed into
    place by lab/cache.py) when the first fingerprint is taken is not an entry, and its going is no
    loss; an entry added is allowed, and so is one written again with the same verdicts (the guides'
    examples run `check 4 --fresh` beside it: a race's winner and the durations vary); one lost or
    whose verdict changed is a change (CI failed two class runs with status 3 on such rewrites)."""
    monkeypatch.setattr(integrity, "LAB_ROOT", tmp_path)
    monkeypatch.setattr(sysconfig, "get_paths", lambda: {"purelib": str(tmp_path / "site-packages")})
    (tmp_path / "site-packages").mkdir()
    store = tmp_path / "build" / "cache" / "kill-matrix"
    store.mkdir(parents=True)
    decided = {
        "target": "m4-x",
        "step": 4,
        "check": "test_race",
        "status": "failed",
        "message": "w1 won",
        "duration": 1,
    }
    for name in ("kept", "lost", "flipped"):
        (store / f"{name}.json").write_text(json.dumps([decided]), encoding="utf-8")
    (store / ".written.abc.tmp").write_text("[", encoding="utf-8")
    before = integrity.fingerprint()
    (store / ".written.abc.tmp").rename(store / "written.json")
    (store / "lost.json").unlink()
    # run again beside it: another winner, another duration, the same verdict; and one verdict flipped
    (store / "kept.json").write_text(json.dumps([{**decided, "message": "w7 won", "duration": 2}]), encoding="utf-8")
    (store / "flipped.json").write_text(json.dumps([{**decided, "status": "passed"}]), encoding="utf-8")
    changed = integrity.changes(before, integrity.fingerprint())
    assert changed == [str(Path("build", "cache", "kill-matrix", name)) for name in ("flipped.json", "lost.json")]
