"""How the field's tools show a clock value: as a person reads it."""


def clock_value(value):
    """5, 12.5, 1712345678.123: three decimals at most, no trailing zeros."""
    return f"{value:.3f}".rstrip("0").rstrip(".")
