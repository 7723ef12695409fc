# biomatimer — `make run` and `make test` work on a fresh Debian 12 machine.
#
#   make run     build, start the daemon (on a private bus when there is no session bus)
#                and show the live island line
#   make test    install what is missing (as root, with apt-get), build, run every test
#   make bench   release build and the benchmarks, each against a baseline run alongside
#   make deps    only the Debian packages

SHELL := /bin/bash
SWIFT ?= swift
# Build and test: libdbus, a bus, the independent peers the tests drive (rsvg-convert and
# xmllint read the SVG chart) and the shells whose completions are tested (zsh, fish; bash is there).
DEPS_CORE := pkg-config libdbus-1-dev dbus-daemon dbus-bin libglib2.0-bin systemd \
	python3 python3-dbus python3-gi python3-dbusmock libsqlite3-dev faketime man-db \
	librsvg2-bin libxml2-utils python3-icalendar zsh fish zlib1g-dev
# The real bars of the widget tests, timewarrior for the import tests and the benchmarks'
# comparisons, and chromium, the browser that draws the SVG chart (headless screenshots).
DEPS_BARS := i3blocks sway waybar grim fonts-dejavu-core polybar xvfb x11-apps netpbm xdotool tmux \
	timewarrior hyperfine chromium
DEPS := $(DEPS_CORE) $(DEPS_BARS)

.PHONY: all build test run bench deps clean

all: build

deps:
	@missing=""; for p in $(DEPS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		echo "Installing Debian packages:$$missing"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	else \
		echo "Missing Debian packages:$$missing"; \
		echo "Install them with: sudo apt-get install$$missing"; \
		exit 1; \
	fi

build: deps
	$(SWIFT) build

# The tests run in four processes, one after the other: the unit suites, the real bars and
# watches, the pictures (rsvg-convert, chromium), and the other end-to-end suites. Swift
# Testing runs a process's tests on as many threads as there are cores; most end-to-end tests
# block a thread while a real program works, and on 2 cores a single process of all of them
# left the few tests that await (a deadline, a sleep) without a thread for longer than their
# time limits. Each process now takes well under a minute.
TEST_BARS := Waybar|WaybarFocus|TrayWaybar|Polybar|Tmux|I3blocks|Watch|FocusWatch|HostileName
TEST_PICTURES := ChartSVGRender|ChartSVGBrowser|PictureOfTheDay

test: deps
	$(SWIFT) build --build-tests
	@failed=0; : > .build/test-output.txt; \
	for group in "--filter=BiomaCoreTests|BiomaStoreTests|BiomaWidgetsTests|BiomaReportsTests|BiomaTrayTests|TimerControlTests|DBusKitTests" \
		"--filter=EndToEndTests\.($(TEST_BARS))Tests" "--filter=EndToEndTests\.($(TEST_PICTURES))Tests" \
		"--filter=EndToEndTests --skip=EndToEndTests\.($(TEST_BARS)|$(TEST_PICTURES))Tests"; do \
		echo "== swift test --skip-build $$group"; \
		$(SWIFT) test --skip-build $$group 2>&1 | tee -a .build/test-output.txt; \
		[ $${PIPESTATUS[0]} = 0 ] || failed=1; \
	done; exit $$failed

run: build
	@bash dbus/dev-session.sh "$$($(SWIFT) build --show-bin-path)/biomatimer"

# The benchmarks time the release build. `biomatimer` (a small C front) answers keybinding
# commands itself; the rest runs in `biomatimer-tool`.
bench: deps
	$(SWIFT) build -c release
	@bash .ci/bench "$$($(SWIFT) build -c release --show-bin-path)"

clean:
	rm -rf .build .build-static-stdlib
