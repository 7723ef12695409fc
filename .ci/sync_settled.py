"""Waits until sync has settled on the daemon `biomatimer` talks to (the bus in the environment).

    sync_settled.py BIO             this device's operations are all in the folder: what it has
                                    written (its ReadUpTo) stayed the same for a second
    sync_settled.py BIO SEQUENCE    a peer's log has been read up to SEQUENCE (a replay is done)

A bulk change with sync on is answered before its operations are stamped and appended (a
slice per turn of the daemon's loop), and a peer's log is merged a slice per turn: the bench
times that work as a job of its own. Exits 1 after ten minutes.
"""
import json
import subprocess
import sys
import time

bio = sys.argv[1]
target = int(sys.argv[2]) if len(sys.argv) > 2 else None


def devices():
    out = subprocess.run([bio, "sync", "status", "--json"], capture_output=True, text=True, check=True).stdout
    return json.loads(out)["devices"]


deadline = time.monotonic() + 600
last, since = None, time.monotonic()
while time.monotonic() < deadline:
    rows = devices()
    if target is not None:
        if any(not row.get("this") and row.get("read_up_to") == target for row in rows):
            sys.exit(0)
    else:
        written = next((row.get("read_up_to") for row in rows if row.get("this")), None)
        if written != last:
            last, since = written, time.monotonic()
        elif time.monotonic() - since >= 1:
            sys.exit(0)
    time.sleep(0.2)
print("sync_settled: still not settled after ten minutes", file=sys.stderr)
sys.exit(1)
