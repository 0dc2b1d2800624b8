"""The committed man pages (man/*.1, written by `make man`) say what --help says, and render without warnings; what
they say of viper-settings-apply's defaults and of `settingsctl apply`'s exit statuses is what the programs do."""

import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

import interop_support as support

PAGES = {
    "settingsctl.1": "settingsctl-full",
    "viper-settingsd.1": "viper-settingsd",
    "viper-settings-apply.1": "viper-settings-apply",
    "settings-bench.1": "settings-bench",
}


def text_line(line):
    """`line` as swift-argument-parser's generate-manual writes a text line: characters outside ASCII dropped,
    backslashes as \\e, a dot or apostrophe at the start after \\&."""
    line = "".join(character for character in line if character.isascii()).replace("\\", "\\e")
    return "\\&" + line if line.startswith((".", "'")) else line


def help_texts(command):
    """Every abstract and line of discussion of `command` and of its displayed subcommands and arguments."""
    if not command.get("shouldDisplay", True):
        return
    for text in (command.get("abstract"), command.get("discussion")):
        for line in (text or "").splitlines():
            if line.strip():
                yield line
    for argument in command.get("arguments", []):
        if argument.get("shouldDisplay", True) and argument.get("abstract"):
            yield argument["abstract"]
    subcommands = command.get("subcommands", [])
    # swift-argument-parser's own `help` subcommand works only beside other subcommands; scripts/man.sh takes it
    # out of the pages of the commands without (test_man_page_lists_help_only_where_it_works).
    if [subcommand.get("commandName") for subcommand in subcommands] == ["help"]:
        subcommands = []
    for subcommand in subcommands:
        yield from help_texts(subcommand)


@pytest.mark.parametrize("page,program", sorted(PAGES.items()))
def test_man_page_says_what_help_says(page, program):
    try:
        executable = support.executable(program)
    except RuntimeError as error:
        pytest.skip(str(error))
    dump = subprocess.run(
        [executable, "--experimental-dump-help"], capture_output=True, text=True, timeout=support.CLI_TIMEOUT
    )
    assert dump.returncode == 0, dump.stderr
    manual = (support.REPO_ROOT / "man" / page).read_text()
    missing = [line for line in help_texts(json.loads(dump.stdout)["command"]) if text_line(line) not in manual]
    assert not missing, f"man/{page} is stale (run make man); it lacks: {missing}"


@pytest.mark.parametrize("page", sorted(PAGES))
def test_man_page_renders_without_warnings(page):
    if shutil.which("man") is None:
        pytest.skip("man is not installed")
    result = subprocess.run(
        ["man", "-l", str(support.REPO_ROOT / "man" / page)],
        capture_output=True,
        text=True,
        env=dict(os.environ, MANWIDTH="80", MANPAGER="cat", PAGER="cat"),
        timeout=support.CLI_TIMEOUT,
    )
    assert result.returncode == 0
    assert result.stderr == "", result.stderr


@pytest.mark.parametrize("page,program", sorted(PAGES.items()))
def test_man_page_lists_help_only_where_it_works(page, program):
    """The plugin lists a `help` subcommand on every page; `viper-settings-apply help` is a usage error, so the page
    of a command without subcommands must not offer it (scripts/man.sh takes it out)."""
    try:
        executable = support.executable(program)
    except RuntimeError as error:
        pytest.skip(str(error))
    manual = (support.REPO_ROOT / "man" / page).read_text()
    result = subprocess.run(
        [executable, "help"], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=support.CLI_TIMEOUT
    )
    if ".It Em help" in manual:
        assert result.returncode == 0, f"man/{page} lists `help`, but `{program} help` fails: {result.stderr}"
    else:
        assert result.returncode != 0, f"`{program} help` works: man/{page} should list it"
        assert ".Ar subcommand" not in manual, f"man/{page} shows a SUBCOMMAND argument {program} does not take"


def exit_status_rows(text):
    """The rows of the `Exit status:` table of a help text or man page: {status: its text, continuation lines
    joined}."""
    lines = text.split("Exit status:\n", 1)[1].splitlines()
    rows = {}
    status = None
    for line in lines:
        row = re.match(r"  ([0-9]+)  +(.*)", line)
        if row:
            status = int(row.group(1))
            rows[status] = row.group(2)
        elif status is not None and re.match(r"   +\S", line):
            rows[status] += " " + line.strip()
        else:
            break
    return rows


def man_section(page, item):
    """The text of `.It Em ITEM` (a subcommand) in man/PAGE, up to the next subcommand."""
    manual = (support.REPO_ROOT / "man" / page).read_text()
    return manual.split(f"\n.It Em {item}\n", 1)[1].split("\n.It Em ", 1)[0]


def option_text(manual, option):
    """What `manual` (a man page or a part of one) says of `--OPTION`: the line after its first `.It Fl` entry."""
    match = re.search(rf"^\.It Fl -{option}( Ar \w+)?\n(.*)$", manual, re.MULTILINE)
    assert match, f"no --{option} in the page"
    return match.group(2)


class Applier:
    """One viper-settings-apply on a temporary root: no targets, its state and control socket in `root`."""

    def __init__(self, root, daemon_socket, env=None, flags=True):
        self.root = Path(root)
        self.socket_path = str(self.root / "apply.sock")
        (self.root / "targets").mkdir()
        (self.root / "image").mkdir()
        argv = [support.executable("viper-settings-apply"), "--targets-dir", str(self.root / "targets"),
                "--root", str(self.root / "image")]
        if flags:
            argv += ["--socket", daemon_socket, "--state-dir", str(self.root / "apply-state"),
                     "--control-socket", self.socket_path]
        environment = {key: value for key, value in os.environ.items()
                       if key not in ("VIPER_SETTINGS_SOCKET", "STATE_DIRECTORY", "RUNTIME_DIRECTORY")}
        environment.update(env or {})
        self.log_path = self.root / "apply.log"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=environment)

    def wait_listening(self, path=None):
        path = path or self.socket_path
        end = time.monotonic() + support.START_DEADLINE
        while time.monotonic() < end:
            assert self.process.poll() is None, f"viper-settings-apply exited: {self.log_path.read_text()}"
            if os.path.exists(path) and support.can_connect(path):
                return
            time.sleep(0.01)  # polling interval: the loop ends on connect() success
        raise AssertionError(f"viper-settings-apply did not listen on {path}: {self.log_path.read_text()}")

    def stop(self):
        """SIGTERM; the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=support.START_DEADLINE + support.STOP_DEADLINE)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise


def apply_help(*args):
    result = subprocess.run(
        [support.executable(args[0]), *args[1:], "--help"], capture_output=True, text=True,
        env=dict(os.environ, COLUMNS="1000"), timeout=support.CLI_TIMEOUT,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run settingsctl as another user")
def test_apply_dry_run_refused_to_others_is_in_the_help_and_the_man_page(daemon):
    """`settingsctl apply --dry-run` by anyone but root: the applier refuses it (it runs the targets' checks); the
    exit status settingsctl then has is listed, for --dry-run, in `settingsctl apply --help` and in the page."""
    root = support.make_root()
    applier = Applier(root, daemon.socket_path)
    try:
        applier.wait_listening()
        args = ["apply", "--dry-run", "--apply-socket", applier.socket_path]
        refused = support.run_settingsctl(args, user=65534)
        assert refused.returncode != 0 and refused.stdout == "", refused
        assert "root only" in refused.stderr, refused.stderr
        # The control socket listens before the applier has the daemon's current values: until then a dry run is
        # exit 3, "not received the settings daemon's current values yet".
        end = time.monotonic() + support.START_DEADLINE
        allowed = support.run_settingsctl(args)
        while allowed.returncode == 3 and "current values yet" in allowed.stderr and time.monotonic() < end:
            time.sleep(0.02)  # polling interval: the loop ends once the applier has the values
            allowed = support.run_settingsctl(args)
        assert allowed.returncode == 0, ("root may run a dry run", allowed)
        status = refused.returncode
        for name, text in (("settingsctl apply --help", apply_help("settingsctl-full", "apply")),
                           ("man/settingsctl.1, apply", man_section("settingsctl.1", "apply"))):
            row = exit_status_rows(text).get(status, "")
            assert "--dry-run" in row and "root" in row, f"{name} does not list exit {status} for a dry run: {row!r}"
        assert "root only" in option_text(man_section("settingsctl.1", "apply"), "dry-run")
        assert applier.stop() == 0
    finally:
        if applier.process.poll() is None:
            applier.process.kill()
        support.remove_root(root)


DEFAULTS = {
    "targets-dir": "(default: /etc/viper-settings/apply.d)",
    "socket": "(default: $VIPER_SETTINGS_SOCKET, else /run/viper-settings/io.viper.settings)",
    "state-dir": "(default: $STATE_DIRECTORY, else /var/lib/viper-settings-apply)",
    "control-socket": "(default: $RUNTIME_DIRECTORY/io.viper.settings.Apply, else "
    "/run/viper-settings-apply/io.viper.settings.Apply)",
    "log-level": "(default: info)",
}


@pytest.mark.parametrize("option", sorted(DEFAULTS))
def test_applier_help_and_man_page_give_each_default(option):
    """The defaults README gives, in `viper-settings-apply --help` and its page (ArgumentParser's own default would
    be in the help only)."""
    line = next(line for line in apply_help("viper-settings-apply").splitlines()
                if line.startswith(f"  --{option} "))
    assert line.endswith(DEFAULTS[option] + "."), line
    manual = (support.REPO_ROOT / "man" / "viper-settings-apply.1").read_text()
    assert option_text(manual, option).endswith(DEFAULTS[option] + ".")


def test_applier_help_and_man_page_list_the_exit_statuses():
    manual = (support.REPO_ROOT / "man" / "viper-settings-apply.1").read_text()
    for text in (apply_help("viper-settings-apply"), manual):
        rows = exit_status_rows(text)
        assert sorted(rows) == [0, 1, 2], rows
        assert rows[0].startswith("stopped gracefully") and rows[2].startswith("a usage error")
        assert "a state directory it cannot create" in rows[1] and "another viper-settings-apply holds" in rows[1]
        # As README says, and as the applier does (exit 1 when --targets-dir cannot be read at start).
        assert "a targets directory it cannot read at start" in rows[1], rows[1]


def test_applier_help_and_man_page_give_the_control_socket_limits():
    """The limits of the control socket README gives (the applier's server configuration), in --help and the page."""
    manual = (support.REPO_ROOT / "man" / "viper-settings-apply.1").read_text()
    for text in (apply_help("viper-settings-apply"), manual):
        words = " ".join(text.split())
        assert "at most 64 connections at once, 16 per uid" in words
        assert "io.viper.settings.Apply.TooManyConnections (limit, maximum) as the reply to its first call" in words
        assert "A connection without a call for 60 s is closed." in words


def test_applier_uses_the_variables_its_help_names(daemon):
    """Without --socket, --state-dir and --control-socket, the applier takes $VIPER_SETTINGS_SOCKET, the first
    directory of $STATE_DIRECTORY and $RUNTIME_DIRECTORY/io.viper.settings.Apply, as --help says; it exits 0 on
    SIGTERM, as its exit statuses say."""
    root = support.make_root()
    runtime = Path(root) / "runtime"
    env = {
        "VIPER_SETTINGS_SOCKET": daemon.socket_path,
        "STATE_DIRECTORY": f"{root}/state-a:{root}/state-b",
        "RUNTIME_DIRECTORY": f"{runtime}:{root}/runtime-b",
    }
    applier = Applier(root, daemon.socket_path, env=env, flags=False)
    try:
        control = str(runtime / "io.viper.settings.Apply")
        applier.wait_listening(control)
        assert (Path(root) / "state-a" / "dry-run").is_dir() and not (Path(root) / "state-b").exists()
        end = time.monotonic() + support.START_DEADLINE
        while True:  # connected: it follows the daemon at $VIPER_SETTINGS_SOCKET
            status = support.run_settingsctl(["--json", "apply", "--apply-socket", control])
            if status.returncode == 0:
                break
            assert time.monotonic() < end, status
            time.sleep(0.05)  # polling interval: the loop ends when the applier has connected
        assert json.loads(status.stdout)["connected"] is True
        assert applier.stop() == 0
    finally:
        if applier.process.poll() is None:
            applier.process.kill()
        support.remove_root(root)
