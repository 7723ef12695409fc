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
# xmllint read the SVG chart), the shells whose completions are tested (zsh, fish; bash is there),
# Syncthing, the engine that carries the sync folder between two test daemons, and
# Taskwarrior, whose real `task` runs the on-modify hook in its tests, poppler-utils
# (pdftotext, pdftoppm), which read back the PDF report, and mandoc, whose lint reads the
# manual page (as groff, man-db's, does).
DEPS_CORE := pkg-config binutils libdbus-1-dev dbus-daemon dbus-bin libglib2.0-bin systemd \
	python3 python3-dbus python3-gi python3-dbusmock libsqlite3-dev faketime man-db mandoc \
	librsvg2-bin libxml2-utils python3-icalendar zsh fish zlib1g-dev syncthing taskwarrior poppler-utils
# The real bars of the widget tests, timewarrior for the import tests and the benchmarks'
# comparisons, chromium, the browser that draws the SVG chart (headless screenshots), and
# GNOME Shell with gjs (the top bar extension runs in it) and nodejs (parses its ES module form).
DEPS_BARS := i3blocks sway waybar grim fonts-dejavu-core polybar xvfb x11-apps netpbm xdotool tmux \
	timewarrior hyperfine chromium gnome-shell gjs nodejs
# The Debian package: dpkg-shlibdeps (dpkg-dev) for its Depends, lintian to check it.
DEPS_DEB := dpkg-dev lintian
DEPS := $(DEPS_CORE) $(DEPS_BARS) $(DEPS_DEB)
# The package's programs carry the Swift runtime (--static-swift-stdlib), built apart.
STATIC := $(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath --scratch-path .build-static-stdlib

.PHONY: all build test run bench deps deb clean

all: build

# One dpkg-query for the whole list (one per package took seconds); apt-get only for what is missing.
deps:
	@installed=" $$(dpkg-query -W -f='$${Package}:$${Status}\n' $(DEPS) 2>/dev/null | sed -n 's/:install ok installed$$//p' | tr '\n' ' ')"; \
	missing=""; for p in $(DEPS); do \
		case "$$installed" in *" $$p "*) ;; *) missing="$$missing $$p" ;; esac; \
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

# Every suite in one `swift test`. The end-to-end suites block a thread while a real program
# works; they run each test on a thread of their own (`.ownThread`, Tests/TestSupport), so the
# cooperative pool (one thread per core) stays free for the tests that await.
# The tests and the programs they start are built optimized (release, testable), in a folder of
# their own so `make run`'s debug build stays warm: on 2 cores the suite is bound by CPU, and a
# debug test process spent 63 s of it (ArgumentParser checks every parse in a debug build),
# debug daemons 20 s more. `swift test` alone still runs the debug build.
TESTS := -c release -Xswiftc -enable-testing --scratch-path .build-tests
test: deps deb
	$(SWIFT) build --build-tests $(TESTS)
	$(SWIFT) test --skip-build $(TESTS) 2>&1 | tee .build-tests/test-output.txt; exit $${PIPESTATUS[0]}

# `make deb`: .build/deb/biomatimer_<version>_<arch>.deb, which needs no Swift toolchain;
# DebPackageTests installs it (so `make test` builds it first: a release build, minutes).
# It is made again only when something it is made from is newer than the last one made (a
# file or a folder, whose time changes when a file is added or removed, under these; the
# dependencies resolved): a warm `make test` spends nothing here.
DEB_INPUTS := $(shell find Sources Widgets packaging dbus 2>/dev/null) Package.swift $(wildcard Package.resolved) README.md Makefile
DEB_STAMP := .build/deb/.made
deb:
	@ls .build/deb/biomatimer_*.deb >/dev/null 2>&1 || rm -f $(DEB_STAMP)
	@$(MAKE) --no-print-directory $(DEB_STAMP)

$(DEB_STAMP): $(DEB_INPUTS) | deps
	for p in biomatimer-tool biomatimerd biomatimer-tray biomatimer; do $(STATIC) --product $$p || exit 1; done
	sh packaging/build-deb.sh "$$($(STATIC) --show-bin-path)" .build/deb
	touch $@

run: build
	@bash dbus/dev-session.sh "$$($(SWIFT) build --show-bin-path)/biomatimer"

# The benchmarks time the programs as the package ships them: the static release build `make
# deb` makes, with the two benchmark programs built beside them. `biomatimer` (a small C
# front) answers keybinding commands itself; the rest runs in `biomatimer-tool`.
bench: deps deb
	for p in BenchDBus BenchStore; do $(STATIC) --product $$p || exit 1; done
	@bash .ci/bench "$$($(STATIC) --show-bin-path)"

clean:
	rm -rf .build .build-static-stdlib .build-tests
