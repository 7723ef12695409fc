#!/usr/bin/python3
"""`make bench`, the tray: run by .ci/bench on its private bus with a daemon running and
`biomatimer tray` started.  tray_bench.py TRAY-PID BIOMATIMER REPS

Acts as the StatusNotifierWatcher (python3-dbus) and measures, each against a baseline taken
in the same process:
  1. a change reaching the tray's NewIcon: from sending Toggle to the daemon to receiving
     NewIcon, vs to receiving the daemon's own PropertiesChanged (the baseline);
  2. the menu's GetLayout(0, -1, []) with 50 projects vs a Peer.Ping to the same connection;
  3. the tray's private memory (/proc/PID/smaps_rollup): Private_Clean + Private_Dirty against
     the 4 MiB aim. `biomatimer tray` runs `biomatimer-tray` (the tray alone, the Swift runtime
     shared), so the runtime's pages it shares with the daemon are Shared_Clean, shown apart.
"""
import statistics
import subprocess
import sys
import time

import dbus
import dbus.lowlevel
import dbus.service
import dbus.mainloop.glib
from gi.repository import GLib

pid, bio, reps = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
loop = GLib.MainLoop()
items = []


class Watcher(dbus.service.Object):
    @dbus.service.method("org.kde.StatusNotifierWatcher", in_signature="s", out_signature="")
    def RegisterStatusNotifierItem(self, service):
        items.append(str(service))
        GLib.idle_add(loop.quit)


Watcher(bus, "/StatusNotifierWatcher")
bus.request_name("org.kde.StatusNotifierWatcher")
GLib.timeout_add(10000, loop.quit)
loop.run()
if not items:
    sys.exit("tray bench: the tray did not register")
tray = items[-1]

# 50 projects (the daemon keeps them; the bench's data folder is thrown away).
for i in range(50 - len(bus.get_object("org.biomatimer.Timer1", "/org/biomatimer/Timer1").ListProjects(
        dbus_interface="org.biomatimer.Timer1"))):
    subprocess.run([bio, "project", "add", f"Bench project {i:02d}"], check=True, capture_output=True)

timer = bus.get_object("org.biomatimer.Timer1", "/org/biomatimer/Timer1")
state = {}


def on_signal(*args, **kw):
    key = kw["member"]
    if key in state and key not in state.get("seen", {}):
        state.setdefault("seen", {})[key] = time.perf_counter()
        if len(state["seen"]) == 2:
            loop.quit()


bus.add_signal_receiver(on_signal, signal_name="NewIcon", dbus_interface="org.kde.StatusNotifierItem",
                        member_keyword="member")
bus.add_signal_receiver(on_signal, signal_name="PropertiesChanged", dbus_interface="org.freedesktop.DBus.Properties",
                        path="/org/biomatimer/Timer1", member_keyword="member")
icon_ms, changed_ms = [], []
for _ in range(reps):
    state = {"NewIcon": True, "PropertiesChanged": True}
    t0 = time.perf_counter()
    timer.Toggle(dbus_interface="org.biomatimer.Timer1", reply_handler=lambda *a: None, error_handler=print)
    GLib.timeout_add(5000, loop.quit)
    loop.run()
    seen = state.get("seen", {})
    if len(seen) == 2:
        icon_ms.append((seen["NewIcon"] - t0) * 1000)
        changed_ms.append((seen["PropertiesChanged"] - t0) * 1000)
    time.sleep(0.05)  # let the tray's follow-up reads (ListProjects) finish between changes

menu = bus.get_object(tray, "/MenuBar")
item = bus.get_object(tray, "/StatusNotifierItem")
revision, layout = menu.GetLayout(0, -1, dbus.Array([], signature="s"), dbus_interface="com.canonical.dbusmenu")
rows = len(layout[2])
layout_ms, ping_ms, raw_ms = [], [], []
for _ in range(reps * 10):
    t0 = time.perf_counter()
    menu.GetLayout(0, -1, dbus.Array([], signature="s"), dbus_interface="com.canonical.dbusmenu", byte_arrays=True)
    layout_ms.append((time.perf_counter() - t0) * 1000)
    t0 = time.perf_counter()
    item.Ping(dbus_interface="org.freedesktop.DBus.Peer")
    ping_ms.append((time.perf_counter() - t0) * 1000)
    # The same call with the reply left undecoded: the tray's answer without python's reading.
    call = dbus.lowlevel.MethodCallMessage(tray, "/MenuBar", "com.canonical.dbusmenu", "GetLayout")
    call.append(0, -1, dbus.Array([], signature="s"), signature="iias")
    t0 = time.perf_counter()
    bus.send_message_with_reply_and_block(call, 5)
    raw_ms.append((time.perf_counter() - t0) * 1000)

private = {}
with open(f"/proc/{pid}/smaps_rollup") as f:
    for line in f:
        if line.startswith(("Private_Clean:", "Private_Dirty:", "Shared_Clean:")):
            private[line.split(":")[0]] = int(line.split()[1])
private_mib = (private["Private_Clean"] + private["Private_Dirty"]) / 1024


def med(values):
    return statistics.median(values) if values else float("nan")


print("| what                                              | median      | baseline (same run)              |")
print("|---------------------------------------------------|-------------|----------------------------------|")
print(f"| Toggle → the tray's NewIcon ({len(icon_ms)} changes)             | {med(icon_ms):7.2f} ms  | → daemon's PropertiesChanged {med(changed_ms):5.2f} ms |")
print(f"| GetLayout(0, -1, []) with {rows} top rows              | {med(layout_ms):7.2f} ms  | Peer.Ping to the tray {med(ping_ms):5.2f} ms       |")
print(f"| GetLayout, the reply not decoded by python         | {med(raw_ms):7.2f} ms  | Peer.Ping to the tray {med(ping_ms):5.2f} ms       |")
print(f"| the tray's private memory (clean + dirty)         | {private_mib:7.2f} MiB | target: under 4 MiB              |")
print(f"|   private dirty (heap, stacks, relocations)       | {private['Private_Dirty'] / 1024:7.2f} MiB |                                  |")
print(f"|   private clean (pages of its files only it maps) | {private['Private_Clean'] / 1024:7.2f} MiB |                                  |")
print(f"|   shared clean (the Swift runtime with the daemon) | {private['Shared_Clean'] / 1024:7.2f} MiB | not counted                      |")
print()
print(f"NewIcon after PropertiesChanged: {med(icon_ms) - med(changed_ms):.2f} ms (target: a change reaches NewIcon in under 5 ms); "
      f"GetLayout beyond a Ping: {med(layout_ms) - med(ping_ms):.2f} ms, undecoded {med(raw_ms) - med(ping_ms):.2f} ms (target: under 2 ms); "
      f"private memory {private_mib:.2f} MiB (target: under 4 MiB)")
