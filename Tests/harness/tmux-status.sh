#!/bin/sh
# Shows what a real tmux draws for status-right '#(COMMAND)': starts a private tmux
# server, attaches a client in a pseudo-terminal (script(1)), captures the terminal
# output, stops everything, and prints the status line's right part.
#
# usage: tmux-status.sh (--command COMMAND | --config FILE) [--wait SECONDS] [--until TEXT]
#                        [--raw] [--keep FILE] [--keys FILE] [--type TEXT]
#   --command  what #() runs, e.g. 'biomatimer status --format tmux'
#   --config   source FILE (e.g. Widgets/tmux/tmux.conf) instead: its status-right and key
#              bindings as a user has them; its commands run with this script's PATH and
#              environment (tmux's server inherits them). An error in FILE fails the run.
#   --keys     write the server's key bindings (list-keys) to FILE
#   --type     TEXT (a printf format, e.g. '\002T' for prefix T) typed into the client's
#              terminal once it has drawn its first status line, as a user's keystrokes
#   --wait     seconds the client stays attached (default 3)
#   --until    detach as soon as a status line drawn (after --type's keys) has TEXT in its
#              right part; --wait is then the most it waits. Without it, the line printed
#              is the last one drawn in --wait seconds
#   --raw      print the captured segment with its escape sequences, made visible
#              (e.g. the project colour \x1b[38;5;33m), instead of plain text
#   --keep     also save the whole terminal capture to FILE
#
# Exit status: 0 when a status line was captured, 1 otherwise, 2 for usage errors.
# Needs (Debian): tmux, util-linux (script), python3.

set -u
cmd="" wait_s=3 raw=0 keep="" config="" keys="" type="" until=""
while [ $# -gt 0 ]; do
    case "$1" in
    --command) cmd=${2:?}; shift 2 ;;
    --wait) wait_s=${2:?}; shift 2 ;;
    --raw) raw=1; shift ;;
    --keep) keep=${2:?}; shift 2 ;;
    --config) config=${2:?}; shift 2 ;;
    --keys) keys=${2:?}; shift 2 ;;
    --type) type=${2:?}; shift 2 ;;
    --until) until=${2:?}; shift 2 ;;
    *) echo "tmux-status.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$cmd" ] || [ -n "$config" ] || { echo "tmux-status.sh: --command or --config is required" >&2; exit 2; }
[ -z "$config" ] || [ -r "$config" ] || { echo "tmux-status.sh: cannot read $config" >&2; exit 2; }

work=$(mktemp -d /tmp/tmux-status.XXXXXX) || exit 1
socket="$work/socket"
printf '%s\n' "$cmd" >"$work/command"
cleanup() {
    tmux -S "$socket" kill-server 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

# A bare server: no user config, one window running a long sleep as the only pane.
tmux -S "$socket" -f /dev/null new-session -d -x 160 -y 5 "sleep 600" || exit 1
if [ -n "$config" ]; then
    tmux -S "$socket" source-file "$config" || { echo "tmux-status.sh: tmux refused $config" >&2; exit 1; }
else
    tmux -S "$socket" set -g status-right-length 150
    tmux -S "$socket" set -g status-interval 1
    tmux -S "$socket" set -g status-right "#(sh $work/command)"
fi
[ -n "$keys" ] && tmux -S "$socket" list-keys >"$keys"

# The client, attached inside script(1) whose capture is the terminal output, runs in
# the Python below: it types --type's keystrokes once the status line is drawn, and stays
# attached --wait seconds, or with --until only until the right part shows TEXT.
keystrokes=""
[ -n "$type" ] && keystrokes=$(printf "$type")
TERM=xterm-256color python3 - "$socket" "$work/capture" "$wait_s" "$keystrokes" "$until" "$raw" <<'EOF'
import os, re, subprocess, sys, time

socket, capture, wait_s, type_, until, raw = sys.argv[1:7]
raw = raw == "1"
escapes = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]")
REDRAWN = "\x1b[?12l"  # ends every redraw: the cursor shown again


def redraws(text):
    """Each drawn status line, oldest first: (the raw line, its right part as plain text).

    The client redraws the status line by cursor movement, so one captured "line" may hold
    several redraws: each starts with the window list ("[0] 0:…") and ends where the
    cursor is shown again. A redraw still being written (no end yet) is not counted."""
    lines = []
    for piece in text.split("[0] 0:")[1:]:
        end = piece.find(REDRAWN)
        if end < 0:
            continue
        line = re.split(r"\r|\n", piece[:end], maxsplit=1)[0]
        plain = escapes.sub("", "[0] 0:" + line)
        # The right part follows the run of spaces after the window list.
        right = re.split(r"\s{3,}", plain.rstrip(), maxsplit=1)[-1]
        lines.append((line, right))
    return lines


def read():
    try:
        with open(capture, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return ""


client = subprocess.Popen(
    ["script", "-qfc", f"tmux -S {socket} attach", capture],
    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
deadline = time.monotonic() + float(wait_s)
typed_after = None  # how many redraws there were when the keys were typed
while time.monotonic() < deadline and client.poll() is None:
    drawn = redraws(read())
    if type_ and typed_after is None and drawn:
        client.stdin.write(os.fsencode(type_))
        client.stdin.flush()
        typed_after = len(drawn)
    elif until and any(until in right for _, right in drawn[typed_after or 0:]):
        break
    time.sleep(0.05)
# Detached, tmux's client exits and script(1) with it.
subprocess.run(["tmux", "-S", socket, "detach-client", "-s", "0"], stderr=subprocess.DEVNULL)
try:
    client.wait(timeout=5)
except subprocess.TimeoutExpired:
    client.kill()
    client.wait()
client.stdin.close()
drawn = redraws(read())
if not drawn:
    sys.exit("tmux-status.sh: no status line captured")
line, right = drawn[-1]
if raw:
    # From the right part's first character, with escapes shown as \x1b[...
    visible = line.replace("\x1b", "\\x1b")
    at = visible.find(right[:6])
    print(visible[at:].rstrip())
else:
    print(right)
EOF
status=$?
[ -n "$keep" ] && cp "$work/capture" "$keep"
exit $status
