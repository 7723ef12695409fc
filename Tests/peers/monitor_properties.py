#!/usr/bin/python3
"""An independent watcher of biomatimer's PropertiesChanged signals, in python3-dbus.

Prints "ready" once subscribed, then one JSON object per signal on stdout:
{"interface": ..., "changed": {name: value}, "invalidated": [...]}. Exits on SIGTERM.
"""
import json
import signal
import sys

import dbus
import dbus.mainloop.glib
from gi.repository import GLib


def plain(value):
    if isinstance(value, (dbus.Boolean,)):
        return bool(value)
    if isinstance(value, (dbus.Int16, dbus.Int32, dbus.Int64, dbus.UInt16, dbus.UInt32, dbus.UInt64, dbus.Byte)):
        return int(value)
    if isinstance(value, dbus.Double):
        return float(value)
    if isinstance(value, (dbus.String, dbus.ObjectPath, dbus.Signature)):
        return str(value)
    if isinstance(value, (dbus.Array, list)):
        return [plain(v) for v in value]
    if isinstance(value, dbus.Struct):
        return [plain(v) for v in value]
    if isinstance(value, (dbus.Dictionary, dict)):
        return {str(k): plain(v) for k, v in value.items()}
    return value


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()

    def on_changed(interface, changed, invalidated):
        print(json.dumps({"interface": str(interface), "changed": plain(changed),
                          "invalidated": plain(invalidated)}), flush=True)

    bus.add_signal_receiver(on_changed, signal_name="PropertiesChanged",
                            dbus_interface="org.freedesktop.DBus.Properties",
                            path="/org/biomatimer/Timer1")
    loop = GLib.MainLoop()
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, lambda: loop.quit() or False)
    # A round trip to the bus guarantees the match rule is in place before "ready".
    bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus").GetId(
        dbus_interface="org.freedesktop.DBus")
    print("ready", flush=True)
    loop.run()


if __name__ == "__main__":
    sys.exit(main())
