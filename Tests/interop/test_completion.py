"""Shell completion of values whose text is shell syntax, in the real shells, against the real daemon.

A schema's choices are text: on TAB each must reach the command line as the literal text it is, spaces, quotes,
commas, colons, backslashes and `$` included, and nothing in it may run (`$(…)`, backquotes) or expand (globs,
parameters). The bash test calls the completion function as bash does on TAB (COMP_WORDS, COMP_CWORD) and reads
COMPREPLY; the others type on a terminal (a pty) in bash, zsh and fish, and print the words of the completed line.
"""

import json
import os
import re
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

import interop_support as support

# Each a choice of its own key odd.s.kN (a unique candidate, inserted whole on TAB), and all of them of odd.s.c.
# The markers are replaced by files in the test's root that must never be created.
CHOICES = [
    "a b",
    "x, y",
    "$(touch MARKER1)",
    "it's",
    "`touch MARKER2`",
    "c:d",
    "back\\slash",
    "*",
    "${HOME}",
    'say "hi"',
]
TYPE_DEADLINE = 30.0


def odd_choices(root):
    return [choice.replace("MARKER", str(Path(root) / "pwned-")) for choice in CHOICES]


def markers(root):
    return sorted(Path(root).glob("pwned-*"))


@pytest.fixture
def odd_daemon(daemon_factory):
    """A daemon serving the module `odd` alone: odd.s.c with every odd choice, odd.s.kN with the Nth only."""
    modules = Path(daemon_factory.root) / "modules"
    modules.mkdir()
    choices = odd_choices(daemon_factory.root)
    items = [{"id": "c", "title": "Odd", "type": "string", "choices": choices, "default": choices[0]}]
    items += [
        {"id": f"k{index}", "title": "Odd", "type": "string", "choices": [choice], "default": choice}
        for index, choice in enumerate(choices)
    ]
    schema = {"module": "odd", "title": "Odd", "sections": [{"id": "s", "title": "S", "items": items}]}
    (modules / "odd.json").write_text(json.dumps(schema))
    return daemon_factory(extra_args=["--modules-dir", str(modules)])


def shell_environment(daemon):
    """PATH with settingsctl first, the daemon's socket, and a home of the test's own (no rc files)."""
    home = Path(daemon.root) / "home"
    home.mkdir(exist_ok=True)
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("SAP_", "COMP"))}
    environment.update(
        PATH=f"{support.bin_dir()}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        VIPER_SETTINGS_SOCKET=daemon.socket_path,
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CACHE_HOME=str(home / "cache"),
        TERM="dumb",
        LC_ALL="C.UTF-8",
    )
    return environment


def completion_script(daemon, shell):
    result = support.run_settingsctl(["--generate-completion-script", shell])
    assert result.returncode == 0, result.stderr
    path = Path(daemon.root) / f"settingsctl.{shell}"
    path.write_text(result.stdout)
    return path, result.stdout


# Calls the completion function as bash does on TAB: $2 is readline's word (after an open quote), COMP_WORDS the
# words as typed. Prints each reply and, with READ_BACK set, the words the shell reads from the line once the reply
# is inserted (what pressing Enter would run: a quoting mistake runs the command in a choice, and the test sees it).
# A reply is inserted as readline inserts it in a word that ends in an open quote ($OPEN_QUOTE): in place of the
# word from that quote on when the reply begins with it, and with the quote closed unless the reply ends with it.
BASH_DRIVER = r"""
source "$1"
function="$2"
cur="$3"
shift 3
COMP_WORDS=("$@")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMP_LINE="${COMP_WORDS[*]}"
COMP_POINT=${#COMP_LINE}
COMPREPLY=()
"$function" settingsctl "$cur" "${COMP_WORDS[COMP_CWORD-1]}"
kept="${COMP_WORDS[COMP_CWORD]%"$cur"}"
for reply in "${COMPREPLY[@]}"; do
    before="$kept"
    inserted="$reply"
    if [[ -n "${OPEN_QUOTE:-}" ]]; then
        [[ "${inserted:0:1}" == "$OPEN_QUOTE" ]] && before="${before%"$OPEN_QUOTE"}"
        [[ "${inserted: -1}" != "$OPEN_QUOTE" ]] && inserted+="$OPEN_QUOTE"
    fi
    if [[ -n "${READ_BACK:-}" ]]; then
        eval "line=($before$inserted)"
        printf '%s\0' "${#line[@]}" "${line[@]}"
    else
        printf '1\0%s\0' "$reply"
    fi
done
"""


def bash_complete(daemon, words, cur=None, script=None, read_back=True):
    """What TAB at the end of `words` gives (the last of them is the word being completed, as typed; `cur`
    readline's part of it, the same unless in a quote): with `read_back`, the word the shell reads once each reply
    is inserted; else the replies themselves."""
    path, text = script or completion_script(daemon, "bash")
    function = re.search(r"^complete .*-F (\S+) settingsctl$", text, re.MULTILINE).group(1)
    cur = words[-1] if cur is None else cur
    environment = shell_environment(daemon)
    if read_back:
        environment["READ_BACK"] = "1"
    if cur != words[-1]:
        environment["OPEN_QUOTE"] = words[-1][-len(cur) - 1]
    result = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", BASH_DRIVER, "bash", str(path), function, cur, "settingsctl", *words],
        env=environment,
        capture_output=True,
        timeout=support.CLI_TIMEOUT,
    )
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    assert result.stderr == b"", result.stderr.decode(errors="replace")
    fields = [field.decode() for field in result.stdout.split(b"\0")[:-1]]
    words_read = []
    while fields:
        count, *fields = fields
        assert count == "1", f"a reply reads as {count} words: {fields[: int(count)]}"
        words_read.append(fields.pop(0))
    return words_read


def test_bash_candidates_read_as_the_choices_exactly_and_nothing_runs(odd_daemon):
    choices = odd_choices(odd_daemon.root)
    assert sorted(bash_complete(odd_daemon, ["set", "odd.s.c", ""])) == sorted(choices)
    # The word as typed, quotes and escapes included, is compared as bash reads it.
    assert bash_complete(odd_daemon, ["set", "odd.s.c", "'it"], cur="it") == ["it's"]
    assert bash_complete(odd_daemon, ["set", "odd.s.c", '"x, '], cur="x, ") == ["x, y"]
    assert bash_complete(odd_daemon, ["set", "odd.s.c", '"x'], cur="x") == ["x, y"]
    assert bash_complete(odd_daemon, ["set", "odd.s.c", "a'"], cur="") == ["a b"]
    assert bash_complete(odd_daemon, ["set", "odd.s.c", '"say'], cur="say") == ['say "hi"']
    assert bash_complete(odd_daemon, ["set", "odd.s.c", '"\\$('], cur="\\$(") == [choices[2]]
    assert bash_complete(odd_daemon, ["set", "odd.s.c", "a\\ "]) == ["a b"]
    assert bash_complete(odd_daemon, ["set", "odd.s.c", "\\$"]) == [choices[2], "${HOME}"]
    assert bash_complete(odd_daemon, ["set", "odd.s.c", "c"]) == ["c:d"]
    assert markers(odd_daemon.root) == []


def test_a_bash_script_that_expands_candidates_gets_them_exactly_and_runs_nothing(odd_daemon):
    """A script as swift-argument-parser writes it (as one generated before settingsctl quoted its candidates)
    hands the lines to compgen -W, which expands them: that gives the choices exactly, and runs nothing."""
    path, text = completion_script(odd_daemon, "bash")
    expanding = text.replace('__settingsctl_add_literal_completions "$(', '__settingsctl_add_completions -W "$(')
    assert expanding != text
    path.write_text(expanding)
    choices = odd_choices(odd_daemon.root)
    replies = bash_complete(odd_daemon, ["set", "odd.s.c", ""], script=(path, expanding), read_back=False)
    assert sorted(replies) == sorted(choices)
    assert markers(odd_daemon.root) == []


class Terminal:
    """An interactive shell on a pty: what is typed, and everything it printed."""

    def __init__(self, argv, environment, cwd):
        self.pid, self.fd = os.forkpty()
        if self.pid == 0:
            try:
                os.chdir(cwd)
                os.execvpe(argv[0], argv, environment)
            finally:
                os._exit(127)
        self.output = b""

    def type(self, text):
        os.write(self.fd, text.encode())

    def read_until(self, pattern, deadline=TYPE_DEADLINE):
        """Reads until `pattern` (a bytes regex) matches what the shell printed; returns the match."""
        end = time.monotonic() + deadline
        while True:
            match = re.search(pattern, self.output)
            if match:
                return match
            remaining = end - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"the shell did not print {pattern!r}; it printed:\n{self.output!r}")
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if ready:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:
                    data = b""
                if not data:
                    raise AssertionError(f"the shell exited; it printed:\n{self.output!r}")
                self.output += data

    def close(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        os.close(self.fd)


SHELLS = {
    "bash": (["bash", "--norc", "--noprofile", "-i"], "PS1='$ '; source {script}"),
    "zsh": (["zsh", "-f", "-i"], "PS1='$ '; autoload -U compinit; compinit -u -D; source {script}"),
    "fish": (["fish", "--no-config", "-i"], "set -g fish_autosuggestion_enabled 0; source {script}"),
}


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_tab_inserts_each_choice_as_literal_text(odd_daemon, shell):
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed (scripts/setup.sh installs it)")
    argv, setup = SHELLS[shell]
    script, _ = completion_script(odd_daemon, shell)
    terminal = Terminal(argv, shell_environment(odd_daemon), odd_daemon.root)
    try:
        terminal.type(setup.format(script=script) + "; echo setup-'done'\r")
        terminal.read_until(rb"setup-done")
        for index, choice in enumerate(odd_choices(odd_daemon.root)):
            # TAB completes the value; then, at the start of the line, printf prints the words the shell reads.
            terminal.type(f"settingsctl set odd.s.k{index} \t --end-{index}\x01printf '<%s>\\n' \r")
            end = terminal.read_until(rb"<--end-%d>\r?\n" % index)
            start = terminal.output.rindex(b"<settingsctl>", 0, end.start())
            words = re.findall(rb"^<(.*)>\r?$", terminal.output[start : end.end()], re.MULTILINE)
            expected = ["settingsctl", "set", f"odd.s.k{index}", choice, f"--end-{index}"]
            assert [word.decode() for word in words] == expected
    finally:
        terminal.close()
    assert markers(odd_daemon.root) == []


@pytest.mark.parametrize("quote", ["'", '"'])
def test_bash_tab_in_an_open_quote_inserts_each_choice_as_literal_text(odd_daemon, quote):
    """In an open quote, readline replaces the word from the quote on with the candidate and closes the quote
    unless the candidate ends with it: the candidate is the choice quoted within that quote (`'it'\\''s`, not
    `'it\\'s`, which left the quote open; `"x, y`, not `"x,\\ y`, which put a backslash in the value)."""
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    argv, setup = SHELLS["bash"]
    script, _ = completion_script(odd_daemon, "bash")
    terminal = Terminal(argv, shell_environment(odd_daemon), odd_daemon.root)
    choices = odd_choices(odd_daemon.root)
    # A choice of odd.s.kN after the quote alone, and a choice of odd.s.c after the quote and its first letters.
    cases = [(f"odd.s.k{index}", "", choice) for index, choice in enumerate(choices)]
    cases += [("odd.s.c", "it", "it's"), ("odd.s.c", "x", "x, y"), ("odd.s.c", "sa", 'say "hi"')]
    try:
        # A line left in an open quote prompts with PS2: the test sees it at once instead of waiting for its end.
        terminal.type(setup.format(script=script) + "; PS2='<open-''quote>'; echo setup-'done'\r")
        terminal.read_until(rb"setup-done")
        for index, (key, typed, choice) in enumerate(cases):
            terminal.type(f"settingsctl set {key} {quote}{typed}\t --end-{index}\x01printf '<%s>\\n' \r")
            end = terminal.read_until(rb"<--end-%d>\r?\n|<open-quote>" % index)
            assert end.group(0) != b"<open-quote>", f"{key} {quote}{typed}: the quote was left open"
            start = terminal.output.rindex(b"<settingsctl>", 0, end.start())
            words = re.findall(rb"^<(.*)>\r?$", terminal.output[start : end.end()], re.MULTILINE)
            expected = ["settingsctl", "set", key, choice, f"--end-{index}"]
            assert [word.decode() for word in words] == expected, f"{key} {quote}{typed}"
    finally:
        terminal.close()
    assert markers(odd_daemon.root) == []
