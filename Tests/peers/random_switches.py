#!/usr/bin/python3
"""One of many concurrent clients: makes COUNT random project switches on biomatimer.

Usage: random_switches.py COUNT SEED PROJECT... (ids or names). Exits non-zero on any error
other than the daemon's own refusals.
"""
import random
import sys

import dbus


def main():
    count, seed, projects = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    rng = random.Random(seed)
    bus = dbus.SessionBus()
    timer = dbus.Interface(bus.get_object("org.biomatimer.Timer1", "/org/biomatimer/Timer1"),
                           "org.biomatimer.Timer1")
    for _ in range(count):
        op = rng.choice(["start_project", "start_project", "toggle_project", "stop_project", "stop", "start", "cycle"])
        if op == "start_project":
            timer.StartProject(rng.choice(projects))
        elif op == "toggle_project":
            timer.ToggleProject(rng.choice(projects))
        elif op == "stop_project":
            timer.StopProject()
        elif op == "stop":
            timer.Stop()
        elif op == "start":
            timer.Start()
        else:
            timer.CycleProject(dbus.Int32(rng.choice([1, -1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
