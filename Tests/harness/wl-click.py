#!/usr/bin/env python3
"""Clicks at a point of a wlroots compositor (sway) through a virtual pointer.

usage: wl-click.py [--extent WxH] [--gap SECONDS] [--follow FILE] X Y BUTTON [X Y BUTTON]...
    X, Y    layout coordinates (pixels); BUTTON 1 left, 2 middle, 3 right, 4 scroll up,
            5 scroll down
    needs WAYLAND_DISPLAY and XDG_RUNTIME_DIR; --extent WxH gives the layout size
    (default 1000x200) that motion_absolute maps onto; --gap the pause after each click
    (default 0.2 s; longer when a click opens a menu the next one clicks in); --follow a
    file a bar module's lines are written to: after each click but the last, wait (at most
    10 s) until its latest line, digits aside, is a new one, so each click's command has
    taken effect before the next click (the bar starts each command on its own)

A headless sway has no input devices, so its seat has no pointer and clients never bind
one: `swaymsg seat - cursor press` reaches nobody. This speaks the Wayland wire protocol
itself (standard library only): it creates a zwlr_virtual_pointer_v1, which sway adds to
the seat as a pointer device, waits until clients had time to bind their pointers, then
moves and clicks. Exit status 0 when every event was sent.
"""
import os
import re
import socket
import struct
import sys
import time

BUTTONS = {1: 0x110, 2: 0x112, 3: 0x111}  # BTN_LEFT, BTN_MIDDLE, BTN_RIGHT


def main(argv):
    extent = (1000, 200)
    gap = 0.2
    follow = None
    while len(argv) >= 2 and argv[0] in ("--extent", "--gap", "--follow"):
        if argv[0] == "--extent":
            w, h = argv[1].split("x")
            extent = (int(w), int(h))
        elif argv[0] == "--gap":
            gap = float(argv[1])
        else:
            follow = argv[1]
        argv = argv[2:]
    if not argv or len(argv) % 3:
        sys.exit(__doc__)
    clicks = [tuple(int(v) for v in argv[i:i + 3]) for i in range(0, len(argv), 3)]

    path = os.path.join(os.environ["XDG_RUNTIME_DIR"], os.environ["WAYLAND_DISPLAY"])
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    sock.settimeout(5)

    def send(obj, opcode, payload=b""):
        sock.sendall(struct.pack("=II", obj, (8 + len(payload)) << 16 | opcode) + payload)

    def string(text):
        data = text.encode() + b"\0"
        return struct.pack("=I", len(data)) + data + b"\0" * (-len(data) % 4)

    buffer = b""

    def events_until_sync(callback_id):
        """Reads events until wl_callback.done for callback_id; returns the registry globals."""
        nonlocal buffer
        found = {}
        while True:
            while len(buffer) < 8:
                chunk = sock.recv(4096)
                if not chunk:
                    sys.exit("wl-click.py: the compositor closed the connection")
                buffer += chunk
            obj, word = struct.unpack("=II", buffer[:8])
            size, opcode = word >> 16, word & 0xFFFF
            while len(buffer) < size:
                buffer += sock.recv(4096)
            body, buffer = buffer[8:size], buffer[size:]
            if obj == 2 and opcode == 0:  # wl_registry.global(name, interface, version)
                name, length = struct.unpack("=II", body[:8])
                interface = body[8:8 + length - 1].decode()
                version = struct.unpack("=I", body[8 + length + (-length % 4):][:4])[0]
                found[interface] = (name, version)
            elif obj == 1 and opcode == 0:  # wl_display.error
                sys.exit("wl-click.py: protocol error %r" % (body,))
            elif obj == callback_id and opcode == 0:  # wl_callback.done
                return found

    # wl_display.get_registry(new_id 2), then wl_display.sync(new_id 3) as a roundtrip.
    send(1, 1, struct.pack("=I", 2))
    send(1, 0, struct.pack("=I", 3))
    globals_ = events_until_sync(3)
    manager = globals_.get("zwlr_virtual_pointer_manager_v1")
    if manager is None:
        sys.exit("wl-click.py: the compositor has no zwlr_virtual_pointer_manager_v1")
    # wl_registry.bind(name, interface, version, new_id 4)
    send(2, 0, struct.pack("=I", manager[0]) + string("zwlr_virtual_pointer_manager_v1")
         + struct.pack("=II", 1, 4))
    # create_virtual_pointer(seat: null = the default seat, new_id 5)
    send(4, 0, struct.pack("=II", 0, 5))
    send(1, 0, struct.pack("=I", 6))
    events_until_sync(6)
    # Clients learn of the seat's new pointer capability and bind a wl_pointer.
    time.sleep(0.5)

    ms = lambda: int(time.monotonic() * 1000) & 0xFFFFFFFF
    def latest():
        """The followed file's last line with its digits (the ticking times) taken out."""
        try:
            with open(follow, "rb") as f:
                lines = f.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return None
        return re.sub(r"\d", "", lines[-1]) if lines else None

    for index, (x, y, button) in enumerate(clicks):
        before = latest() if follow else None
        # motion_absolute(time, x, y, x_extent, y_extent), frame
        send(5, 1, struct.pack("=IIIII", ms(), x, y, extent[0], extent[1]))
        send(5, 4)
        time.sleep(0.1)
        if button in BUTTONS:
            for state in (1, 0):  # button(time, button, state), frame
                send(5, 2, struct.pack("=III", ms(), BUTTONS[button], state))
                send(5, 4)
                time.sleep(0.05)
        elif button in (4, 5):
            step = -1 if button == 4 else 1
            send(5, 5, struct.pack("=I", 0))  # axis_source(wheel)
            # axis_discrete(time, axis vertical, value 15 px as fixed 24.8, discrete ±1)
            send(5, 7, struct.pack("=IIii", ms(), 0, step * 15 * 256, step))
            send(5, 4)
        else:
            sys.exit("wl-click.py: button %d is not 1-5" % button)
        time.sleep(gap)
        if follow and index < len(clicks) - 1:
            deadline = time.monotonic() + 10
            while latest() == before and time.monotonic() < deadline:
                time.sleep(0.05)
    send(1, 0, struct.pack("=I", 7))
    events_until_sync(7)
    send(5, 8)  # destroy
    sock.close()


if __name__ == "__main__":
    main(sys.argv[1:])
