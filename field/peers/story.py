"""`make demo PEERS=1`: the A/B story on litequeue, persist-queue, huey and the artifact, in both orders.

A takes (a message, a task, or a named job), stalls past the ttl; the message is handed out again
to B (litequeue's reaper, persist-queue's resume on open, huey's task enqueued again as its retry
does; for the artifact, the caller's clock moving past `until`). Then the two writes, in each
order: B finishes and A writes late (the order a queue's documentation pictures), or A, back
before B is done, writes first and B after it. A queue's acknowledgement, or huey's result, names
the message only, so it cannot tell A's stale write from B's: it accepts it in both orders. The
artifact's completion carries the fence, which claim raised in the row before either wrote: it
refuses A in both.
"""

import json
import subprocess
import tempfile

from rich.console import Console
from rich.table import Table

from field.artifact import materialize
from field.peers import environment
from field.peers.drivers import ORDERS, TTL
from lab.model.status import ExitStatus
from lab.text.messages import words_of

STORY_SECONDS = 60  # three stories of a fraction of a second each, on a loaded machine
# Each contender's words: how B came to hold what A took, why A's stale write was refused (the
# artifact) or taken (a queue), what a worker takes and finishes with, and how the bench's settings
# were set on it, like for like ("same") and as it ships ("own").
WORDS = {
    "artifact": {
        "again": "p_again_artifact",
        "why": "p_why_artifact",
        "takes": "p_takes_artifact",
        "same": "p_set_artifact_same",
        "own": "p_set_artifact_own",
    },
    "litequeue": {
        "again": "p_again_litequeue",
        "why": "p_why_litequeue",
        "takes": "p_takes_litequeue",
        "same": "p_set_litequeue_same",
        "own": "p_set_litequeue_own",
    },
    "persist-queue": {
        "again": "p_again_persist_queue",
        "why": "p_why_persist_queue",
        "takes": "p_takes_persist_queue",
        "same": "p_set_persist_queue_same",
        "own": "p_set_persist_queue_own",
    },
    "huey": {
        "again": "p_again_huey",
        "why": "p_why_huey",
        "takes": "p_takes_huey",
        "same": "p_set_huey_same",
        "own": "p_set_huey_own",
    },
}
# Each order's title, and its two writes' columns in the order they were made.
ORDER_WORDS = {
    "late_last": ("peers_story_title_late_last", ("p_b_writes", "p_a_writes_late")),
    "late_first": ("peers_story_title_late_first", ("p_a_writes_late", "p_b_writes")),
}


def play(artifact, scratch):
    """Each contender's story, as contender.py tells it (a list of dicts, the artifact first)."""
    command = environment.contender("story", scratch, artifact)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=STORY_SECONDS)
    except subprocess.TimeoutExpired:
        raise environment.PeersUnavailable(f"contender.py story: no answer after {STORY_SECONDS} s") from None
    if done.returncode != 0:
        raise environment.PeersUnavailable(
            f"contender.py story: {(done.stderr.strip().splitlines() or [f'exit status {done.returncode}'])[-1]}"
        )
    return json.loads(done.stdout)


def held(stories):
    """The story holds: in both orders each contender handed the same one out twice, only the artifact
    refused A, and the artifact's row ends with B's result."""
    return (
        {s["order"] for s in stories} == set(ORDERS)
        and all(s["same_taken_twice"] for s in stories)
        and all(s["late_accepted"] == (s["name"] != "artifact") for s in stories)
        and all(s["stored"]["result"] == "B's result" for s in stories if s["name"] == "artifact")
    )


def render(stories, lang="en", console=None):
    console = console or Console(highlight=False, soft_wrap=True, width=132)
    words = words_of("field", lang)
    for order in ORDERS:
        title, writes = ORDER_WORDS[order]
        table = Table(title=words(title, ttl=TTL), title_justify="left")
        for key in ("p_contender", "p_again", *writes, "p_verdict", "p_stored"):
            table.add_column(words(key))
        for story in (s for s in stories if s["order"] == order):
            own = WORDS[story["name"]]
            as_told = story["late_accepted"] == (story["name"] != "artifact")  # the why in own words holds only then
            why = words(own["why"] if as_told else "p_why_otherwise", changed=_changed(story))
            verdict = words("p_accepted" if story["late_accepted"] else "p_refused", why=why)
            shown = (
                f"{story['name']} {story['version']}"
                if story["name"] != "artifact"
                else words("p_the_artifact", file=story["version"])
            )
            first, second = (
                (story["finished_b"], story["late"]) if order == "late_last" else (story["late"], story["finished_b"])
            )
            table.add_row(shown, words(own["again"]), first, second, verdict, _stored(story["stored"]))
        console.print(table)
    console.print(words("peers_story_held" if held(stories) else "peers_story_broken"))


def _stored(values):
    """What the contender holds at the end, as name=value (strings quoted)."""
    return " ".join(f"{key}={value!r}" if isinstance(value, str) else f"{key}={value}" for key, value in values.items())


def _changed(story):
    """The columns of the row that A's late finish changed ("done_time"), or "-"."""
    before, after = story["before"], story["after"]
    return ", ".join(key for key in after if before.get(key) != after[key]) or "-"


def main(impl_path, label, lang="en"):
    with tempfile.TemporaryDirectory(prefix="lab-peers-") as scratch:
        artifact = materialize(impl_path, label, scratch)
        try:
            stories = play(artifact, scratch)
        except environment.PeersUnavailable as error:
            print(words_of("field", lang)("peers_unavailable", error=error))
            return ExitStatus.SOME_FAIL
    render(stories, lang)
    return ExitStatus.ALL_PASS if held(stories) else ExitStatus.SOME_FAIL
