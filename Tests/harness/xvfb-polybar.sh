#!/bin/sh
# Runs Debian's polybar with a module config inside Xvfb, screenshots the screen, and
# tears everything down. The module config (e.g. Widgets/polybar/config.ini) is used as
# is, through a generated bar that includes it.
#
# usage: xvfb-polybar.sh --config MODULE.ini --out DIR [--module NAME]
#                        [--exec COMMAND] [--expect TEXT] [--wait SECONDS] [--size WxH]
#                        [--click X,Y,BUTTON]... [--expect-after TEXT] [--after SECONDS]
#
#   --config   ini file defining [module/NAME] (default NAME: biomatimer)
#   --exec     runs COMMAND instead of the module's exec (through a module that
#              inherits the sample one); its output is copied to module-output.log
#   --expect   succeed only if TEXT appears in module-output.log (needs --exec)
#   --wait     seconds to let the bar run before the screenshot (default 3)
#   --size     screen size (default 800x60)
#   --click    after --wait and --expect, click at X,Y with BUTTON (1 left, 2 middle,
#              3 right, 4/5 scroll) through xdotool; repeatable; each logged to clicks.log
#   --expect-after  after the clicks, wait (at most 10 s) until the module's latest line holds
#              TEXT (needs --exec), then --after: the screenshot shows what the clicks did
#   --after    seconds between the last click and the screenshot (default 1)
#   --out      artefacts: screenshot.png, polybar.log, module-output.log, bar.ini
#
# Exit status: 0 when the screenshot was taken (and --expect matched), 1 otherwise,
# 2 for usage errors. Waits are bounded; every process started is stopped.
# Needs (Debian): polybar xvfb x11-apps (xwd) netpbm (xwdtopnm, pnmtopng) fonts-dejavu-core,
# and xdotool for --click.

set -u
config="" out="" module=biomatimer exec_cmd="" expect="" wait_s=3 size=800x60 clicks="" after_s=1 expect_after=""
while [ $# -gt 0 ]; do
    case "$1" in
    --config) config=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --module) module=${2:?}; shift 2 ;;
    --exec) exec_cmd=${2:?}; shift 2 ;;
    --expect) expect=${2:?}; shift 2 ;;
    --wait) wait_s=${2:?}; shift 2 ;;
    --size) size=${2:?}; shift 2 ;;
    --click) clicks="$clicks ${2:?}"; shift 2 ;;
    --after) after_s=${2:?}; shift 2 ;;
    --expect-after) expect_after=${2:?}; shift 2 ;;
    *) echo "xvfb-polybar.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$config" ] && [ -r "$config" ] || { echo "xvfb-polybar.sh: --config FILE is required" >&2; exit 2; }
[ -n "$out" ] || { echo "xvfb-polybar.sh: --out DIR is required" >&2; exit 2; }
[ -z "$expect" ] || [ -n "$exec_cmd" ] || { echo "xvfb-polybar.sh: --expect needs --exec" >&2; exit 2; }
for tool in polybar Xvfb xwd xwdtopnm pnmtopng; do
    command -v "$tool" >/dev/null 2>&1 || { echo "xvfb-polybar.sh: $tool not installed" >&2; exit 1; }
done
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 1
config=$(cd "$(dirname "$config")" && pwd)/$(basename "$config")

work=$(mktemp -d /tmp/xvfb-polybar.XXXXXX) || exit 1
tag="biomatimer-polybar-$$-$(date +%s%N)"
width=${size%x*} height=${size#*x}
shown=$module
if [ -n "$exec_cmd" ]; then
    printf '%s\n' "$exec_cmd" >"$work/module-command"
    printf '#!/bin/sh\nsh "%s" | tee -a "%s"\n' "$work/module-command" "$work/module-output.log" >"$work/module.sh"
    chmod 755 "$work/module.sh"
    shown=harness-$module
fi
{
    echo "include-file = $config"
    echo
    echo "[bar/harness]"
    echo "width = 100%"
    echo "height = 30"
    echo "background = #1e1e2e"
    echo "foreground = #cdd6f4"
    echo "font-0 = DejaVu Sans:size=12;3"
    echo "modules-right = $shown"
    echo "padding-right = 1"
    if [ -n "$exec_cmd" ]; then
        echo
        echo "[module/$shown]"
        echo "inherit = module/$module"
        echo "exec = $work/module.sh"
    fi
} >"$work/bar.ini"

xvfb_pid="" polybar_pid=""
. "$(dirname "$0")/tagged.sh"
teardown() {
    trap - EXIT INT TERM
    [ -n "$polybar_pid" ] && kill -TERM "$polybar_pid" 2>/dev/null
    [ -n "$xvfb_pid" ] && kill -TERM "$xvfb_pid" 2>/dev/null
    stop_tagged "$tag" 30
    wait 2>/dev/null
    for f in polybar.log module-output.log bar.ini xvfb.log clicks.log; do
        [ -f "$work/$f" ] && cp "$work/$f" "$out/$f"
    done
    rm -rf "$work"
}
trap teardown EXIT
trap 'exit 1' INT TERM
fail() { echo "xvfb-polybar.sh: $*" >&2; exit 1; }

# Xvfb picks a free display and writes its number to fd 3.
BIOMATIMER_HARNESS_TAG=$tag Xvfb -displayfd 3 -screen 0 "${width}x${height}x24" -nolisten tcp \
    3>"$work/display" >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
i=0
while [ ! -s "$work/display" ]; do
    kill -0 "$xvfb_pid" 2>/dev/null || fail "Xvfb exited; see $out/xvfb.log"
    [ $i -ge 100 ] && fail "Xvfb did not start within 10 s"
    sleep 0.1; i=$((i + 1))
done
display=":$(tr -dc 0-9 <"$work/display")"

DISPLAY=$display BIOMATIMER_HARNESS_TAG=$tag polybar -l info -c "$work/bar.ini" harness \
    >"$work/polybar.log" 2>&1 &
polybar_pid=$!
i=0
while ! grep -q "Bar window:" "$work/polybar.log" 2>/dev/null; do
    kill -0 "$polybar_pid" 2>/dev/null || fail "polybar exited; see $out/polybar.log"
    [ $i -ge 100 ] && fail "polybar did not map its window within 10 s; see $out/polybar.log"
    sleep 0.1; i=$((i + 1))
done

sleep "$wait_s"
if [ -n "$expect" ]; then
    i=0
    while ! grep -qF -- "$expect" "$work/module-output.log" 2>/dev/null; do
        [ $i -ge 50 ] && fail "the module never printed \"$expect\""
        sleep 0.1; i=$((i + 1))
    done
fi
if [ -n "$clicks" ]; then
    command -v xdotool >/dev/null 2>&1 || fail "--click needs xdotool"
    for click in $clicks; do
        x=${click%%,*}; rest=${click#*,}; y=${rest%%,*}; button=${rest#*,}
        DISPLAY=$display xdotool mousemove "$x" "$y" click "$button" || fail "xdotool could not click $click"
        echo "$click" >>"$work/clicks.log"
        sleep 0.5
    done
    if [ -n "$expect_after" ]; then
        i=0
        while ! tail -n 1 "$work/module-output.log" 2>/dev/null | grep -qF -- "$expect_after"; do
            [ $i -ge 100 ] && fail "after the clicks the module's line never held \"$expect_after\""
            sleep 0.1; i=$((i + 1))
        done
    fi
    sleep "$after_s"
fi
xwd -display "$display" -root -silent | xwdtopnm 2>/dev/null | pnmtopng >"$out/screenshot.png" 2>/dev/null ||
    fail "could not take a screenshot"
[ -s "$out/screenshot.png" ] || fail "empty screenshot"
echo "xvfb-polybar.sh: screenshot in $out/screenshot.png"
exit 0
