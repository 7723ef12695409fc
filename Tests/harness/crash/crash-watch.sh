#!/bin/sh
# The test suite's wrapper for a daemon that a private bus activates:
#   crash-watch.sh LOG CLOSECHECK.so COMMAND [ARGS...]
# runs COMMAND with the close checker preloaded (closecheck.c; its findings go to LOG.close)
# and, when COMMAND dies of a signal that means a crash (SIGILL, SIGTRAP, SIGABRT, SIGBUS,
# SIGFPE, SIGSEGV), appends a line saying so to LOG. SIGTERM and SIGKILL, which tests send on
# purpose, are not crashes. The suite fails the test whose bus has such a line.
log=$1
check=$2
shift 2
if [ -n "$check" ] && [ -r "$check" ]; then
    LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$check" BIOMATIMER_CLOSE_LOG="$log.close" "$@"
else
    "$@"
fi
status=$?
case $status in
    132 | 133 | 134 | 135 | 136 | 139) echo "$* died of signal $((status - 128)) (exit status $status)" >>"$log" ;;
esac
exit $status
