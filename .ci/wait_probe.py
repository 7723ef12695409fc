"""The longest wait behind bulk work: while each job runs, a status call every 10 ms.

    wait_probe.py BASELINE-SECONDS -- LABEL COMMAND [aim=MS] [toggles] [-- LABEL COMMAND … ]

For each job, COMMAND runs (through /bin/sh) while this process asks the daemon for its state
(`GetAll` on org.biomatimer.Timer1, as a bar does) every 10 ms, one call at a time, and times
each call from sending to its answer. The baseline is the same calls for BASELINE-SECONDS with
nothing else running, measured in the same run. Prints one table: the job's own time, the calls
made, and their median, p99 and longest wait (aim: p99 and max at most 50 ms); then, for each
job given `aim=MS`, its time against that aim. A job given `toggles` has every tenth call of
its first two seconds a `Toggle` instead (a change, which waits for the slice of bulk work
under way, where a read is answered during it; twenty, so the timer ends as it was, and none
later: a job that waits for the sync folder to settle would wait for them): their waits are
printed apart, against the same 50 ms.
"""
import statistics
import subprocess
import sys
import threading
import time

import dbus

args = sys.argv[1:]
baseline_seconds = float(args[0])
jobs = []
rest = args[2:]
aims = {}
toggling = set()
while rest:
    label, command = rest[0], rest[1]
    jobs.append((label, command))
    rest = rest[2:]
    while rest and rest[0] != "--":
        if rest[0].startswith("aim="):
            aims[label] = float(rest[0][4:])
        elif rest[0] == "toggles":
            toggling.add(label)
        else:
            sys.exit(f"wait_probe.py: {rest[0]!r} is neither aim=MS nor toggles")
        rest = rest[1:]
    rest = rest[1:]

bus = dbus.SessionBus()


def ask():
    start = time.monotonic()
    bus.call_blocking("org.biomatimer.Timer1", "/org/biomatimer/Timer1", "org.freedesktop.DBus.Properties", "GetAll",
                      "s", ["org.biomatimer.Timer1"], timeout=600)
    return (time.monotonic() - start) * 1000


def toggle():
    start = time.monotonic()
    bus.call_blocking("org.biomatimer.Timer1", "/org/biomatimer/Timer1", "org.biomatimer.Timer1", "Toggle", "", [],
                      timeout=600)
    return (time.monotonic() - start) * 1000


def probe(running, toggles=None):
    """Calls every 10 ms while running() is true; the waits in ms. Given a list `toggles`,
    every tenth of the first 200 calls is a Toggle, its wait added there (an even number of
    them, however soon the job ends)."""
    waits = []
    next_call = time.monotonic()
    calls = 0
    while running() or (toggles is not None and len(toggles) % 2):
        calls += 1
        if toggles is not None and ((calls % 10 == 0 and calls <= 200) or not running()):
            toggles.append(toggle())
        else:
            waits.append(ask())
        next_call += 0.010
        pause = next_call - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        else:
            next_call = time.monotonic()
    return waits


def p99(values):
    ordered = sorted(values)
    return ordered[max(0, int(round(0.99 * len(ordered))) - 1)]


rows = []
toggles = {}
end = time.monotonic() + baseline_seconds
rows.append(("baseline: nothing else running", baseline_seconds * 1000, probe(lambda: time.monotonic() < end), True))
for label, command in jobs:
    started = time.monotonic()
    job = subprocess.Popen(["/bin/sh", "-c", command], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # The job's own end, taken by a thread waiting for it: the probe sees it only at its next
    # call, up to 10 ms later.
    ended = []
    waiter = threading.Thread(target=lambda: (job.wait(), ended.append(time.monotonic())))
    waiter.start()
    toggles[label] = [] if label in toggling else None
    waits = probe(lambda: not ended, toggles[label])
    waiter.join()
    took = (ended[0] - started) * 1000
    ok = job.returncode == 0
    if not ok:
        print(f"bench: {label} failed: {job.stderr.read().decode(errors='replace').strip()}", file=sys.stderr)
    rows.append((label, took, waits or [ask()], ok))

w = max(len(r[0]) for r in rows)
print(f"| {'job':<{w}} | job ms    | calls | median ms | p99 ms   | max ms   |")
print(f"|{'-' * (w + 2)}|-----------|-------|-----------|----------|----------|")
over = []
for label, took, waits, ok in rows:
    mark = "" if ok else "  (failed)"
    print(f"| {label:<{w}} | {took:9.1f} | {len(waits):5d} | {statistics.median(waits):9.2f} | {p99(waits):8.2f} | {max(waits):8.2f} |{mark}")
    if label != rows[0][0] and max(waits) > 50:
        over.append(label)
base = rows[0][2]
print()
print(f"baseline: median {statistics.median(base):.2f} ms, p99 {p99(base):.2f} ms; "
      f"worst job's longest wait / baseline p99 = {max(max(r[2]) for r in rows[1:]) / max(p99(base), 0.001):.0f}× "
      f"(aim: every wait at most 50 ms)")
print(f"{len(rows) - 1 - len(over)} of {len(rows) - 1} jobs kept every wait within 50 ms" + (f"; over: {', '.join(over)}" if over else ""))
for label, took, _, ok in rows:
    if label in aims:
        verdict = "at or under" if ok and took <= aims[label] else "ABOVE"
        print(f"{label}: {took / 1000:.2f} s ({verdict} the {aims[label] / 1000:g} s aim)")
for label, waits in toggles.items():
    if waits:
        verdict = "within" if max(waits) <= 50 else "ABOVE"
        print(f"{label}: {len(waits)} toggles meanwhile, median {statistics.median(waits):.2f} ms, "
              f"longest {max(waits):.2f} ms ({verdict} the 50 ms aim)")
