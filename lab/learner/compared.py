"""Which steps' compare phase the learner has already seen, so that later runs fold it to one line.

Remembered in `.lab/compared.json`: step -> a digest of the prediction it was shown with. A new
prediction shows the compare phase in full once more; `SHOW=mutants` or `VERBOSE=1` always does.
"""

from lab import cache
from lab.model.prediction_file import PREDICTION_FILE

FILE = "compared.json"


class Seen:
    def __init__(self, store):
        self.store = store
        self.known = store.read(FILE)

    def key(self, step):
        path = self.store.root / "steps" / step.dir / PREDICTION_FILE
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        return cache.key("compared", text)

    def shown(self, number, key):
        return self.known.get(str(number)) == key

    def remember(self, number, key):
        if self.known.get(str(number)) == key:
            return
        self.known[str(number)] = key
        try:
            self.store.write(FILE, self.known)
        except OSError:  # a read-only checkout: the compare phase is shown in full again
            pass
