#!/usr/bin/python3
"""An independent D-Bus client written with python3-dbus, for DBusKit's service tests.

Calls the Swift test service (org.biomatimer.Test.Swift, /org/biomatimer/Test, interface
org.biomatimer.Test.Echo) on the bus in $DBUS_SESSION_BUS_ADDRESS and prints one line per
check, "name: result", for the Swift test to compare exactly. Listens for the service's
Emitted signal (it calls Emit) and for PropertiesChanged, which the Swift test emits when it
reads the line "listening: True". Exits 0 when it could run
all checks (the Swift test judges the lines), 2 on an unexpected exception.
"""
import sys

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

NAME = "org.biomatimer.Test.Swift"
PATH = "/org/biomatimer/Test"
IFACE = "org.biomatimer.Test.Echo"
PROPS = "org.freedesktop.DBus.Properties"


def show(label, value):
    print(f"{label}: {value!r}", flush=True)


def error_of(fn):
    try:
        fn()
    except dbus.DBusException as e:
        return f"{e.get_dbus_name()}|{e.get_dbus_message()}"
    return "no error"


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    obj = bus.get_object(NAME, PATH, introspect=False)
    echo = dbus.Interface(obj, IFACE)
    props = dbus.Interface(obj, PROPS)

    show("echo string", str(echo.Echo(dbus.String("héllo ✓", variant_level=1))))
    show("echo int16", int(echo.Echo(dbus.Int16(-7, variant_level=1))))
    show("echo uint64", int(echo.Echo(dbus.UInt64(2**64 - 1, variant_level=1))))
    show("echo double", float(echo.Echo(dbus.Double(2.5, variant_level=1))))
    r = echo.Echo(dbus.Array([1, 2, 3], signature="i", variant_level=1))
    show("echo ai", (str(r.signature), [int(x) for x in r]))
    r = echo.Echo(dbus.Array([], signature="s", variant_level=1))
    show("echo empty as", (str(r.signature), list(r)))
    r = echo.Echo(dbus.Dictionary({"k": dbus.String("v", variant_level=1)}, signature="sv", variant_level=1))
    show("echo a{sv}", (str(r.signature), {str(k): str(v) for k, v in r.items()}))
    r = echo.Echo(dbus.Struct((dbus.String("s"), dbus.Int64(5)), signature="sx", variant_level=1))
    show("echo (sx)", (type(r).__name__, str(r[0]), int(r[1])))
    show("echo objectpath", (type(echo.Echo(dbus.ObjectPath("/a/b", variant_level=1))).__name__))
    show("sum", int(echo.Sum(dbus.Array([1, 2, -10], signature="x"))))
    show("fail", error_of(lambda: echo.Fail("org.example.Error.Custom", "it broke")))
    show("bad args", error_of(lambda: echo.Sum(dbus.String("1"))).split("|")[0])
    show("unknown method", error_of(lambda: obj.Nope(dbus_interface=IFACE)).split("|")[0])

    show("get Label", str(props.Get(IFACE, "Label")))
    show("read-only", error_of(lambda: props.Set(IFACE, "Calls", dbus.UInt32(1, variant_level=1))).split("|")[0])

    # Signals: subscribe, then make the service emit Emitted and PropertiesChanged.
    got = []
    loop = GLib.MainLoop()

    def on_emitted(text):
        got.append(("Emitted", str(text)))
        if len(got) == 2:
            loop.quit()

    def on_changed(interface, changed, invalidated):
        got.append(("PropertiesChanged", str(interface), sorted((str(k), str(v)) for k, v in changed.items()),
                    [str(x) for x in invalidated]))
        if len(got) == 2:
            loop.quit()

    bus.add_signal_receiver(on_emitted, "Emitted", IFACE, NAME, PATH)
    bus.add_signal_receiver(on_changed, "PropertiesChanged", PROPS, NAME, PATH)
    props.Set(IFACE, "Label", dbus.String("set by python", variant_level=1))
    echo.Emit("from python")
    # The bus handles this connection's messages in order, so both match rules are in place
    # now: the Swift test emits PropertiesChanged when it reads this line.
    show("listening", True)
    GLib.timeout_add(5000, loop.quit)  # bounded wait; the test sees what is missing
    loop.run()
    show("signals", sorted(got))
    show("get Label after Set", str(props.Get(IFACE, "Label")))
    all_props = props.GetAll(IFACE)
    show("GetAll keys", sorted(str(k) for k in all_props.keys()))
    show("done", True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # noqa: BLE001 - report anything unexpected to the Swift test
        print(f"exception: {type(e).__name__}: {e}", flush=True)
        sys.exit(2)
