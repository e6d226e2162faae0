"""Runs of the self-test without the cache (use_cache=False) add entries to the lab's cache store
but never rewrite one: a class run on the other worker fails (status 3) when an entry changes under
it (lab/sandbox/integrity.py), so the modules that run without the cache can run beside it."""

from contextlib import contextmanager

import pytest

from lab import cache


@contextmanager
def entries_added_only():
    """Within, a value is stored only under a key that holds none. A key is a digest of all its
    value depends on, so the entry kept serves every later run as the one not written would."""
    store = cache.set

    def add(namespace, key, value):
        if cache.get(namespace, key) is None:
            store(namespace, key, value)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cache, "set", add)
        yield
