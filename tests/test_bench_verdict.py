"""The bench's verdict (field/interval.py, bench.verdict): a goal is met or not met only when a
bootstrap interval of floor/artifact lies wholly on one side of it, and the same measurements always
give the same interval. Every measurement here is written down, so nothing depends on how fast or
how busy the machine is."""

import io
import json
import random
import warnings

import pytest
from rich.console import Console

from field import bench, interval
from lab.text.messages import say

NEAR_ONE = [0.9, 1.0, 1.1, 0.95, 1.05]  # the artifact as fast as the floor, give or take a tenth
TWICE = [1.9, 2.0, 2.1, 1.95, 2.05]  # the artifact twice as slow
ACROSS = [0.7, 1.0, 1.3, 1.6, 2.0]  # a geometric mean of 1.24, spread on both sides of 1.25


def contract(claims, completes=None, counts=(1, 2, 4, 8)):
    """The contract's rows: for each process count, floor/artifact of each pair of slices."""
    return [
        bench.Row("contract", n, "delete", "FULL", {}, {"claim": claims(n), "complete": (completes or claims)(n)})
        for n in counts
    ]


def every_count(ratios):
    return lambda n: list(ratios)


@pytest.mark.parametrize(
    "ratios, key",
    [
        (NEAR_ONE, "bench_goal_met"),  # the whole interval below the goal
        (TWICE, "bench_goal_not_met"),  # the whole interval above it
        (ACROSS, "bench_goal_undecided"),  # the interval reaches both sides: not decided at this length
    ],
)
def test_the_goal_is_decided_only_when_the_interval_lies_wholly_on_one_side(ratios, key):
    judged = bench.verdict(contract(every_count(ratios)), duration=1.0)
    assert judged.key == key, judged
    assert judged.low <= judged.estimate <= judged.high and not judged.preview
    side = {"bench_goal_met": judged.high <= bench.GOAL, "bench_goal_not_met": judged.low > bench.GOAL}
    assert side.get(key, judged.low <= bench.GOAL < judged.high)


def test_the_cells_together_are_judged_at_95_percent_over_every_pair():
    judged = bench.verdict(contract(every_count(ACROSS)), duration=1.0)
    assert (judged.level, judged.pairs, judged.cells, judged.workers) == (0.95, 40, 8, None)
    assert judged.estimate == pytest.approx((0.7 * 1.0 * 1.3 * 1.6 * 2.0) ** (1 / 5))  # every cell alike


def test_one_process_count_wholly_above_the_goal_is_not_met_though_the_cells_together_are_within():
    slow_at_eight = contract(lambda n: [r * 1.6 for r in NEAR_ONE] if n == 8 else NEAR_ONE)
    assert interval.bootstrap([row.ratios[k] for row in slow_at_eight for k in bench.KINDS]).high < bench.GOAL
    judged = bench.verdict(slow_at_eight, duration=1.0)
    assert (judged.key, judged.workers, judged.pairs, judged.level) == ("bench_goal_not_met", 8, 10, 0.99)
    assert judged.low > bench.GOAL


def test_the_same_measurements_always_give_the_same_interval():
    cells = [ACROSS, TWICE, NEAR_ONE]
    first = interval.bootstrap(cells)
    random.seed(1)  # the resampling has a generator of its own: the global one changes nothing
    assert interval.bootstrap(cells) == first
    assert interval.bootstrap([list(cell) for cell in cells]) == first
    assert interval.bootstrap(cells, seed=interval.SEED + 1) != first  # the seed is what fixes it


def test_a_wider_level_gives_a_wider_interval_around_the_same_estimate():
    narrow, wide = interval.bootstrap([ACROSS], level=0.5), interval.bootstrap([ACROSS], level=0.99)
    assert narrow.estimate == wide.estimate and wide.low < narrow.low < narrow.high < wide.high


@pytest.mark.parametrize(
    "low, high, decided",
    [(0.9, 1.25, "met"), (1.26, 1.4, "not met"), (1.25, 1.4, None), (1.1, 1.3, None)],
)
def test_the_goal_itself_belongs_to_met(low, high, decided):
    assert interval.decide(interval.Interval(1.2, low, high, 0.95), 1.25) == decided


def _report(rows, duration, lang):
    out = io.StringIO()
    judged = bench.render(rows, "solutions", duration, "/tmp", lang, Console(file=out, width=400))
    return judged, out.getvalue()


def _rows(ratios):
    """Rows of all five settings, the contract's with these ratios: what render shows."""
    rates = {f"{kind} {path}": 40.0 for kind in bench.KINDS for path in ("artifact", "floor")}
    return [
        bench.Row(name, n, "delete", "FULL", dict(rates), {kind: list(ratios) for kind in bench.KINDS})
        for name, _, _, _ in bench.SETTINGS
        for n in (1, 2, 4, 8)
    ]


def test_the_verdict_line_shows_the_interval_and_the_goal_in_english_and_japanese():
    judged, english = _report(_rows(NEAR_ONE), 1.0, "en")
    shown = f"{judged.low:.2f}×–{judged.high:.2f}×"
    assert f"Goal met: under the contract's setting the artifact takes {shown} the floor's time per call" in english
    assert "(95% interval, goal ≤ 1.25×) over its 8 cells together (40 pairs)" in english
    _, japanese = _report(_rows(NEAR_ONE), 1.0, "ja")
    assert "目標達成" in japanese and f"{judged.low:.2f}〜{judged.high:.2f} 倍" in japanese
    assert "(95% 信頼区間、目標は 1.25 倍以下)" in japanese and "8 セル全体 (40 組)" in japanese


def test_a_verdict_not_decided_says_so_and_asks_for_a_longer_run():
    judged, english = _report(_rows(ACROSS), 0.05, "en")
    assert judged.key == "bench_goal_undecided" and judged.preview
    assert "Goal not decided at this length" in english and "make bench BENCH_TIME=1." in english
    assert f"{judged.low:.2f}×–{judged.high:.2f}× the floor's time per call (95% interval" in english
    _, japanese = _report(_rows(ACROSS), 0.05, "ja")
    assert "この長さでは判定できません" in japanese and "BENCH_TIME=1" in japanese


def test_a_count_above_the_goal_is_named_in_the_line():
    rows = _rows(NEAR_ONE)
    for row in rows:
        if row.setting == "contract" and row.workers == 4:
            row.ratios = {kind: TWICE for kind in bench.KINDS}
    _, english = _report(rows, 1.0, "en")
    assert "Goal not met" in english and "(99% interval, goal ≤ 1.25×) at 4 processes alone" in english
    _, japanese = _report(rows, 1.0, "ja")
    assert "目標未達" in japanese and "4 プロセスだけ" in japanese and "99% 信頼区間" in japanese


def test_bench_json_keeps_the_interval_and_how_it_was_drawn(tmp_path, monkeypatch):
    monkeypatch.setattr("field.chart.draw", lambda *arguments: [])  # the chart is tested with a real run
    bench.write(_rows(NEAR_ONE), "solutions", tmp_path, 1.0)
    record = json.loads((tmp_path / "bench.json").read_text())
    judged = bench.verdict(_rows(NEAR_ONE), 1.0)
    assert record["verdict"] | {"low": judged.low, "high": judged.high, "key": "bench_goal_met"} == record["verdict"]
    assert record["method"]["interval"] | {"level": 0.95, "seed": interval.SEED} == record["method"]["interval"]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_chart_is_worded_in_the_runs_language_with_a_font_that_has_every_glyph(tmp_path, lang):
    """Title, verdict, axes, legend and the preview mark from the catalogue; matplotlib warns of a
    glyph its fonts lack, and none may be missing."""
    rows = _rows(NEAR_ONE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bench.write(rows, "solutions", tmp_path, 0.05, lang=lang)
    svg = (tmp_path / "bench.svg").read_text(encoding="utf-8")  # each text kept as a comment beside its glyphs
    judged = bench.verdict(rows, 0.05)
    assert judged.preview and judged.short(lang) in svg and say("field.chart_preview", lang).strip(" ·") in svg
    for key in ("chart_claims", "chart_workers", "chart_calls", "chart_ratio_axis", "chart_goal"):
        assert all(line in svg for line in say(f"field.{key}", lang).split("\n")), key  # a label's lines
    assert say("field.chart_artifact", lang, name=say("field.chart_kept", lang)) in svg
    other = "ja" if lang == "en" else "en"
    assert say("field.chart_workers", other) not in svg
