"""viper-settings under a real systemd 252 booted as PID 1 of a throwaway container.

Runs Tests/systemd/run-in-systemd.sh: install (staged with DESTDIR, copied into the container), socket
activation on the first settingsctl call, StatusText, reload keeping values and open connections, journald
audit fields, watchdog kill and restart, a configuration error that leaves the socket listening, stop, `systemd-analyze verify` and `systemd-analyze security`; then
viper-settings-apply.service in its sandbox: files rendered at start and on `settingsctl set` (resolved and logind
drop-ins), reloads reaching PID 1, a failing check keeping the old file, a destination outside ReadWritePaths=
refused, kill -9 during a burst of sets and restart, a stop during a running check (nothing written or recorded),
journal entries, Status on its socket, its exposure score.
Skipped unless running as root with /lib/systemd/systemd and a working `unshare`.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import interop_support as support

SCRIPT = support.REPO_ROOT / "Tests" / "systemd" / "run-in-systemd.sh"
SYSTEMD = Path("/lib/systemd/systemd")
TIMEOUT = 450


def _unshare_works():
    if shutil.which("unshare") is None:
        return False
    try:
        return subprocess.run(
            ["unshare", "--pid", "--fork", "--mount", "--uts", "--ipc", "true"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10,
        ).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (namespaces, cgroups, mounts)"),
    pytest.mark.skipif(not SYSTEMD.exists(), reason=f"{SYSTEMD} is not installed"),
]


def test_viper_settings_under_real_systemd():
    if not _unshare_works():
        pytest.skip("unshare cannot create pid/mount/uts/ipc namespaces here")
    env = dict(os.environ)
    directory = support.bin_dir()
    if directory is not None:
        env["VIPER_BIN_DIR"] = str(directory)
    try:
        result = subprocess.run(
            ["bash", str(SCRIPT)], cwd=support.REPO_ROOT, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"run-in-systemd.sh took longer than {TIMEOUT}s:\n{error.output or ''}", pytrace=False)
    print(result.stdout)
    assert result.returncode == 0, result.stdout
    lines = result.stdout.strip().splitlines()
    assert lines and lines[-1].endswith(" passed, 0 failed"), result.stdout
