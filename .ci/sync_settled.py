"""Waits until sync has settled on the daemon on the session bus in the environment.

    sync_settled.py BIO             this device's operations are all in the folder: what it has
                                    written (its ReadUpTo) stayed the same for a second
    sync_settled.py BIO SEQUENCE    a peer's log has been read up to SEQUENCE (a replay is done)

A bulk change with sync on is answered before its operations are stamped and appended (a
slice per turn of the daemon's loop), and a peer's log is merged a slice per turn: the bench
times that work as a job of its own. The rows are read as `sync status` reads them (the
`Devices` property of org.biomatimer.Sync1), over one connection of this process's own and
without a process per look: every 20 ms, so that a replay's time is its own to within 20 ms
(a `sync status` process every 0.2 s added up to 0.2 s to it, and each look cost a process).
BIO is kept for the callers; it is not run. Exits 1 after ten minutes.
"""
import sys
import time

import dbus

target = int(sys.argv[2]) if len(sys.argv) > 2 else None
bus = dbus.SessionBus()


def devices():
    """This machine's row first, then every peer's (the contract's order)."""
    return bus.call_blocking(
        "org.biomatimer.Timer1", "/org/biomatimer/Timer1", "org.freedesktop.DBus.Properties", "Get", "ss",
        ["org.biomatimer.Sync1", "Devices"], timeout=600)


deadline = time.monotonic() + 600
last, since = None, time.monotonic()
while time.monotonic() < deadline:
    rows = devices()
    if target is not None:
        if any(int(row.get("ReadUpTo", -1)) == target for row in rows[1:]):
            sys.exit(0)
    else:
        written = int(rows[0].get("ReadUpTo", -1)) if rows else None
        if written != last:
            last, since = written, time.monotonic()
        elif time.monotonic() - since >= 1:
            sys.exit(0)
    time.sleep(0.02)
print("sync_settled: still not settled after ten minutes", file=sys.stderr)
sys.exit(1)
