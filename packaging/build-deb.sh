#!/bin/sh
# Builds biomatimer_<version>_<arch>.deb from a `--static-swift-stdlib` release build (`make
# deb`): programs that need no Swift toolchain, laid out where Debian looks, Depends from
# dpkg-shlibdeps, then checked by lintian (errors fail the build).
#
# usage: packaging/build-deb.sh BINDIR OUTDIR
#
#   BINDIR   biomatimer, biomatimer-tool, biomatimerd, biomatimer-tray from
#            `swift build -c release --static-swift-stdlib`
#   OUTDIR   gets biomatimer_<version>_<arch>.deb and lintian.txt
#
# The files are what `biomatimer install --prefix` writes, moved to Debian's places:
#   /usr/bin/biomatimer, /usr/libexec/biomatimer/{biomatimer-tool,biomatimerd,biomatimer-tray}
#   /usr/share/dbus-1/services/org.biomatimer.Timer1.service (activation, Exec=/usr/bin/…)
#   /usr/lib/systemd/user/{biomatimer,biomatimer-tray}.service
#   /etc/xdg/autostart/biomatimer-tray.desktop
#   /usr/share/man/man1/biomatimer.1.gz
#   /usr/share/bash-completion/completions/biomatimer, /usr/share/zsh/vendor-completions/_biomatimer,
#   /usr/share/fish/vendor_completions.d/biomatimer.fish
#   /usr/share/gnome-shell/extensions/biomatimer@biomatimer.org/ (the form of the GNOME Shell
#   installed where the package is built: legacy for Debian 12's GNOME 43)
#   /usr/share/doc/biomatimer/{copyright,changelog.gz,README.md,examples/…}
# Needs (Debian): dpkg-dev (dpkg-shlibdeps), lintian, gzip.

set -eu
[ $# -eq 2 ] || { echo "usage: $0 BINDIR OUTDIR" >&2; exit 2; }
bindir=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
for f in biomatimer biomatimer-tool biomatimerd biomatimer-tray; do
    [ -x "$bindir/$f" ] || { echo "build-deb.sh: $bindir/$f is missing" >&2; exit 1; }
done
for tool in dpkg-deb dpkg-shlibdeps lintian gzip; do
    command -v "$tool" >/dev/null || { echo "build-deb.sh: $tool is not installed (make deps)" >&2; exit 1; }
done

version=$("$bindir/biomatimer-tool" --version)
arch=$(dpkg --print-architecture)
work=$(mktemp -d /tmp/biomatimer-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
stage=$work/stage
umask 022

# The manual page's date and the changelog's: the last commit's, unless the builder sets one.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH

# What `install --prefix` writes, under the stage; then moved to where Debian keeps each.
"$bindir/biomatimer-tool" install --prefix "$stage/usr" >/dev/null
rm "$stage/usr/libexec/biomatimer/installed-files"
# Symbols stay in the build folder: the package is three times smaller without them.
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/biomatimer" "$stage/usr/libexec/biomatimer/"*
mkdir -p "$stage/usr/lib/systemd/user" "$stage/etc/xdg/autostart" "$stage/usr/share/zsh/vendor-completions"
mv "$stage/usr/share/systemd/user/"*.service "$stage/usr/lib/systemd/user/"
rmdir "$stage/usr/share/systemd/user" "$stage/usr/share/systemd"
mv "$stage/usr/etc/xdg/autostart/biomatimer-tray.desktop" "$stage/etc/xdg/autostart/"
rm -r "$stage/usr/etc"
mv "$stage/usr/share/zsh/site-functions/_biomatimer" "$stage/usr/share/zsh/vendor-completions/"
rmdir "$stage/usr/share/zsh/site-functions"
gzip -9n "$stage/usr/share/man/man1/biomatimer.1"
# bash-completion sources the script: its #! line means nothing there.
sed -i '1{/^#!/d}' "$stage/usr/share/bash-completion/completions/biomatimer"
# The templates name the stage's bin folder: the installed programs are in /usr/bin.
for f in "$stage/usr/share/dbus-1/services/org.biomatimer.Timer1.service" "$stage/usr/lib/systemd/user/"*.service \
    "$stage/etc/xdg/autostart/biomatimer-tray.desktop"; do
    sed -i "s|$stage/usr/bin/|/usr/bin/|g" "$f"
done
if grep -rl "$stage" "$stage" >/dev/null 2>&1; then
    echo "build-deb.sh: the stage's path is left in $(grep -rl "$stage" "$stage")" >&2
    exit 1
fi

doc=$stage/usr/share/doc/biomatimer
mkdir -p "$doc/examples"
cp "$root/README.md" "$doc/"
for f in waybar/config.jsonc waybar/style.css i3blocks/i3blocks.conf polybar/config.ini tmux/tmux.conf; do
    mkdir -p "$doc/examples/$(dirname "$f")"
    cp "$root/Widgets/$f" "$doc/examples/$f"
done
cp "$root/packaging/copyright" "$doc/copyright"
date=$(date -R -d "@$SOURCE_DATE_EPOCH")
printf 'biomatimer (%s) unstable; urgency=medium\n\n  * Built from the biomatimer source tree.\n\n -- biomatimer maintainers <biomatimer@biomatimer.org>  %s\n' \
    "$version" "$date" | gzip -9n >"$doc/changelog.gz"
chmod -R u+rwX,go+rX,go-w "$stage"

# Depends: the shared libraries the programs load, as dpkg-shlibdeps finds their packages.
mkdir -p "$work/src/debian"
printf 'Source: biomatimer\n\nPackage: biomatimer\nArchitecture: any\n' >"$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-shlibdeps -O -e"$stage/usr/bin/biomatimer" -e"$stage/usr/libexec/biomatimer/biomatimer-tool" \
    -e"$stage/usr/libexec/biomatimer/biomatimerd" -e"$stage/usr/libexec/biomatimer/biomatimer-tray" 2>"$work/shlibdeps.log" |
    sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { cat "$work/shlibdeps.log" >&2; echo "build-deb.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

mkdir -p "$stage/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat >"$stage/DEBIAN/control" <<EOF
Package: biomatimer
Version: $version
Architecture: $arch
Maintainer: biomatimer maintainers <biomatimer@biomatimer.org>
Installed-Size: $size
Depends: $depends, dbus-user-session | dbus-session-bus
Recommends: librsvg2-bin
Suggests: gnome-shell
Section: utils
Priority: optional
Description: time tracker for the Linux desktop, on the D-Bus session bus
 A work timer with named, coloured project timers, daily totals, focus
 timers, tasks with reminders and a history kept in SQLite. A small daemon,
 started by D-Bus activation, publishes the live state on the session bus;
 status bars (waybar, i3blocks, polybar, tmux), the system tray and the GNOME
 Shell top bar extension follow it without polling.
EOF
(cd "$stage" && find etc usr -type f -exec md5sum {} + | sort -k2) >"$stage/DEBIAN/md5sums"
# The tray's autostart entry is a conffile: dpkg keeps it on remove (until purge), and its
# TryExec makes it inert once the program is gone.
echo /etc/xdg/autostart/biomatimer-tray.desktop >"$stage/DEBIAN/conffiles"

deb=$out/biomatimer_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
lintian --tag-display-limit 0 "$deb" >"$out/lintian.txt" 2>&1 || true
cat "$out/lintian.txt"
if grep -q '^E: ' "$out/lintian.txt"; then
    echo "build-deb.sh: lintian reports errors (above)" >&2
    exit 1
fi
echo "$deb"
