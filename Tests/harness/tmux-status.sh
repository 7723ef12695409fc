#!/bin/sh
# Shows what a real tmux draws for status-right '#(COMMAND)': starts a private tmux
# server, attaches a client in a pseudo-terminal (script(1)), captures the terminal
# output, stops everything, and prints the status line's right part.
#
# usage: tmux-status.sh (--command COMMAND | --config FILE) [--wait SECONDS] [--raw]
#                        [--keep FILE] [--keys FILE]
#   --command  what #() runs, e.g. 'biomatimer status --format tmux'
#   --config   source FILE (e.g. Widgets/tmux/tmux.conf) instead: its status-right and key
#              bindings as a user has them; its commands run with this script's PATH and
#              environment (tmux's server inherits them). An error in FILE fails the run.
#   --keys     write the server's key bindings (list-keys) to FILE
#   --type     TEXT (a printf format, e.g. '\002T' for prefix T) typed into the client's
#              terminal one second after it attached, as a user's keystrokes
#   --wait     seconds the client stays attached (default 3)
#   --raw      print the captured segment with its escape sequences, made visible
#              (e.g. the project colour \x1b[38;5;33m), instead of plain text
#   --keep     also save the whole terminal capture to FILE
#
# Exit status: 0 when a status line was captured, 1 otherwise, 2 for usage errors.
# Needs (Debian): tmux, util-linux (script), python3.

set -u
cmd="" wait_s=3 raw=0 keep="" config="" keys="" type=""
while [ $# -gt 0 ]; do
    case "$1" in
    --command) cmd=${2:?}; shift 2 ;;
    --wait) wait_s=${2:?}; shift 2 ;;
    --raw) raw=1; shift ;;
    --keep) keep=${2:?}; shift 2 ;;
    --config) config=${2:?}; shift 2 ;;
    --keys) keys=${2:?}; shift 2 ;;
    --type) type=${2:?}; shift 2 ;;
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

# The client draws the status line into the capture; timeout detaches it.
# Its stdin is a pipe: idle, or carrying --type's keystrokes after a second.
{
    if [ -n "$type" ]; then sleep 1; printf "$type"; fi
    sleep "$wait_s"
} | TERM=xterm-256color timeout "$wait_s" script -qfc "tmux -S $socket attach" \
    "$work/capture" >/dev/null 2>&1
[ -n "$keep" ] && cp "$work/capture" "$keep"

python3 - "$work/capture" "$raw" <<'EOF'
import re, sys
capture, raw = sys.argv[1], sys.argv[2] == "1"
text = open(capture, "rb").read().decode("utf-8", "replace")
# The client redraws the status line by cursor movement, so one captured "line" may hold
# several redraws: take the text after the last window list ("[0] 0:…"), up to the
# sequence that ends a redraw (cursor shown again) or the end of the line.
at = text.rfind("[0] 0:")
if at < 0:
    sys.exit("tmux-status.sh: no status line captured")
line = re.split(r"\x1b\[\?12l|\r|\n", text[at:], maxsplit=1)[0]
escapes = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]")
plain = escapes.sub("", line)
# The right part follows the run of spaces after the window list.
right = re.split(r"\s{3,}", plain.rstrip(), maxsplit=1)[-1]
if raw:
    # From the right part's first character, with escapes shown as \x1b[...
    visible = line.replace("\x1b", "\\x1b")
    at = visible.find(right[:6])
    print(visible[at:].rstrip())
else:
    print(right)
EOF
