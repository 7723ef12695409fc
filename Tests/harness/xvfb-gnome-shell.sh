#!/bin/sh
# Runs Debian's GNOME Shell (an X11 compositor on Xvfb) as an unprivileged user in its own
# `dbus-run-session`, with the user's extensions enabled before it starts, and lets a test
# run commands in that session, take screenshots and click.
#
# usage:
#   xvfb-gnome-shell.sh setup --dir DIR --home HOME [--user USER]
#       DIR (created) for this run; HOME (created, given to USER) with the user's XDG
#       folders under it (.local/share, .config, .cache, runtime). Install the extension
#       there before `start` (the shell scans extensions once, at start).
#   xvfb-gnome-shell.sh start --dir DIR [--enable UUID] [--size WxH]
#       starts Xvfb, a private bus standing in for the system bus, and inside
#       dbus-run-session: gsettings (enabled-extensions = [UUID], animations off), then
#       `gnome-shell --x11 --replace --sm-disable`. Returns once the shell owns
#       org.gnome.Shell, the extension's state is ENABLED (with --enable), the start-up is
#       over and the overview is hidden; each wait at most 30 s.
#       DIR gets: display, bus (the session bus address), shell.log, xvfb.log, start.log.
#   xvfb-gnome-shell.sh run --dir DIR -- COMMAND [ARG]...
#       runs COMMAND as the user, in the session's environment (HOME and XDG folders; after
#       `start` also its bus and DISPLAY).
#   xvfb-gnome-shell.sh shot --dir DIR --out FILE
#       the whole screen (xwd | xwdtopnm), as a binary PPM when FILE ends in .ppm, else PNG.
#   xvfb-gnome-shell.sh click --dir DIR --at X,Y[,BUTTON]
#       moves the pointer to X,Y and clicks BUTTON (default 1; 2 middle, 3 right, 4/5 scroll).
#   xvfb-gnome-shell.sh stop --dir DIR
#       stops the shell, its session bus and everything started in it, then Xvfb (bounded).
#
# As root it switches to USER (default biomatest, made with useradd -m if missing): as root
# the shell shows a warning banner that never goes away. Processes are found again by a tag
# in their environment. Exit status: 0 on success, 1 on failure or timeout, 2 for usage errors.
# Needs (Debian): gnome-shell gjs (gnome-extensions) xvfb x11-apps (xwd) netpbm xdotool
# dbus-daemon dbus-bin libglib2.0-bin (gdbus, gsettings) fonts-dejavu-core.

set -u
prog=xvfb-gnome-shell.sh
usage() { echo "$prog: $*" >&2; exit 2; }
fail() { echo "$prog: $*" >&2; exit 1; }

cmd=${1:-}
[ $# -gt 0 ] && shift
dir="" home="" user="" uuid="" size=1280x800 out="" at=""
while [ $# -gt 0 ]; do
    case "$1" in
    --dir) dir=${2:?}; shift 2 ;;
    --home) home=${2:?}; shift 2 ;;
    --user) user=${2:?}; shift 2 ;;
    --enable) uuid=${2:?}; shift 2 ;;
    --size) size=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --at) at=${2:?}; shift 2 ;;
    --) shift; break ;;
    *) usage "unknown argument $1" ;;
    esac
done
[ -n "$dir" ] || usage "--dir DIR is required"

# The user everything runs as, and the prefix that switches to it.
as_user() {
    if [ "$(id -u)" = 0 ]; then
        u=$(cat "$dir/user")
        setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --clear-groups "$@"
    else
        "$@"
    fi
}

# The session's environment, for commands run in it.
session_env() {
    h=$(cat "$dir/home")
    [ -f "$dir/display" ] || { echo "HOME=$h" "XDG_DATA_HOME=$h/.local/share" "XDG_CONFIG_HOME=$h/.config" \
        "XDG_CACHE_HOME=$h/.cache" "XDG_RUNTIME_DIR=$h/runtime" "PATH=/usr/bin:/bin" "LANG=C.UTF-8" \
        "BIOMATIMER_HARNESS_TAG=$(cat "$dir/tag")"; return; }
    echo "HOME=$h" "XDG_DATA_HOME=$h/.local/share" "XDG_CONFIG_HOME=$h/.config" "XDG_CACHE_HOME=$h/.cache" \
        "XDG_RUNTIME_DIR=$h/runtime" "DISPLAY=$(cat "$dir/display")" "PATH=/usr/bin:/bin" "LANG=C.UTF-8" \
        "DBUS_SESSION_BUS_ADDRESS=$(cat "$dir/bus" 2>/dev/null)" "DBUS_SYSTEM_BUS_ADDRESS=$(cat "$dir/system-bus")" \
        "BIOMATIMER_HARNESS_TAG=$(cat "$dir/tag")"
}

. "$(dirname "$0")/tagged.sh"

case "$cmd" in
setup)
    [ -n "$home" ] || usage "setup needs --home HOME"
    mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || exit 1
    mkdir -p "$home" && home=$(cd "$home" && pwd) || exit 1
    echo "$home" >"$dir/home"
    echo "biomatimer-gnome-shell-$$-$(date +%s%N)" >"$dir/tag"
    if [ "$(id -u)" = 0 ]; then
        [ -n "$user" ] || user=biomatest
        id "$user" >/dev/null 2>&1 || useradd -m -s /bin/sh "$user" || fail "cannot create user $user"
        echo "$user" >"$dir/user"
        chmod 755 "$dir"
    fi
    mkdir -p "$home/.local/share" "$home/.config" "$home/.cache" "$home/runtime"
    chmod 700 "$home/runtime"
    [ "$(id -u)" = 0 ] && chown -R "$user" "$home"
    exit 0
    ;;
start)
    [ -s "$dir/home" ] || usage "run setup first"
    # In a subshell writing to start.log: what it leaves running must not hold the caller's
    # standard output and error (a test reads them to their end).
    (
    for tool in gnome-shell Xvfb xwd xwdtopnm pnmtopng xdotool dbus-run-session dbus-daemon gdbus gsettings; do
        command -v "$tool" >/dev/null 2>&1 || fail "$tool not installed"
    done
    dir=$(cd "$dir" && pwd) || exit 1
    user=$(cat "$dir/user" 2>/dev/null)
    tag=$(cat "$dir/tag")

    # Xvfb picks a free display and writes its number to fd 3.
    BIOMATIMER_HARNESS_TAG=$tag Xvfb -displayfd 3 -screen 0 "${size}x24" -nolisten tcp \
        3>"$dir/display.fd" >"$dir/xvfb.log" 2>&1 &
    i=0
    while [ ! -s "$dir/display.fd" ]; do
        [ $i -ge 100 ] && fail "Xvfb did not start within 10 s; see $dir/xvfb.log"
        sleep 0.1; i=$((i + 1))
    done
    echo ":$(tr -dc 0-9 <"$dir/display.fd")" >"$dir/display"

    # Without a system bus the shell starts with no UI: a private one stands in.
    : >"$dir/system-bus.out"
    [ "$(id -u)" = 0 ] && chown "$user" "$dir/system-bus.out"
    as_user env -i BIOMATIMER_HARNESS_TAG="$tag" PATH=/usr/bin:/bin \
        dbus-daemon --session --nofork --nopidfile --print-address=1 >"$dir/system-bus.out" 2>/dev/null &
    i=0
    while [ ! -s "$dir/system-bus.out" ]; do
        [ $i -ge 100 ] && fail "the private system bus did not start within 10 s"
        sleep 0.1; i=$((i + 1))
    done
    head -n 1 "$dir/system-bus.out" >"$dir/system-bus"

    # The session: settings first (the shell reads enabled-extensions once), then the shell.
    enabled="[]"
    [ -n "$uuid" ] && enabled="['$uuid']"
    : >"$dir/shell.log"
    [ "$(id -u)" = 0 ] && chown "$user" "$dir/shell.log" "$dir"
    # shellcheck disable=SC2046
    as_user env -i $(session_env) dbus-run-session -- sh -c '
        echo "$DBUS_SESSION_BUS_ADDRESS" >"$1/bus"
        gsettings set org.gnome.shell disable-user-extensions false
        gsettings set org.gnome.shell enabled-extensions "$2"
        gsettings set org.gnome.desktop.interface enable-animations false
        gsettings set org.gnome.shell welcome-dialog-last-shown-version "999"
        exec gnome-shell --x11 --replace --sm-disable' sh "$dir" "$enabled" >>"$dir/shell.log" 2>&1 &

    gcall() { as_user env -i $(session_env) gdbus call --session "$@" 2>/dev/null; }
    i=0
    until gcall --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.NameHasOwner org.gnome.Shell | grep -q true; do
        [ $i -ge 300 ] && fail "the shell did not take org.gnome.Shell within 30 s; see $dir/shell.log"
        sleep 0.1; i=$((i + 1))
    done
    if [ -n "$uuid" ]; then
        i=0
        # ExtensionState.ENABLED is 1.
        until gcall --dest org.gnome.Shell --object-path /org/gnome/Shell \
            --method org.gnome.Shell.Extensions.GetExtensionInfo "$uuid" | grep -q "'state': <1.0>"; do
            [ $i -ge 300 ] && fail "extension $uuid not enabled within 30 s: $(gcall --dest org.gnome.Shell \
                --object-path /org/gnome/Shell --method org.gnome.Shell.Extensions.GetExtensionInfo "$uuid")"
            sleep 0.1; i=$((i + 1))
        done
    fi
    # The shell starts in the overview, which hides the panel's indicators: once its start-up
    # is over (the animation into the overview ends with this line), the overview is closed.
    i=0
    until grep -q "GNOME Shell started at" "$dir/shell.log"; do
        [ $i -ge 300 ] && fail "the shell did not finish starting within 30 s; see $dir/shell.log"
        sleep 0.1; i=$((i + 1))
    done
    i=0
    until gcall --dest org.gnome.Shell --object-path /org/gnome/Shell --method org.freedesktop.DBus.Properties.Get \
        org.gnome.Shell OverviewActive | grep -q false; do
        gcall --dest org.gnome.Shell --object-path /org/gnome/Shell --method org.freedesktop.DBus.Properties.Set \
            org.gnome.Shell OverviewActive '<false>' >/dev/null
        [ $i -ge 100 ] && fail "the overview did not close within 10 s"
        sleep 0.1; i=$((i + 1))
    done
    ) >"$dir/start.log" 2>&1 </dev/null
    status=$?
    [ $status = 0 ] || cat "$dir/start.log" >&2
    exit $status
    ;;
run)
    [ $# -gt 0 ] || usage "run needs -- COMMAND"
    # shellcheck disable=SC2046
    exec_env=$(session_env)
    # shellcheck disable=SC2086
    as_user env -i $exec_env "$@"
    ;;
shot)
    [ -n "$out" ] || usage "shot needs --out FILE.png"
    case "$out" in
    *.ppm) xwd -display "$(cat "$dir/display")" -root -silent | xwdtopnm 2>/dev/null >"$out.tmp" ;;
    *) xwd -display "$(cat "$dir/display")" -root -silent | xwdtopnm 2>/dev/null | pnmtopng >"$out.tmp" 2>/dev/null ;;
    esac
    [ -s "$out.tmp" ] && mv "$out.tmp" "$out" || fail "could not take a screenshot"
    ;;
click)
    [ -n "$at" ] || usage "click needs --at X,Y[,BUTTON]"
    x=${at%%,*}; rest=${at#*,}; y=${rest%%,*}; button=1
    [ "$rest" != "$y" ] && button=${rest#*,}
    DISPLAY=$(cat "$dir/display") xdotool mousemove "$x" "$y" click "$button" || fail "xdotool could not click $at"
    ;;
stop)
    tag=$(cat "$dir/tag" 2>/dev/null) && stop_tagged "$tag" 50
    exit 0
    ;;
*) usage "unknown command ${cmd:-(none)}: start, run, shot, click or stop" ;;
esac
