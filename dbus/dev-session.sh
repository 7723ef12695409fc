#!/usr/bin/env bash
# `make run`: the daemon with a live status line. Uses the session bus when there is one;
# otherwise starts a private dbus-daemon (dbus/private-bus.conf.in) and prints its address
# for other terminals. Ctrl-C stops everything it started.
set -euo pipefail
bin=${1:?usage: dev-session.sh PATH/TO/biomatimer}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/biomatimer-run.XXXXXX")
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

bus_ok() { [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] && dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.GetId >/dev/null 2>&1; }
if ! bus_ok; then
    mkdir -p "$work/socket" "$work/services"
    sed -e "s|@LISTEN_DIR@|$work/socket|" -e "s|@SERVICE_DIR@|$work/services|" \
        "$here/private-bus.conf.in" > "$work/bus.conf"
    dbus-daemon --config-file="$work/bus.conf" --nofork --nopidfile --print-address=3 3>"$work/address" 2>"$work/bus.log" &
    pids+=($!)
    for _ in $(seq 100); do [ -s "$work/address" ] && break; sleep 0.05; done
    export DBUS_SESSION_BUS_ADDRESS=$(head -n1 "$work/address")
    # Activation from this bus starts the same binary.
    printf '[D-BUS Service]\nName=org.biomatimer.Timer1\nExec=%s daemon\n' "$bin" > "$work/services/org.biomatimer.Timer1.service"
    echo "No session bus: started a private one. In another terminal:"
    echo "  export DBUS_SESSION_BUS_ADDRESS='$DBUS_SESSION_BUS_ADDRESS'"
fi

if "$bin" daemon 2>"$work/daemon.log" & then pids+=($!); fi
sleep 0.3
if ! kill -0 "${pids[-1]}" 2>/dev/null; then
    cat "$work/daemon.log" >&2   # most likely: a daemon is already running; use it
fi
echo "Try: $bin toggle | $bin project add 'Client A' | $bin project start 'Client A' | $bin report --week"
echo "Live island line (Ctrl-C to stop):"
"$bin" watch --format island
