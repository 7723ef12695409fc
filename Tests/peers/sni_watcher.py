#!/usr/bin/python3
"""A stand-in org.kde.StatusNotifierWatcher (and host) with python3-dbus, for the tray tests.

Owns org.kde.StatusNotifierWatcher on the bus in $DBUS_SESSION_BUS_ADDRESS and exports
/StatusNotifierWatcher with RegisterStatusNotifierItem(s), RegisterStatusNotifierHost(s) and the
properties hosts read. Prints one JSON object a line on stdout:
  {"ready": true}                                 once the name is owned
  {"registered": SERVICE, "sender": SENDER}       for every registration
  {"refused": SERVICE, "sender": SENDER}          for each of the first $SNI_REFUSE ones, which fail
  {"signal": MEMBER, "path": PATH, "args": [...]} for every signal the item or menu sends
  {"reply": COMMAND, ...} / {"error": COMMAND, "name": ..., "message": ...}  for commands
Commands, one a line on stdin, act as a host would on the last registered item:
  getall                 GetAll on the item: the properties, the pixmaps' sizes and their
                         centre pixel (A, R, G, B bytes as received, network byte order)
  layout                 GetLayout(0, -1, []) as waybar asks it
  group ID,ID            GetGroupProperties([ids], [])
  eventgroup ID NAME     EventGroup([(ID, NAME, "", 0)])
  event ID NAME          Event(ID, NAME, "", 0)
  abouttoshow ID         AboutToShowGroup([ID])
  activate | secondary | scroll DELTA ORIENTATION
  raw METHOD JSON-ARGS   a call with the given dbus-python arguments (bad input tests)
"""
import json
import os
import sys

import dbus
import dbus.service
import dbus.mainloop.glib
from gi.repository import GLib

WATCHER = "org.kde.StatusNotifierWatcher"
ITEM = "org.kde.StatusNotifierItem"
MENU = "com.canonical.dbusmenu"


def out(obj):
    print(json.dumps(obj), flush=True)


def plain(v):
    """dbus-python values as JSON: byte arrays as lists of ints, structs as lists."""
    if isinstance(v, (dbus.Boolean,)):
        return bool(v)
    if isinstance(v, (bytes, bytearray)):
        return list(v)
    if isinstance(v, dbus.Byte):
        return int(v)
    if isinstance(v, (int,)):
        return int(v)
    if isinstance(v, float):
        return float(v)
    if isinstance(v, str):
        return str(v)
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return str(v)


def row(layout):
    ident, props, children = layout
    return {
        "id": int(ident),
        "props": {str(k): plain(v) for k, v in props.items() if k != "icon-data"},
        "icon": list(bytes(props["icon-data"])) if "icon-data" in props else None,
        "children": [row(c) for c in children],
    }


class Watcher(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/StatusNotifierWatcher")
        self.bus = bus
        self.items = []
        # SNI_REFUSE=N: the first N registrations fail (a panel still starting).
        self.refuse = int(os.environ.get("SNI_REFUSE", "0"))

    @dbus.service.method(WATCHER, in_signature="s", out_signature="", sender_keyword="sender")
    def RegisterStatusNotifierItem(self, service, sender=None):
        if self.refuse > 0:
            self.refuse -= 1
            out({"refused": str(service), "sender": str(sender)})
            raise dbus.DBusException("not ready yet", name="org.freedesktop.DBus.Error.Failed")
        self.items.append((str(service), str(sender)))
        out({"registered": str(service), "sender": str(sender)})
        self.StatusNotifierItemRegistered(service)

    @dbus.service.method(WATCHER, in_signature="s", out_signature="")
    def RegisterStatusNotifierHost(self, service):
        pass

    @dbus.service.signal(WATCHER, signature="s")
    def StatusNotifierItemRegistered(self, service):
        pass

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return self.GetAll(interface)[name]

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return {
            "RegisteredStatusNotifierItems": dbus.Array([s for s, _ in self.items], signature="s"),
            "IsStatusNotifierHostRegistered": dbus.Boolean(True),
            "ProtocolVersion": dbus.Int32(0),
        }


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    watcher = Watcher(bus)

    def on_signal(*args, **kw):
        out({"signal": kw["member"], "path": kw["path"], "sender": kw["sender"], "args": plain(list(args))})

    for iface in (ITEM, MENU):
        bus.add_signal_receiver(on_signal, dbus_interface=iface, member_keyword="member", path_keyword="path",
                                sender_keyword="sender")

    def item():
        if not watcher.items:
            raise dbus.DBusException("no item has registered", name="org.biomatimer.Test.NoItem")
        service, sender = watcher.items[-1]
        return bus.get_object(service, "/StatusNotifierItem", introspect=False), \
            bus.get_object(service, "/MenuBar", introspect=False)

    def command(line):
        words = line.split()
        name = words[0]
        try:
            obj, menu = item()
            if name == "getall":
                props = obj.GetAll(ITEM, dbus_interface=dbus.PROPERTIES_IFACE)
                result = {}
                for key, value in props.items():
                    if key in ("IconPixmap", "AttentionIconPixmap", "OverlayIconPixmap"):
                        images = []
                        for w, h, data in value:
                            data = bytes(data)
                            c = ((h // 2) * w + w // 2) * 4
                            images.append({"w": int(w), "h": int(h), "len": len(data),
                                           "centre": list(data[c:c + 4]), "corner": list(data[0:4])})
                        result[str(key)] = images
                    elif key == "ToolTip":
                        result[str(key)] = [str(value[0]), len(value[1]), str(value[2]), str(value[3])]
                    else:
                        result[str(key)] = plain(value)
                out({"reply": "getall", "properties": result, "signature": props.signature})
            elif name == "layout":
                revision, layout = menu.GetLayout(0, -1, dbus.Array([], signature="s"), dbus_interface=MENU)
                out({"reply": "layout", "revision": int(revision), "root": row(layout)})
            elif name == "group":
                ids = [int(x) for x in words[1].split(",")] if len(words) > 1 else []
                rows = menu.GetGroupProperties(dbus.Array(ids, signature="i"), dbus.Array([], signature="s"),
                                               dbus_interface=MENU)
                out({"reply": "group", "rows": [{"id": int(i), "props": {str(k): (list(bytes(v)) if k == "icon-data" else plain(v))
                                                                        for k, v in p.items()}} for i, p in rows]})
            elif name == "eventgroup":
                errors = menu.EventGroup(dbus.Array([dbus.Struct((dbus.Int32(int(words[1])), words[2], dbus.String("", variant_level=1),
                                                                   dbus.UInt32(0)))], signature="(isvu)"), dbus_interface=MENU)
                out({"reply": "eventgroup", "idErrors": plain(errors)})
            elif name == "event":
                menu.Event(dbus.Int32(int(words[1])), words[2], dbus.String("", variant_level=1), dbus.UInt32(0),
                           dbus_interface=MENU)
                out({"reply": "event"})
            elif name == "abouttoshow":
                updates, errors = menu.AboutToShowGroup(dbus.Array([int(words[1])], signature="i"), dbus_interface=MENU)
                out({"reply": "abouttoshow", "updates": plain(updates), "errors": plain(errors)})
            elif name == "activate":
                obj.Activate(dbus.Int32(0), dbus.Int32(0), dbus_interface=ITEM)
                out({"reply": "activate"})
            elif name == "secondary":
                obj.SecondaryActivate(dbus.Int32(0), dbus.Int32(0), dbus_interface=ITEM)
                out({"reply": "secondary"})
            elif name == "scroll":
                obj.Scroll(dbus.Int32(int(words[1])), words[2], dbus_interface=ITEM)
                out({"reply": "scroll"})
            elif name == "raw":
                target = menu if words[1] != "Item" else obj
                method, args = words[2], json.loads(line.split(None, 3)[3])
                iface = MENU if words[1] != "Item" else ITEM
                decoded = [eval(a, {"dbus": dbus}) for a in args]
                result = target.get_dbus_method(method, iface)(*decoded)
                out({"reply": "raw", "result": plain(result)})
            else:
                out({"error": name, "name": "unknown command", "message": line})
        except dbus.DBusException as e:
            out({"error": name, "name": e.get_dbus_name(), "message": e.get_dbus_message()})
        except Exception as e:  # a malformed command: say so rather than die
            out({"error": name, "name": type(e).__name__, "message": str(e)})

    def on_stdin(source, condition):
        line = sys.stdin.readline()
        if not line:
            GLib.MainLoop().quit()
            sys.exit(0)
        if line.strip():
            command(line.strip())
        return True

    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, on_stdin)

    # "ready" once the name is ours: a watcher that has just gone may still hold it for a
    # moment, so the request waits in the queue rather than failing.
    def acquired(name):
        if name == WATCHER:
            out({"ready": True})

    bus.add_signal_receiver(acquired, signal_name="NameAcquired", dbus_interface="org.freedesktop.DBus")
    if bus.request_name(WATCHER, 0) == dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
        pass  # NameAcquired follows and says ready
    GLib.MainLoop().run()


if __name__ == "__main__":
    sys.exit(main())
