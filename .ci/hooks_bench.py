# `make bench`, hooks: from an event to its hook's start, against posix_spawn of the same
# program by this process.
#
#   hooks_bench.py BUS-ADDRESS HOOK OUT REPS
#
# HOOK (installed as the daemon's on-start hook) writes "INSTANT START" to OUT: the payload's
# `instant` (µs) and its own start (bash's EPOCHREALTIME, its first statement). The baseline runs
# the same HOOK with a payload whose instant is taken just before posix_spawn.
import os, statistics, sys, time
import dbus

address, hook, out, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
bus = dbus.bus.BusConnection(address)
timer = dbus.Interface(bus.get_object("org.biomatimer.Timer1", "/org/biomatimer/Timer1"), "org.biomatimer.Timer1")


def lines():
    try:
        with open(out) as f:
            return f.read().split("\n")[:-1]
    except FileNotFoundError:
        return []


def next_line(count):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        now = lines()
        if len(now) > count:
            instant, start = now[count].split()
            return (int(start) - int(instant)) / 1000
        time.sleep(0.0005)
    sys.exit("hooks_bench: the hook did not run within 10 s")


timer.Stop()
event, spawn = [], []
for _ in range(reps):
    count = len(lines())
    timer.Start()
    event.append(next_line(count))
    timer.Stop()
    time.sleep(0.05)
for _ in range(reps):
    count = len(lines())
    r, w = os.pipe()
    instant = time.time_ns() // 1000
    pid = os.posix_spawn(hook, [hook], dict(os.environ), file_actions=[(os.POSIX_SPAWN_DUP2, r, 0)])
    os.close(r)
    os.write(w, b'{"event":"on-start","instant":%d}\n' % instant)
    os.close(w)
    os.waitpid(pid, 0)
    spawn.append(next_line(count))
    time.sleep(0.05)

p99 = lambda xs: sorted(xs)[min(len(xs) - 1, int(len(xs) * 0.99))]
print(f"{reps} each")
print("| from … to the hook's first statement          | median   | p99      |")
print("|------------------------------------------------|----------|----------|")
print(f"| baseline: posix_spawn of the hook by itself     | {statistics.median(spawn):5.2f} ms | {p99(spawn):5.2f} ms |")
print(f"| an event (Start) to its on-start hook           | {statistics.median(event):5.2f} ms | {p99(event):5.2f} ms |")
print(f"event / posix_spawn = {statistics.median(event) / max(statistics.median(spawn), 0.001):.2f}× (median)")
