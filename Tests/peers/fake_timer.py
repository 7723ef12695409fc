#!/usr/bin/python3
"""A stand-in for the biomatimer daemon, written with python3-dbus, for the client's failure
paths that the real daemon never takes.

Owns org.biomatimer.Timer1 on the bus in $DBUS_SESSION_BUS_ADDRESS and answers every method
of org.biomatimer.Timer1 and org.biomatimer.Command1 (the front's Run) on
/org/biomatimer/Timer1 according to MODE (argv[1]):
  hang     never replies (the caller's timeout runs out); prints "call MEMBER" for each
  foreign  fails with org.example.Error.Foreign "a foreign failure" (not the daemon's own)
Prints "ready" on stdout once the name is owned.
"""
import sys

import dbus
import dbus.lowlevel
import dbus.mainloop.glib
from gi.repository import GLib

MODE = sys.argv[1]
held = []  # messages never answered stay referenced


def handler(connection, message):
    if message.get_type() != dbus.lowlevel.MESSAGE_TYPE_METHOD_CALL:
        return
    if message.get_interface() not in ("org.biomatimer.Timer1", "org.biomatimer.Command1"):
        return
    if MODE == "hang":
        held.append(message)
        print("call " + message.get_member(), flush=True)
        return
    reply = dbus.lowlevel.ErrorMessage(message, "org.example.Error.Foreign", "a foreign failure")
    connection.send_message(reply)


dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
bus.add_message_filter(handler)
bus.request_name("org.biomatimer.Timer1", dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
print("ready", flush=True)
GLib.MainLoop().run()
