#!/usr/bin/python3
"""An independent D-Bus service written with python3-dbus, for DBusKit's client tests.

Owns org.biomatimer.Test.Py on the bus in $DBUS_SESSION_BUS_ADDRESS, exports
/org/biomatimer/Test with interface org.biomatimer.Test.Py:
  Echo(v) -> v            returns its argument
  Add(x, x) -> x
  Fail(s name, s msg)     raises a D-Bus error with that name and message
  Ping(s text)            emits signal Pinged(s text, a{sv} extra) and returns nothing
Prints "ready" on stdout once the name is owned.
"""
import sys

import dbus
import dbus.service
import dbus.mainloop.glib
from gi.repository import GLib

IFACE = "org.biomatimer.Test.Py"


class NamedError(dbus.DBusException):
    def __init__(self, name, message):
        super().__init__(message)
        self._dbus_error_name = name


class Service(dbus.service.Object):
    @dbus.service.method(IFACE, in_signature="v", out_signature="v")
    def Echo(self, value):
        return value

    @dbus.service.method(IFACE, in_signature="xx", out_signature="x")
    def Add(self, a, b):
        return a + b

    @dbus.service.method(IFACE, in_signature="ss", out_signature="")
    def Fail(self, name, message):
        raise NamedError(str(name), str(message))

    @dbus.service.method(IFACE, in_signature="s", out_signature="")
    def Ping(self, text):
        self.Pinged(text, dbus.Dictionary({"Length": dbus.Int64(len(text))}, signature="sv"))

    @dbus.service.signal(IFACE, signature="sa{sv}")
    def Pinged(self, text, extra):
        pass


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    name = dbus.service.BusName("org.biomatimer.Test.Py", bus)
    Service(bus, "/org/biomatimer/Test")
    print("ready", flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    sys.exit(main())
