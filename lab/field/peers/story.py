"""`make demo PEERS=1`: the A/B story on litequeue, persist-queue and the artifact, one row each.

A takes (a message, or a named job), stalls past the ttl; the queue's own way of handing a taken
message out again gives it to B (litequeue's reaper, persist-queue's resume on open; for the
artifact, the caller's clock moving past `until`); B finishes; then A finishes late. A queue's
acknowledgement names the message only, so it cannot tell A's late one from B's: it accepts it.
The artifact's completion carries the fence, and refuses it.
"""

import json
import subprocess
import tempfile

from rich.console import Console
from rich.table import Table

from lab.field.artifact import materialize
from lab.field.peers import environment
from lab.field.peers.contender import TTL
from lab.model.status import ExitStatus
from lab.text.messages import words_of

STORY_SECONDS = 60  # three stories of a fraction of a second each, on a loaded machine
# Each contender's words: how B came to hold what A took, why A's late finish was refused (the
# artifact) or taken (a queue), what
# a worker takes and acknowledges with, and the connection it works through (with its settings).
WORDS = {
    "artifact": {
        "again": "p_again_artifact",
        "why": "p_why_artifact",
        "takes": "p_takes_artifact",
        "connection": "p_connection_artifact",
    },
    "litequeue": {
        "again": "p_again_litequeue",
        "why": "p_why_litequeue",
        "takes": "p_takes_litequeue",
        "connection": "p_connection_litequeue",
    },
    "persist-queue": {
        "again": "p_again_persist_queue",
        "why": "p_why_persist_queue",
        "takes": "p_takes_persist_queue",
        "connection": "p_connection_persist_queue",
    },
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
    """The story holds: each contender handed the same one out twice, and only the artifact refused A."""
    return all(s["same_taken_twice"] for s in stories) and all(
        s["late_accepted"] == (s["name"] != "artifact") for s in stories
    )


def render(stories, lang="en", console=None):
    console = console or Console(highlight=False, soft_wrap=True, width=132)
    words = words_of("field", lang)
    table = Table(title=words("peers_story_title", ttl=TTL), title_justify="left")
    for key in ("p_contender", "p_again", "p_finished_b", "p_late", "p_verdict"):
        table.add_column(words(key))
    for story in stories:
        own = WORDS[story["name"]]
        as_told = story["late_accepted"] == (story["name"] != "artifact")  # the why in own words holds only then
        why = words(own["why"] if as_told else "p_why_otherwise", changed=_changed(story))
        verdict = words("p_accepted" if story["late_accepted"] else "p_refused", why=why)
        shown = (
            f"{story['name']} {story['version']}"
            if story["name"] != "artifact"
            else words("p_the_artifact", file=story["version"])
        )
        table.add_row(shown, words(own["again"]), story["finished_b"], story["late"], verdict)
    console.print(table)
    console.print(words("peers_story_held" if held(stories) else "peers_story_broken"))


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
