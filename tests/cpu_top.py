"""`pytest --cpu-top N`: the N tests that cost the most CPU, and the total, after the run.

`make test` has a budget of CPU, not of wall time: on the two cores of a quiet machine the whole
suite must fit in ten minutes, and on a shared machine the wall clock says more of the neighbours
than of the tests. A test's CPU is that of the worker that runs it and of every child process the
worker waited for (resource.getrusage: RUSAGE_SELF and RUSAGE_CHILDREN), in its setup, its call and
its teardown; a module or session fixture is counted with the first test that asks for it. Each
worker writes a phase's figure on its report (pytest-xdist sends a report's attributes along), and
they are summed where the reports meet.
"""

import resource

import pytest

SPENT = pytest.StashKey[float]()


def _cpu_seconds():
    own, children = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class CpuTop:
    def __init__(self, count):
        self.count = count
        self.by_test = {}

    def _measured(self, item):
        before = _cpu_seconds()
        yield
        item.stash[SPENT] = _cpu_seconds() - before

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item):
        return (yield from self._measured(item))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item):
        return (yield from self._measured(item))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item):
        return (yield from self._measured(item))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        report.cpu_seconds = item.stash.get(SPENT, 0.0)
        return report

    def pytest_runtest_logreport(self, report):
        self.by_test[report.nodeid] = self.by_test.get(report.nodeid, 0.0) + getattr(report, "cpu_seconds", 0.0)

    def pytest_terminal_summary(self, terminalreporter):
        costliest = sorted(self.by_test.items(), key=lambda item: -item[1])[: self.count]
        terminalreporter.section(f"the {len(costliest)} tests that cost the most CPU")
        for nodeid, seconds in costliest:
            terminalreporter.write_line(f"{seconds:8.1f} s  {nodeid}")
        terminalreporter.write_line(f"{sum(self.by_test.values()):8.1f} s  every test ({len(self.by_test)})")
