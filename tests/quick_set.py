"""Keeping the quick set quick: the tests not marked ``slow`` that took long are named.

``scripts/test.sh`` leaves the tests marked ``slow`` out (CI runs them all); a test that
takes seconds and is not marked makes every developer's quick run slower, and nothing
would say so. At the end of every run, the tests not marked ``slow`` whose call took over
:data:`LIMIT` seconds are named in the terminal summary, slowest first. Named, not failed:
a loaded machine makes any test slow, and speed is measured by ``benchmarks/``, not by
tests. The limit is twice the mark's rule of thumb (a second on a quiet machine), so that
an ordinary busy run names none.
"""

from __future__ import annotations

import pytest

#: Seconds a call may take before a test not marked ``slow`` is named.
LIMIT = 2.0


class _LongCalls:
    """The calls over ``limit`` seconds of the tests not marked ``slow``, as they are reported
    (under pytest-xdist the controller is given every worker's reports)."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.calls: list[tuple[float, str]] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" and report.duration > self.limit and "slow" not in report.keywords:
            self.calls.append((report.duration, report.nodeid))

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.calls:
            return
        terminalreporter.write_sep(
            "-", f"{len(self.calls)} test(s) not marked slow took over {self.limit:g} s: mark them?"
        )
        for duration, nodeid in sorted(self.calls, reverse=True):
            terminalreporter.write_line(f"{duration:5.1f} s  {nodeid}")


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_LongCalls(LIMIT), "tai-long-calls")
