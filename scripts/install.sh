#!/usr/bin/env bash
# Builds release binaries and installs viper-settings: binaries, systemd units, configuration, schemas and the
# applier's targets, shell completions and the man page.
#   scripts/install.sh              install (as root)
#   scripts/install.sh --uninstall  remove what install put in place; configuration in /etc/viper-settings, state in
#                                   /var/lib/viper-settings{,-apply} and the files the applier rendered are kept
# PREFIX (default /usr/local) and DESTDIR (default empty, for staging) are honoured.
set -euo pipefail
cd "$(dirname "$0")/.."

PREFIX="${PREFIX:-/usr/local}"
DESTDIR="${DESTDIR:-}"
BIN="$DESTDIR$PREFIX/bin"
# settingsctl-full (the ArgumentParser interface that settingsctl hands help, completions and usage errors to).
LIBEXEC="$DESTDIR$PREFIX/libexec/viper-settings"
UNITS="$DESTDIR$PREFIX/lib/systemd/system"
CONF="$DESTDIR/etc/viper-settings"
BASH_COMPLETIONS="$DESTDIR$PREFIX/share/bash-completion/completions"
ZSH_COMPLETIONS="$DESTDIR$PREFIX/share/zsh/site-functions"
FISH_COMPLETIONS="$DESTDIR$PREFIX/share/fish/vendor_completions.d"
MAN="$DESTDIR$PREFIX/share/man/man1"

reload_systemd() {
    if [ -z "$DESTDIR" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
}

if [ "${1:-}" = "--uninstall" ]; then
    if [ -z "$DESTDIR" ] && [ -d /run/systemd/system ]; then
        systemctl disable --now viper-settings-apply.service viper-settingsd.socket viper-settingsd.service 2>/dev/null || true
    fi
    rm -f "$BIN/viper-settingsd" "$BIN/settingsctl" "$LIBEXEC/settingsctl-full" "$UNITS/viper-settingsd.service" "$UNITS/viper-settingsd.socket" \
        "$BIN/viper-settings-apply" "$UNITS/viper-settings-apply.service" \
        "$BASH_COMPLETIONS/settingsctl" "$ZSH_COMPLETIONS/_settingsctl" "$FISH_COMPLETIONS/settingsctl.fish" \
        "$MAN/settingsctl.1" "$MAN/viper-settingsd.1" "$MAN/viper-settings-apply.1"
    rmdir "$LIBEXEC" 2>/dev/null || true
    echo "uninstalled; kept /etc/viper-settings (configuration), /var/lib/viper-settings and /var/lib/viper-settings-apply"
    echo "(state) and the files viper-settings-apply rendered (the destinations of /etc/viper-settings/apply.d/*.json)"
    reload_systemd
    exit 0
fi

make build
bin_dir=bin

install -D -m 0755 "$bin_dir/viper-settingsd" "$BIN/viper-settingsd"
install -D -m 0755 "$bin_dir/viper-settings-apply" "$BIN/viper-settings-apply"
install -D -m 0755 "$bin_dir/settingsctl" "$BIN/settingsctl"
install -D -m 0755 "$bin_dir/settingsctl-full" "$LIBEXEC/settingsctl-full"
install -D -m 0644 systemd/viper-settingsd.service "$UNITS/viper-settingsd.service"
install -D -m 0644 systemd/viper-settingsd.socket "$UNITS/viper-settingsd.socket"
install -D -m 0644 systemd/viper-settings-apply.service "$UNITS/viper-settings-apply.service"
if [ "$PREFIX" != /usr/local ]; then
    sed -i "s|/usr/local/bin/viper-settingsd|$PREFIX/bin/viper-settingsd|" "$UNITS/viper-settingsd.service"
    sed -i "s|/usr/local/bin/viper-settings-apply|$PREFIX/bin/viper-settings-apply|" "$UNITS/viper-settings-apply.service"
fi
# Configuration: never overwrite what an admin changed.
install -d -m 0755 "$CONF/modules"
[ -e "$CONF/viper-settingsd.conf" ] || install -m 0644 config/viper-settingsd.conf "$CONF/viper-settingsd.conf"
for schema in config/modules/*.json; do
    target="$CONF/modules/$(basename "$schema")"
    [ -e "$target" ] || install -m 0644 "$schema" "$target"
done
# The applier's targets (NAME.json and its template): each file only where the admin has none.
install -d -m 0755 "$CONF/apply.d"
for file in config/apply.d/*; do
    [ -f "$file" ] || continue
    target="$CONF/apply.d/$(basename "$file")"
    [ -e "$target" ] || install -m 0644 "$file" "$target"
done
install -d "$BASH_COMPLETIONS" "$ZSH_COMPLETIONS" "$FISH_COMPLETIONS" "$MAN"
"$bin_dir/settingsctl" --generate-completion-script bash >"$BASH_COMPLETIONS/settingsctl"
"$bin_dir/settingsctl" --generate-completion-script zsh >"$ZSH_COMPLETIONS/_settingsctl"
"$bin_dir/settingsctl" --generate-completion-script fish >"$FISH_COMPLETIONS/settingsctl.fish"
# Man pages: installed when the project has them, skipped (with a note) otherwise.
for page in settingsctl.1 viper-settingsd.1 viper-settings-apply.1; do
    if [ -f "man/$page" ]; then
        install -m 0644 "man/$page" "$MAN/$page"
    else
        echo "note: man/$page not found; skipping its man page" >&2
    fi
done
echo "installed to $DESTDIR$PREFIX; enable with: systemctl enable --now viper-settingsd.socket"
echo "and, to render the system's files from settings: systemctl enable --now viper-settings-apply.service"
reload_systemd
