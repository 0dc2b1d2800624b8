"""The committed man pages (man/*.1, written by `make man`) say what --help says, and render without warnings."""

import json
import os
import shutil
import subprocess

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
