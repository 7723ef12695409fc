# Sourced by the harness scripts (headless-waybar.sh, xvfb-polybar.sh, xvfb-gnome-shell.sh,
# i3blocks-run.sh):
# every process a run starts carries BIOMATIMER_HARNESS_TAG=TAG in its environment, so the
# teardown finds exactly those (and nothing else of the user's) by /proc/PID/environ.

# The pids whose environment holds BIOMATIMER_HARNESS_TAG=$1, this shell excepted.
tagged_pids() {
    for environ in /proc/[0-9]*/environ; do
        pid=${environ#/proc/}
        pid=${pid%/environ}
        [ "$pid" = "$$" ] && continue
        # Processes come and go while we look, and other users' are unreadable.
        if { tr '\0' '\n' <"$environ"; } 2>/dev/null | grep -qx "BIOMATIMER_HARNESS_TAG=$1"; then
            echo "$pid"
        fi
    done
}

# Stops every process tagged $1: SIGTERM, up to $2 tenths of a second to go, then SIGKILL.
stop_tagged() {
    left=$(tagged_pids "$1")
    [ -n "$left" ] && kill -TERM $left 2>/dev/null
    i=0
    while [ -n "$(tagged_pids "$1")" ] && [ $i -lt "$2" ]; do sleep 0.1; i=$((i + 1)); done
    left=$(tagged_pids "$1")
    [ -n "$left" ] && kill -KILL $left 2>/dev/null
    return 0
}
