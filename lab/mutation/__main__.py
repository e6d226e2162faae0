"""``python -m lab.mutation …``: the same as ``python -m lab mutation …``."""

import sys

from lab.commands import main

sys.exit(main(["mutation", *sys.argv[1:]]))
