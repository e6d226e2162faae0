"""What the bench and the peers' bench measure by: the goal a ratio is judged against, the length
below which a measurement is only a preview, and the quartiles shown beside a median. Below both
benches and the chart, so that none of them imports another to read these."""

import statistics

GOAL = 1.25  # the artifact's time per call over the floor's, at most
STEADY = 0.5  # seconds per measurement below which the result is a preview


def quartiles(values):
    """The lower and upper quartile of measured values (one value: itself twice)."""
    if len(values) < 2:
        return values[0], values[0]
    low, _, high = statistics.quantiles(values, n=4, method="inclusive")
    return low, high
