"""Fixtures for the interoperability tests of viper-settingsd and settingsctl.

The binaries come from $VIPER_BIN_DIR (scripts/test.sh sets it). Every test gets its own daemon on its own
state directory and socket under /tmp; at teardown the daemon is stopped with SIGTERM and must exit 0 within a
deadline and remove its socket file. The daemon's stderr is captured to a file and shown when a test fails.
"""

import os

import pytest

import interop_support as support


def pytest_report_header(config):
    return f"viper-settings binaries: {support.bin_dir() or '(not found: set VIPER_BIN_DIR)'}"


class DaemonFactory:
    """Starts daemons for one test; all of them share one temporary root."""

    def __init__(self):
        self.root = support.make_root()
        self.daemons = []

    def __call__(self, name=None, state_dir=None, extra_args=(), start=True, config=None, launcher=()):
        name = name or f"daemon{len(self.daemons) + 1}"
        daemon = support.Daemon(
            self.root, name=name, state_dir=state_dir, extra_args=extra_args, config=config, launcher=launcher
        )
        self.daemons.append(daemon)
        if start:
            daemon.start()
        return daemon

    def logs(self):
        return [(daemon.name, daemon.log()) for daemon in self.daemons]

    def finish(self):
        """Stops every daemon still running; returns the failures of the graceful stop checks."""
        failures = []
        for daemon in self.daemons:
            if daemon.process is None:
                continue
            try:
                daemon.stop_and_check()
            except AssertionError as error:
                failures.append(f"{daemon.name}: {error}")
            finally:
                daemon.kill()
        return failures


@pytest.fixture
def daemon_factory(request):
    for name in ("viper-settingsd", "settingsctl"):
        try:
            support.executable(name)
        except RuntimeError as error:
            pytest.fail(str(error), pytrace=False)
    factory = DaemonFactory()
    request.node._viper_factory = factory
    try:
        yield factory
        failures = factory.finish()
        if failures:
            pytest.fail("graceful stop failed: " + "; ".join(failures), pytrace=False)
    finally:
        for daemon in factory.daemons:
            daemon.kill()
        if not getattr(request.node, "_viper_keep_root", False):
            support.remove_root(factory.root)


@pytest.fixture
def daemon(daemon_factory):
    """A running viper-settingsd with fresh state."""
    return daemon_factory()


@pytest.fixture
def settings(daemon):
    """A reference-client (PyPI varlink) proxy for io.viper.settings on the fixture daemon."""
    import varlink

    client = varlink.Client(address=daemon.address)
    connection = client.open(support.INTERFACE)
    try:
        yield connection
    finally:
        connection.close()
        client.cleanup()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    factory = getattr(item, "_viper_factory", None)
    if factory is None or not report.failed:
        return
    for name, text in factory.logs():
        if len(text) > 20000:
            text = "[...]\n" + text[-20000:]
        report.sections.append((f"viper-settingsd stderr ({name})", text or "(empty)"))
    if os.environ.get("VIPER_KEEP_FAILED"):
        item._viper_keep_root = True
        report.sections.append(("viper-settings test root", factory.root))
