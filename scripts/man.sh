#!/usr/bin/env bash
# Regenerates man/*.1 from the commands' definitions (`make man`), with swift-argument-parser's generate-manual
# plugin, then makes the pages render without warnings.
#
# The plugin writes a command's discussion as it is, so the blank lines between its paragraphs (which --help needs)
# become empty input lines, which mdoc reports ("mdoc warning: Empty input line #N") each time man renders the page:
# each becomes a paragraph break, .Pp. The plugin also drops every character outside ASCII (write "..." in help
# texts, not "…"). The plugin lists a `help` subcommand on every page: the pages of commands without subcommands
# lose it. The pages do not depend on the build configuration: debug, the one the tests build, is the
# quickest (MAN_CONFIGURATION=release for the plugin's default).
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}

mkdir -p man
"$swift" package --allow-writing-to-package-directory generate-manual \
    --configuration "${MAN_CONFIGURATION:-debug}" --output-directory "$PWD/man"
for page in man/*.1; do
    sed -i -e 's/^$/.Pp/' "$page"
    # The plugin lists its own `help` subcommand, and a SUBCOMMAND argument, on every page: a command without
    # subcommands has neither (`viper-settings-apply help` is a usage error), so they go from its page.
    if [ "$(grep -c '^\.It Em ' "$page")" = 1 ] && grep -qx '\.It Em help' "$page"; then
        awk '
            /^\.Ar subcommand$/ { next }
            /^\.It Em help$/ { skipping = 1; next }
            skipping { if ($0 == ".El") skipping = 0; next }
            { print }
        ' "$page" >"$page.tmp"
        mv "$page.tmp" "$page"
    fi
done

# Each page must render without a warning.
if ! command -v man >/dev/null; then
    echo "man: man is not installed: the pages were not checked" >&2
    exit 0
fi
status=0
for page in man/*.1; do
    warnings=$(MANWIDTH=80 man -l "$page" 2>&1 >/dev/null || true)
    if [ -n "$warnings" ]; then
        echo "man: $page renders with warnings:" >&2
        echo "$warnings" >&2
        status=1
    fi
done
exit $status
