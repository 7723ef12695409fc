#!/bin/sh
# Runs Debian's waybar inside a headless sway, takes a screenshot of it with grim, and
# tears everything down again. Used to prove the waybar module on the real bar.
#
# usage: headless-waybar.sh --config CONFIG.jsonc --style STYLE.css --out DIR
#                           [--exec COMMAND] [--expect TEXT] [--wait SECONDS]
#                           [--size WxH] [--user NAME] [--env NAME=VALUE]...
#                           [--outputs N] [--click X,Y,BUTTON]... [--click-gap SECONDS] [--click-follow]
#                           [--expect-colour RRGGBB] [--expect-after TEXT] [--after SECONDS]
#
#   --config   waybar config (JSON with comments), e.g. Widgets/waybar/config.jsonc
#   --style    waybar CSS, e.g. Widgets/waybar/style.css
#   --out      artefacts directory (created): screenshot.png, waybar.log, sway.log,
#              module-output.log (every line the module printed), config.jsonc, style.css
#   --exec     replaces the value of every "exec" key in the config by COMMAND (so the
#              sample config can run a test binary or a fake); the module's output is
#              also copied to module-output.log. Without --exec the config runs as is.
#   --expect   succeed only if TEXT appears in module-output.log (needs --exec)
#   --wait     seconds to let the bar run before the screenshot (default 3)
#   --size     output resolution (default 1000x200)
#   --user     unprivileged user to run sway as when run as root (default biomatest;
#              created with useradd if missing). sway refuses to run as root.
#   --env      extra environment for sway and everything it starts (repeatable), e.g.
#              --env DBUS_SESSION_BUS_ADDRESS=unix:path=/tmp/x/bus --env PATH=/opt/bin:/usr/bin:/bin
#   --outputs  number of headless outputs (default 1), stacked top to bottom, each --size;
#              waybar puts a bar (and runs the module) on each
#   --click    after --wait and --expect, click at X,Y (layout pixels) with BUTTON (1 left,
#              2 middle, 3 right, 4/5 scroll up/down) through a virtual pointer
#              (wl-click.py); repeatable, in order; output in actions.log
#   --expect-colour  after --wait and --expect, wait (at most 10 s) until the top bar (its
#              first 30 rows) shows RRGGBB, e.g. a tray icon's colour: nothing else says
#              when a tray item is in the bar, and a click before it hits nothing
#   --click-gap  seconds between one click and the next (default 0.2), e.g. for a menu
#              the first click opens and the next clicks in
#   --click-follow  before each click after the first, wait (at most 10 s) until the module
#              printed a new line, digits aside (needs --exec): each click's command has
#              taken effect before the next, as a person clicking sees
#   --expect-after  after the clicks, wait (at most 10 s) until the module's latest line holds
#              TEXT (needs --exec), then --after: the screenshot shows what the clicks did
#   --after    seconds to wait after the clicks before the screenshot (default 1)
#
# Exit status: 0 when the screenshot was taken (and --expect matched), 1 otherwise,
# 2 for usage errors. Every wait is bounded; every process started is stopped.
#
# Needs (Debian): sway waybar grim fonts-dejavu-core; runuser (util-linux) when root.

set -u

config="" style="" out="" exec_cmd="" expect="" wait_s=3 size=1000x200 user=biomatest
extra_env="" outputs=1 actions="" after_s=1 expect_after="" click_gap=0.2 click_follow="" expect_colour=""
die_usage() { echo "headless-waybar.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
    --config) config=${2:?}; shift 2 ;;
    --style) style=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --exec) exec_cmd=${2:?}; shift 2 ;;
    --expect) expect=${2:?}; shift 2 ;;
    --wait) wait_s=${2:?}; shift 2 ;;
    --size) size=${2:?}; shift 2 ;;
    --user) user=${2:?}; shift 2 ;;
    --env) extra_env="$extra_env
${2:?}"; shift 2 ;;
    --outputs) outputs=${2:?}; shift 2 ;;
    --click) actions="$actions ${2:?}"; shift 2 ;;
    --after) after_s=${2:?}; shift 2 ;;
    --expect-after) expect_after=${2:?}; shift 2 ;;
    --click-gap) click_gap=${2:?}; shift 2 ;;
    --click-follow) click_follow=1; shift ;;
    --expect-colour) expect_colour=${2:?}; shift 2 ;;
    -h | --help) sed -n '2,45p' "$0"; exit 0 ;;
    *) die_usage "unknown argument $1" ;;
    esac
done
[ -n "$config" ] && [ -r "$config" ] || die_usage "--config FILE is required and must be readable"
[ -n "$style" ] && [ -r "$style" ] || die_usage "--style FILE is required and must be readable"
[ -n "$out" ] || die_usage "--out DIR is required"
[ -z "$expect" ] || [ -n "$exec_cmd" ] || die_usage "--expect needs --exec"
for tool in sway waybar grim swaymsg python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "headless-waybar.sh: $tool not installed" >&2; exit 1; }
done
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)

# Every process of this run carries this tag in its environment, so teardown finds
# exactly them (and nothing else of the user's) by /proc/PID/environ.
tag="biomatimer-harness-$$-$(date +%s%N)"

if [ "$(id -u)" -eq 0 ]; then
    id "$user" >/dev/null 2>&1 || useradd -m -s /bin/sh "$user" || exit 1
    as_user() { runuser -u "$user" -- "$@"; }
    home=$(getent passwd "$user" | cut -d: -f6)
else
    user=$(id -un)
    as_user() { "$@"; }
    home=$HOME
fi

work=$(mktemp -d /tmp/headless-waybar.XXXXXX) || exit 1
runtime="$work/runtime"
mkdir -p "$runtime" "$work/files"
chmod 755 "$work"
chmod 700 "$runtime"
[ "$(id -u)" -eq 0 ] && chown "$user:" "$runtime" "$work/files"

# The module's exec, replaced if asked, with its output copied to a log. tee writes
# each line as it comes, so the log is what waybar read.
module_log="$work/files/module-output.log"
if [ -n "$exec_cmd" ]; then
    printf '%s\n' "$exec_cmd" >"$work/module-command"
    cat >"$work/module.sh" <<EOF
#!/bin/sh
sh "$work/module-command" | tee -a "$module_log"
EOF
    chmod 755 "$work/module.sh"
    chmod 644 "$work/module-command"
    python3 - "$config" "$work/files/config.jsonc" "$work/module.sh" <<'EOF' || exit 1
import re, sys
source, target, command = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(source, encoding="utf-8").read()
quoted = '"' + command.replace("\\", "\\\\").replace('"', '\\"') + '"'
text, count = re.subn(r'("exec"\s*:\s*)"(?:[^"\\]|\\.)*"', lambda m: m.group(1) + quoted, text)
if count == 0:
    sys.exit("headless-waybar.sh: no \"exec\" key in " + source)
open(target, "w", encoding="utf-8").write(text)
EOF
else
    cp "$config" "$work/files/config.jsonc"
fi
cp "$style" "$work/files/style.css"
chmod 644 "$work/files/config.jsonc" "$work/files/style.css"

case "$outputs" in '' | *[!0-9]* | 0) die_usage "--outputs must be a positive number" ;; esac
height=${size#*x}
{
    echo "xwayland disable"
    i=1
    while [ $i -le "$outputs" ]; do
        echo "output HEADLESS-$i resolution $size position 0 $(((i - 1) * height))"
        i=$((i + 1))
    done
    echo "exec waybar -l debug -c \"$work/files/config.jsonc\" -s \"$work/files/style.css\" > \"$work/files/waybar.log\" 2>&1"
} >"$work/sway.conf"
chmod 644 "$work/sway.conf"

# The environment sway and its children see: nothing inherited but what is listed.
envfile="$work/env"
{
    echo "HOME=$home"
    echo "USER=$user"
    echo "PATH=/usr/local/bin:/usr/bin:/bin"
    echo "LANG=C.UTF-8"
    echo "XDG_RUNTIME_DIR=$runtime"
    echo "XDG_CONFIG_HOME=$work/files/xdg-config"
    echo "WLR_BACKENDS=headless"
    echo "WLR_LIBINPUT_NO_DEVICES=1"
    echo "WLR_RENDERER=pixman"
    echo "BIOMATIMER_HARNESS_TAG=$tag"
    printf '%s\n' "$extra_env" | sed '/^$/d'
} >"$envfile"
# env -i with the assignments from the file as words: no globbing, no spaces in values.
run_env() { set -f; as_user env -i $(cat "$envfile") "$@"; set +f; }
if grep -q '[[:space:]]' "$envfile"; then
    echo "headless-waybar.sh: --env values must not contain spaces" >&2
    rm -rf "$work"
    exit 2
fi

. "$(dirname "$0")/tagged.sh"

sway_pid=""
teardown() {
    trap - EXIT INT TERM
    if [ -n "$sway_pid" ] && kill -0 "$sway_pid" 2>/dev/null; then
        sock=$(ls "$runtime"/sway-ipc.*.sock 2>/dev/null | head -n 1)
        [ -n "$sock" ] && run_env swaymsg -s "$sock" exit >/dev/null 2>&1
        i=0
        while kill -0 "$sway_pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    fi
    # Module scripts outlive waybar (they are not in its process group): stop every
    # process carrying this run's tag, politely first.
    stop_tagged "$tag" 30
    [ -n "$sway_pid" ] && wait "$sway_pid" 2>/dev/null
    for f in waybar.log module-output.log actions.log config.jsonc style.css; do
        [ -f "$work/files/$f" ] && cp "$work/files/$f" "$out/$f"
    done
    [ -f "$work/sway.log" ] && cp "$work/sway.log" "$out/sway.log"
    rm -rf "$work"
}
trap teardown EXIT
trap 'exit 1' INT TERM

fail() { echo "headless-waybar.sh: $*" >&2; exit 1; }

run_env sway -c "$work/sway.conf" >"$work/sway.log" 2>&1 &
sway_pid=$!

# Bounded waits: the compositor's socket, then waybar's bar on the output.
i=0
while ! ls "$runtime"/wayland-* >/dev/null 2>&1; do
    kill -0 "$sway_pid" 2>/dev/null || fail "sway exited; see $out/sway.log"
    [ $i -ge 100 ] && fail "sway did not create a Wayland socket within 10 s"
    sleep 0.1; i=$((i + 1))
done
display=$(basename "$(ls "$runtime"/wayland-* | grep -v '\.lock$' | head -n 1)")
i=0
while [ -z "$(ls "$runtime"/sway-ipc.*.sock 2>/dev/null)" ]; do
    [ $i -ge 100 ] && fail "sway did not open its IPC socket within 10 s"
    sleep 0.1; i=$((i + 1))
done
ipc=$(ls "$runtime"/sway-ipc.*.sock | head -n 1)
# The headless backend starts with one output; create the others.
i=1
while [ $i -lt "$outputs" ]; do
    run_env swaymsg -s "$ipc" create_output >/dev/null || fail "swaymsg create_output failed"
    i=$((i + 1))
done
i=0
bars() { n=$(grep -c "Bar configured" "$work/files/waybar.log" 2>/dev/null); echo "${n:-0}"; }
while [ "$(bars)" -lt "$outputs" ]; do
    [ $i -ge 100 ] && fail "waybar did not configure $outputs bar(s) within 10 s; see $out/waybar.log"
    sleep 0.1; i=$((i + 1))
done

sleep "$wait_s"
if [ -n "$expect" ]; then
    i=0
    while ! grep -qF -- "$expect" "$module_log" 2>/dev/null; do
        [ $i -ge 50 ] && fail "the module never printed \"$expect\"; see $out/module-output.log"
        sleep 0.1; i=$((i + 1))
    done
fi

if [ -n "$expect_colour" ]; then
    pixels="$(dirname "$0")/../peers/png_pixels.py"
    i=0
    while :; do
        if as_user env XDG_RUNTIME_DIR="$runtime" WAYLAND_DISPLAY="$display" BIOMATIMER_HARNESS_TAG="$tag" \
            grim "$work/files/probe.png" 2>/dev/null; then
            seen=$(python3 "$pixels" --count "$work/files/probe.png" 0 30 "$expect_colour" 2>/dev/null)
            [ "${seen:-0}" -ge 10 ] && break
        fi
        [ $i -ge 40 ] && fail "the bar never showed #$expect_colour within 10 s; see $out/waybar.log"
        sleep 0.25; i=$((i + 1))
    done
fi

if [ -n "$actions" ]; then
    # A headless sway has no pointer device: wl-click.py adds a virtual one and clicks.
    cp "$(dirname "$0")/wl-click.py" "$work/wl-click.py" && chmod 644 "$work/wl-click.py" || exit 1
    echo "clicks:$actions" >>"$work/files/actions.log"
    set -f
    # shellcheck disable=SC2046 # X,Y,BUTTON triples become words on purpose
    as_user env XDG_RUNTIME_DIR="$runtime" WAYLAND_DISPLAY="$display" BIOMATIMER_HARNESS_TAG="$tag" \
        python3 "$work/wl-click.py" --extent "${size%x*}x$((height * outputs))" --gap "$click_gap" ${click_follow:+--follow "$module_log"} $(echo $actions | tr ',' ' ') \
        >>"$work/files/actions.log" 2>&1 || { set +f; fail "the clicks failed; see $out/actions.log"; }
    set +f
    if [ -n "$expect_after" ]; then
        i=0
        while ! tail -n 1 "$module_log" 2>/dev/null | grep -qF -- "$expect_after"; do
            [ $i -ge 100 ] && fail "after the clicks the module's line never held \"$expect_after\""
            sleep 0.1; i=$((i + 1))
        done
    fi
    sleep "$after_s"
fi

as_user env XDG_RUNTIME_DIR="$runtime" WAYLAND_DISPLAY="$display" \
    BIOMATIMER_HARNESS_TAG="$tag" grim "$work/files/screenshot.png" ||
    fail "grim could not take a screenshot"
cp "$work/files/screenshot.png" "$out/screenshot.png" || exit 1
echo "headless-waybar.sh: screenshot in $out/screenshot.png"
exit 0
