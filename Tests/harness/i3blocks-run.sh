#!/bin/sh
# Drives Debian's i3blocks the way i3bar does: its stdout (the i3bar JSON protocol) goes
# to a file, its stdin is a FIFO the test writes click events to.
#
# usage:
#   i3blocks-run.sh start --config FILE --dir DIR [--env NAME=VALUE]...
#       starts i3blocks in the background. DIR (created) gets: stdout.log (i3bar
#       protocol, one status line array per line), stderr.log, clicks.fifo, pids.
#       --env adds to the environment i3blocks and its blocks see (repeatable).
#   i3blocks-run.sh click --dir DIR --name BLOCK --button N [--instance I]
#       writes one i3bar click event ({"name":…,"instance":…,"button":N,…}) to i3blocks.
#   i3blocks-run.sh text --dir DIR --name BLOCK
#       prints the block's full_text in the latest status line (empty if absent).
#   i3blocks-run.sh wait --dir DIR --name BLOCK --contains TEXT [--timeout SECONDS]
#       waits (default 5 s) until the block's latest full_text contains TEXT; prints it.
#   i3blocks-run.sh stop --dir DIR
#       stops i3blocks, its blocks and the FIFO holder (bounded), keeps the logs.
#
# Exit status: 0 on success, 1 on failure or timeout, 2 for usage errors.
# Needs (Debian): i3blocks, python3.
#
# Gotchas (i3blocks 1.4, Debian 12):
# - A persistent block (interval=persist) inherits i3blocks' own stdin, i.e. the click
#   stream of the whole bar, and clicks on it while it runs are dropped ("process already
#   spawned" with -vvv). i3blocks 1.5+ gives the block its own stdin and writes clicks to
#   it (and exports BLOCK_INTERVAL=persist). So on 1.4 clicks need a non-persistent block
#   (interval=once) that i3blocks spawns per click with $BLOCK_BUTTON set; see
#   Widgets/i3blocks/i3blocks.conf.
# - Every status line starts with an empty {"full_text":""} entry and each block carries
#   an extra "":"" key: harmless quirks of 1.4's JSON writer.

set -u
prog=i3blocks-run.sh
usage() { echo "$prog: $*" >&2; exit 2; }

cmd=${1:-}
[ $# -gt 0 ] && shift
config="" dir="" name="" button="" instance="" contains="" timeout=5 extra_env=""
while [ $# -gt 0 ]; do
    case "$1" in
    --config) config=${2:?}; shift 2 ;;
    --dir) dir=${2:?}; shift 2 ;;
    --name) name=${2:?}; shift 2 ;;
    --button) button=${2:?}; shift 2 ;;
    --instance) instance=${2:?}; shift 2 ;;
    --contains) contains=${2:?}; shift 2 ;;
    --timeout) timeout=${2:?}; shift 2 ;;
    --env) extra_env="$extra_env ${2:?}"; shift 2 ;;
    *) usage "unknown argument $1" ;;
    esac
done
[ -n "$dir" ] || usage "--dir DIR is required"

# The block's full_text in the last complete status line of stdout.log.
block_text() {
    python3 - "$dir/stdout.log" "$name" <<'EOF'
import json, sys
path, name = sys.argv[1], sys.argv[2]
try:
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
except FileNotFoundError:
    sys.exit(0)
# Line 1 is the header, line 2 opens the endless array; status lines follow, each but
# the first prefixed by a comma. The last line may be incomplete.
for line in reversed(lines[:-1]):
    line = line.strip()
    if line.startswith(","):
        line = line[1:]
    elif line.startswith("[["):
        line = line[1:]
    if not line.startswith("["):
        continue
    try:
        blocks = json.loads(line)
    except ValueError:
        continue
    for block in blocks:
        if block.get("name") == name:
            print(block.get("full_text", ""))
            sys.exit(0)
    print("")
    sys.exit(0)
EOF
}

case "$cmd" in
start)
    [ -n "$config" ] && [ -r "$config" ] || usage "--config FILE is required and must be readable"
    command -v i3blocks >/dev/null 2>&1 || { echo "$prog: i3blocks not installed" >&2; exit 1; }
    mkdir -p "$dir" || exit 1
    [ -f "$dir/pids" ] && { echo "$prog: $dir already has a running i3blocks (pids)" >&2; exit 1; }
    rm -f "$dir/clicks.fifo"
    mkfifo "$dir/clicks.fifo" || exit 1
    tag="biomatimer-i3blocks-$$-$(date +%s%N)"
    echo "$tag" >"$dir/tag"
    # i3blocks reads its stdin from the FIFO; a holder keeps a writer open so it never
    # sees end-of-file between clicks. Opening a FIFO blocks until both ends exist,
    # so both start in the background.
    env BIOMATIMER_HARNESS_TAG="$tag" $extra_env \
        i3blocks -vvv -c "$config" <"$dir/clicks.fifo" >"$dir/stdout.log" 2>"$dir/stderr.log" &
    i3blocks_pid=$!
    env BIOMATIMER_HARNESS_TAG="$tag" sh -c 'printf "[\n"; exec sleep 2147483647' >"$dir/clicks.fifo" &
    holder_pid=$!
    echo "$i3blocks_pid $holder_pid" >"$dir/pids"
    i=0
    while [ ! -s "$dir/stdout.log" ]; do
        kill -0 "$i3blocks_pid" 2>/dev/null || { echo "$prog: i3blocks exited; see $dir/stderr.log" >&2; exit 1; }
        [ $i -ge 50 ] && { echo "$prog: no output from i3blocks within 5 s" >&2; exit 1; }
        sleep 0.1; i=$((i + 1))
    done
    ;;
click)
    [ -n "$name" ] && [ -n "$button" ] || usage "click needs --name and --button"
    [ -p "$dir/clicks.fifo" ] || { echo "$prog: no i3blocks started in $dir" >&2; exit 1; }
    python3 -c 'import json, sys; print("," + json.dumps({"name": sys.argv[1], "instance": sys.argv[2], "button": int(sys.argv[3]), "modifiers": [], "x": 10, "y": 5, "relative_x": 10, "relative_y": 5, "width": 200, "height": 22}))' \
        "$name" "$instance" "$button" >"$dir/clicks.fifo"
    ;;
text)
    [ -n "$name" ] || usage "text needs --name"
    block_text
    ;;
wait)
    [ -n "$name" ] && [ -n "$contains" ] || usage "wait needs --name and --contains"
    limit=$((timeout * 10)) i=0
    while :; do
        current=$(block_text)
        case "$current" in *"$contains"*) printf '%s\n' "$current"; exit 0 ;; esac
        [ $i -ge $limit ] && { echo "$prog: \"$name\" never showed \"$contains\" (last: \"$current\")" >&2; exit 1; }
        sleep 0.1; i=$((i + 1))
    done
    ;;
stop)
    [ -f "$dir/pids" ] || exit 0
    tag=$(cat "$dir/tag")
    . "$(dirname "$0")/tagged.sh"
    # i3blocks and the holder by their ids, then any block still carrying the tag.
    kill -TERM $(cat "$dir/pids") 2>/dev/null
    i=0
    while [ -n "$(tagged_pids "$tag")" ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
    stop_tagged "$tag" 5
    rm -f "$dir/pids" "$dir/clicks.fifo" "$dir/tag"
    ;;
*)
    usage "first argument: start, click, text, wait or stop"
    ;;
esac
