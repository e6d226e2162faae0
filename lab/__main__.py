"""``python -m lab VERB …``: every command of the lab (lab/commands/)."""

import sys

from lab.commands import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
