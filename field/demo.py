"""`make demo`: the README's story played by two real worker processes, printed as a timeline.

A claims (fence 1) and stalls just before it sends its side effect; its lease expires; B claims
(fence 2), sends its side effect to the fenced store (example/fenced_store.py) and completes; A
wakes, and both its side effect and its completion are refused: the store has seen fence 2, the
jobs table holds B's result. The clock is the caller's: every call gets an explicit `now`. A
really is blocked in its own process while B works, on an Event the parent sets, so the order
never depends on how fast the machine is. What the workers send and store ("B's result") is
worded in the run's language, since the timeline shows it.

`--unchecked` plays it on an implementation that does not pass its checks (a complete that does
not check the fence, say): the late completion is then accepted, while the store, which checks
the fence itself, still refuses the late side effect.
"""

import multiprocessing
import os
import tempfile
from pathlib import Path

from field.artifact import import_file, materialize, refused
from field.example import fenced_store
from lab.model.status import ExitStatus
from lab.text.messages import words_of

JOB, TTL = "job-1", 5.0
CALLS = {"send": fenced_store.write}  # beside the artifact's functions: the side effect, fenced


def serve(artifact, conn, wake):
    """A worker process: run each call the parent sends, answer with ('ok'|'error', value)."""
    lease = import_file(artifact)
    conn.send(os.getpid())
    while (message := conn.recv()) is not None:
        name, arguments, stall = message
        if stall:
            wake.wait(60)  # stalled: a long pause, during which the lease runs out
        try:
            conn.send(("ok", (CALLS.get(name) or getattr(lease, name))(*arguments)))
        except Exception as error:  # noqa: BLE001 - shown in the timeline, not raised
            conn.send(("error", f"{type(error).__name__}: {error}"))


class Worker:
    def __init__(self, context, name, artifact, wake):
        self.name = name
        self.conn, child = context.Pipe()
        self.process = context.Process(target=serve, args=(str(artifact), child, wake), daemon=True)
        self.process.start()
        self.pid = self.conn.recv()

    def send(self, name, *arguments, stall=False):
        self.conn.send((name, arguments, stall))

    def result(self):
        kind, value = self.conn.recv()
        if kind == "error":
            raise RuntimeError(value)
        return value

    def call(self, name, *arguments):
        self.send(name, *arguments)
        return self.result()

    def stop(self):
        try:
            self.conn.send(None)
        except OSError:
            pass  # the process is already gone
        self.process.join(5)
        if self.process.is_alive():
            self.process.terminate()


def play(artifact, db, lang="en", out=print):
    """Play the story on the artifact file; the figures it showed, and whether the story held."""
    context = multiprocessing.get_context("spawn")
    wake = context.Event()
    lease = import_file(artifact)
    lease.init_db(db)
    lease.enqueue(db, JOB)
    store = str(Path(db).with_name("effects.db"))
    fenced_store.create(store)
    a, b = Worker(context, "A", artifact, wake), Worker(context, "B", artifact, wake)
    words = words_of("field", lang)
    line = lambda now, who, key, **values: out(words("demo_line", now=now, who=who, text=words(key, **values)))  # noqa: E731
    try:
        out(words("demo_heading", a=a.pid, b=b.pid, ttl=TTL, job=JOB))
        fence_a = a.call("claim", db, JOB, "A", 0.0, TTL)
        line(0.0, f"A {a.pid}", "demo_claim", fence=fence_a, until=TTL)
        a.send("send", store, JOB, fence_a, words("demo_email", who="A"), "A", stall=True)
        line(1.0, f"A {a.pid}", "demo_stall")
        line(TTL, "", "demo_expired", until=TTL)
        fence_b = b.call("claim", db, JOB, "B", 6.0, TTL)
        line(6.0, f"B {b.pid}", "demo_claim", fence=fence_b, until=6.0 + TTL)
        effect_b = b.call("send", store, JOB, fence_b, words("demo_email", who="B"), "B")
        line(7.0, f"B {b.pid}", "demo_effect_b", fence=fence_b, returned=effect_b)
        done_b = b.call("complete", db, JOB, "B", fence_b, 7.0, words("demo_result", who="B"))
        line(7.0, f"B {b.pid}", "demo_complete_b", fence=fence_b, returned=done_b)
        wake.set()
        effect_a = a.result()
        line(
            8.0,
            f"A {a.pid}",
            "demo_effect_a_refused" if effect_a is False else "demo_effect_a_accepted",
            fence=fence_a,
            returned=effect_a,
        )
        done_a = a.call("complete", db, JOB, "A", fence_a, 8.0, words("demo_result", who="A"))
        line(
            8.0,
            f"A {a.pid}",
            "demo_complete_a_refused" if done_a is False else "demo_complete_a_accepted",
            fence=fence_a,
            returned=done_a,
        )
        stored = lease.state(db, JOB) or {}
        line(8.0, "", "demo_state", **{k: stored.get(k) for k in ("owner", "fence", "done", "result")})
        sent = fenced_store.read(store, JOB) or {}
        line(8.0, "", "demo_store", **{k: sent.get(k) for k in ("fence", "value")})
    except (RuntimeError, EOFError) as error:
        out(words("demo_error", error=error))
        return {"held": False, "error": str(error)}
    finally:
        wake.set()
        a.stop()
        b.stop()
    figures = {"fence_a": fence_a, "fence_b": fence_b, "complete_b": done_b, "complete_a": done_a, "stored": stored}
    figures |= {"effect_b": effect_b, "effect_a": effect_a, "sent": sent}
    held = (1, 2, True, False, words("demo_result", who="B"))
    figures["held"] = (fence_a, fence_b, done_b, done_a, stored.get("result")) == held
    figures["held"] &= (effect_b, effect_a, sent.get("fence")) == (True, False, 2)
    out(words("demo_held" if figures["held"] else "demo_broken"))
    return figures


def main(impl_path, label, lang="en", unchecked=False, peers=False):
    """The story; then, with peers, the same story on two queues from the package index."""
    status = None if unchecked else refused(impl_path, label, lang)
    if status is not None:
        return status
    if unchecked:
        print(words_of("field", lang)("demo_unchecked", impl=label))
    with tempfile.TemporaryDirectory(prefix="lab-demo-") as folder:
        artifact = materialize(impl_path, label, folder)
        figures = play(artifact, str(Path(folder) / "demo.db"), lang)
    status = ExitStatus.ALL_PASS if figures["held"] else ExitStatus.SOME_FAIL
    if peers:
        from field.peers import story  # its venv is made only when asked for

        status = max(status, story.main(impl_path, label, lang))
    return status
