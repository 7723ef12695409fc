#!/usr/bin/python3
"""Sync latency for `make bench`: machine A toggles work (its operation is appended to the
folder before Toggle answers), machine B merges it (its Merged signal). Printed against the
baseline measured alongside: A's own PropertiesChanged after the same Toggle.

    sync_bench.py BUS-A BUS-B REPS
"""
import statistics
import sys
import time

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus_a = dbus.bus.BusConnection(sys.argv[1])
bus_b = dbus.bus.BusConnection(sys.argv[2])
reps = int(sys.argv[3])
loop = GLib.MainLoop()
now = time.monotonic
seen = {}


def mark(what):
    def handler(*_args):
        seen.setdefault(what, now())
        if {"reply", "changed", "merged"} <= seen.keys():
            loop.quit()
    return handler


bus_a.add_signal_receiver(
    mark("changed"), signal_name="PropertiesChanged", dbus_interface="org.freedesktop.DBus.Properties",
    path="/org/biomatimer/Timer1", arg0="org.biomatimer.Timer1")
bus_b.add_signal_receiver(mark("merged"), signal_name="Merged", dbus_interface="org.biomatimer.Sync1")
timer = bus_a.get_object("org.biomatimer.Timer1", "/org/biomatimer/Timer1")
local, merged = [], []
for _ in range(reps):
    seen.clear()
    start = now()
    timer.Toggle(dbus_interface="org.biomatimer.Timer1", reply_handler=mark("reply"),
                 error_handler=lambda e: sys.exit(f"sync bench: Toggle failed: {e}"))
    timeout = GLib.timeout_add(5000, loop.quit)
    loop.run()
    GLib.source_remove(timeout)
    if "merged" not in seen or "changed" not in seen:
        sys.exit("sync bench: B did not merge A's toggle within 5 s")
    local.append((seen["changed"] - start) * 1000)
    # From the moment A answered (its line is in the folder) to B's merge.
    merged.append((seen["merged"] - seen["reply"]) * 1000)
    time.sleep(0.05)


def p99(values):
    return sorted(values)[min(len(values) - 1, int(len(values) * 0.99))]


print("| measure (ms)                                              | median | p99    |")
print("|-----------------------------------------------------------|--------|--------|")
print(f"| baseline: A's own PropertiesChanged after Toggle          | {statistics.median(local):6.2f} | {p99(local):6.2f} |")
print(f"| B's Merged after A's answer (the line is in the folder)   | {statistics.median(merged):6.2f} | {p99(merged):6.2f} |")
print(f"merged / local = {statistics.median(merged) / statistics.median(local):.2f}×  (aim: within 1 s of the file arriving: {max(merged) < 1000})")
