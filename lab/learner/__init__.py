"""The learner's own commands: hint, progress, next, reset-step, restore-step and watch.

Each command is one small module; lab/commands/ parses their arguments, and every
word they print comes from the [learner] table of the catalogue (lab/text/en.toml, ja.toml).
What they remember (hints seen, cached verdicts, backups) lives in the ignored folder `.lab/`
of the checkout.
"""
