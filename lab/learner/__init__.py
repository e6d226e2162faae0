"""The learner's own commands: hint, progress, next, reset-step, restore-step and watch.

Each command is one small module; lab/learner/commands.py parses their arguments, and every
word they print comes from lab/learner/words.py in English and Japanese. What they remember
(hints seen, cached verdicts, backups) lives in the ignored folder `.lab/` of the checkout.
"""
