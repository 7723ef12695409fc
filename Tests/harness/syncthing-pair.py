#!/usr/bin/python3
"""Two real Syncthing instances on loopback sharing one folder between two paths.

    syncthing-pair.py STATE_DIR PATH_A PATH_B

Generates both instances' keys and configs under STATE_DIR, keeps them off the network
(GUI/REST and sync listen on 127.0.0.1 only; discovery, relays, NAT traversal, usage reports,
crash reports and upgrades off), introduces each to the other and shares folder
`biomatimer` (PATH_A on one, PATH_B on the other) through the REST API with the
`X-API-Key` header (Debian's syncthing 1.19 panics in `syncthing cli config devices add`).
Prints `ready <device-a> <device-b>` once the two are connected and a probe file written on
one side has reached the other and its removal too, then runs until SIGTERM or SIGINT, and stops both instances. Standard library only.
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request

FOLDER = "biomatimer"


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Instance:
    def __init__(self, name, state, path):
        self.name = name
        self.home = os.path.join(state, "syncthing-" + name)
        self.path = path
        self.api_key = "biomatimer-test-" + name
        self.gui_port = free_port()
        self.sync_port = free_port()
        subprocess.run(
            ["syncthing", "generate", "--home=" + self.home, "--no-default-folder", "--skip-port-probing"],
            check=True, stdout=subprocess.DEVNULL)
        config = os.path.join(self.home, "config.xml")
        with open(config) as f:
            text = f.read()
        text = re.sub(r"<listenAddress>.*?</listenAddress>\s*", "", text)
        options = {
            "globalAnnounceEnabled": "false", "localAnnounceEnabled": "false", "relaysEnabled": "false",
            "natEnabled": "false", "urAccepted": "-1", "autoUpgradeIntervalH": "0", "startBrowser": "false",
            "crashReportingEnabled": "false",
        }
        for key, value in options.items():
            text = re.sub(r"<%s>.*?</%s>" % (key, key), "<%s>%s</%s>" % (key, value, key), text)
        text = text.replace(
            "<options>", "<options>\n        <listenAddress>tcp://127.0.0.1:%d</listenAddress>" % self.sync_port, 1)
        with open(config, "w") as f:
            f.write(text)
        self.device_id = subprocess.run(
            ["syncthing", "serve", "--home=" + self.home, "--device-id"],
            check=True, capture_output=True, text=True).stdout.strip()
        self.log = open(os.path.join(state, "syncthing-%s.log" % name), "w")
        self.process = subprocess.Popen(
            ["syncthing", "serve", "--home=" + self.home, "--no-browser", "--no-restart", "--no-upgrade",
             "--gui-address=http://127.0.0.1:%d" % self.gui_port, "--gui-apikey=" + self.api_key],
            stdout=self.log, stderr=subprocess.STDOUT,
            env=dict(os.environ, STNOUPGRADE="1", STNORESTART="1"))

    def rest(self, method, path, body=None):
        request = urllib.request.Request(
            "http://127.0.0.1:%d%s" % (self.gui_port, path), method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"X-API-Key": self.api_key, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as response:
            data = response.read()
            return json.loads(data) if data else None

    def wait_until(self, what, check, seconds=60):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                sys.exit("syncthing %s exited while waiting for %s (see its log)" % (self.name, what))
            try:
                if check():
                    return
            except OSError:
                pass  # not listening yet
            time.sleep(0.1)
        sys.exit("syncthing %s: no %s within %d s" % (self.name, what, seconds))

    def share_with(self, other):
        self.rest("PUT", "/rest/config/devices/" + other.device_id, {
            "deviceID": other.device_id, "name": other.name,
            "addresses": ["tcp://127.0.0.1:%d" % other.sync_port], "autoAcceptFolders": False})
        os.makedirs(os.path.join(self.path, ".stfolder"), exist_ok=True)
        self.rest("PUT", "/rest/config/folders/" + FOLDER, {
            "id": FOLDER, "label": FOLDER, "path": self.path, "type": "sendreceive",
            "devices": [{"deviceID": self.device_id}, {"deviceID": other.device_id}],
            "fsWatcherEnabled": True, "fsWatcherDelayS": 1, "rescanIntervalS": 3600})

    def connected_to(self, other):
        connections = self.rest("GET", "/rest/system/connections")["connections"]
        return connections.get(other.device_id, {}).get("connected", False)

    def idle(self):
        return self.rest("GET", "/rest/db/status?folder=" + FOLDER).get("state") == "idle"

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    state, path_a, path_b = (os.path.abspath(p) for p in sys.argv[1:])
    instances = []
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    signal.signal(signal.SIGINT, lambda *_: stopping.append(True))
    try:
        a = Instance("a", state, path_a)
        instances.append(a)
        b = Instance("b", state, path_b)
        instances.append(b)
        for one in (a, b):
            one.wait_until("REST API", lambda: one.rest("GET", "/rest/system/ping")["ping"] == "pong")
        a.share_with(b)
        b.share_with(a)
        a.wait_until("connection to b", lambda: a.connected_to(b))
        b.wait_until("connection to a", lambda: b.connected_to(a))
        for one in (a, b):
            one.wait_until("idle folder", one.idle)
        # Files flow once a probe written on one side shows up on the other, and its removal too.
        probe = ".syncthing-pair-probe"
        with open(os.path.join(path_a, probe), "w") as f:
            f.write("probe\n")
        b.wait_until("the probe file from a", lambda: os.path.exists(os.path.join(path_b, probe)))
        os.unlink(os.path.join(path_a, probe))
        b.wait_until("the probe's removal", lambda: not os.path.exists(os.path.join(path_b, probe)))
        a.wait_until("idle folder", a.idle)
        print("ready", a.device_id, b.device_id, flush=True)
        while not stopping:
            signal.pause()
    finally:
        for one in instances:
            one.stop()


if __name__ == "__main__":
    main()
