"""How sure a measured ratio is: a bootstrap interval, and the goal judged only where it is sure.

The bench's quantity is floor/artifact, the artifact's time per call over the floor's, measured as
pairs of slices (bench.py). This module knows nothing of slices: it takes groups of such ratios,
one group per cell of the table, and gives the geometric mean of the groups' geometric means (each
cell weighted alike, however many pairs it had) with a percentile bootstrap interval.

Why a bootstrap over the pairs, and not over single calls or over whole repeated runs:
- a pair is the unit the bench makes comparable: the artifact's slice and the floor's slice sit
  side by side in time, so a slow moment of the disk or of the machine falls on both. Two pairs
  are as independent as two moments of the machine are; two calls of one slice are not (they share
  its moment), so resampling single calls would call the noise of a moment signal and give an
  interval too narrow to trust;
- repeating whole runs would be honest too, but one run costs a minute: the pairs of one run
  already are repeated measurements, and resampling them costs milliseconds.
Resampling is stratified: each resample draws, in every cell, as many pairs as that cell had, with
replacement, so that every resample keeps the run's design. The geometric mean (the mean of the
logarithms) rather than the median: it treats a ratio and its inverse alike, and unlike the median
of a few values it moves smoothly from one resample to the next, so its percentiles mean something.
With very few pairs (seven a cell at the default length) a bootstrap sees less spread than there
is, and the interval is too narrow: the bench never calls a goal met on one cell's pairs, and lets
one process count (fourteen pairs) say "not met" only at a wider level (bench.py: COUNT_LEVEL).

The resampling draws from its own random.Random(SEED): the same measurements always give the same
interval, and the verdict changes only when the measurements do.
"""

import math
import random
import statistics
from dataclasses import dataclass

LEVEL = 0.95  # the share of resamples the interval holds
RESAMPLES = 2000  # the 2.5% and 97.5% percentiles move by well under 0.01× from 2000 to 20000
SEED = 38  # issue 38: the bench said the same thing twice only by chance


@dataclass(frozen=True)
class Interval:
    estimate: float  # the geometric mean of the cells' geometric means
    low: float
    high: float
    level: float


def _log(ratio):
    """A ratio's logarithm; a slice in which one side made no call at all is an infinite ratio."""
    return math.log(ratio) if ratio > 0 else -math.inf


def _centre(groups):
    return statistics.fmean(statistics.fmean(group) for group in groups)


def bootstrap(groups, level=LEVEL, resamples=RESAMPLES, seed=SEED):
    """The Interval of the geometric mean of groups of ratios, each group weighted alike."""
    logs = [[_log(ratio) for ratio in group] for group in groups if group]
    draw = random.Random(seed).choices
    means = sorted(_centre([draw(group, k=len(group)) for group in logs]) for _ in range(resamples))
    tail = (1 - level) / 2
    low, high = means[round(tail * (resamples - 1))], means[round((1 - tail) * (resamples - 1))]
    return Interval(math.exp(_centre(logs)), math.exp(low), math.exp(high), level)


def decide(interval, goal):
    """What the interval allows: "met" when it is wholly at or below the goal, "not met" when it is
    wholly above, and None (not decided at this length) when it reaches both sides."""
    if interval.high <= goal:
        return "met"
    if interval.low > goal:
        return "not met"
    return None
