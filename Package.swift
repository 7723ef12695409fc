// swift-tools-version: 6.1
//
// biomatimer — a time tracker for the Linux desktop.
// Layers (see ARCHITECTURE.md): CDBus → DBusCore → DBusKit; BiomaText (formats shared by
// every side); CContract → BiomaContract (the contract); BiomaCore → BiomaStore → BiomaDaemon
// (the daemon's side), with BiomaReports (what the daemon prints); BiomaWidgets (the bars) →
// BiomaClient (the daemon's follower, the watch) → BiomaTray (the tray); BiomaSystem (files, environment, writes);
// BiomaInstall; BiomaCommands (the command tree's grammar, run by the daemon for the front and
// by biomatimer-tool, which supplies the local commands' bodies). Three executables by role:
// `biomatimer` (a C front that carries the command line to the daemon), `biomatimer-tool`
// (the local commands, and every command when no daemon answers) and `biomatimerd`; and
// `biomatimer-tray`, the tray alone, which the front runs for `biomatimer tray`.

import PackageDescription

/// `make test` builds the tests optimized (`-c release`): a release build compiles a module
/// whole, and the end-to-end suite as one unit took over five minutes on 2 cores; its files
/// are compiled one by one instead (in parallel, as a debug build does).
let fileByFile: [SwiftSetting] = [.unsafeFlags(["-no-whole-module-optimization"])]

let package = Package(
    name: "biomatimer",
    products: [
        .executable(name: "biomatimer", targets: ["biomatimer"]),
        .executable(name: "biomatimer-tool", targets: ["biomatimer-tool"]),
        .executable(name: "biomatimerd", targets: ["biomatimerd"]),
        .executable(name: "biomatimer-tray", targets: ["biomatimer-tray"]),
        .library(name: "DBusKit", targets: ["DBusKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // libdbus-1, found through pkg-config; Debian's libdbus-1-dev provides it.
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        // A Swift D-Bus layer over libdbus: value model, validation, client and service.
        // Values, validation, messages and the blocking client, without Foundation (fast start).
        .target(name: "DBusCore", dependencies: ["CDBus", "BiomaSystem"], exclude: ["README.md"]),
        .target(name: "DBusKit", dependencies: ["CDBus", "DBusCore", "CSystem", "BiomaSystem"], exclude: ["README.md"]),
        // timerfd and signalfd for the bus loop's deadlines and the daemon's signals; pidfd and
        // posix_spawn's closefrom for child processes.
        .target(name: "CSystem"),
        // The contract's names, exit codes and messages: one C header for both clients.
        .target(name: "CContract"),

        // The process's files (read whole, written atomically), its environment, the one
        // write-all loop (the installer, the sync folder, the tray, command output), the one
        // pthread mutex, a descriptor's one owner and the one way to start a child process.
        .target(name: "BiomaSystem", dependencies: ["CSystem"], exclude: ["README.md"]),
        // The formats every side shares, without Foundation: durations, days, JSON written
        // (`JSON`) and read (`StrictJSON`), terminal text.
        .target(name: "BiomaText", exclude: ["README.md"]),
        // Pure time-tracking rules: no I/O, clock and time zone passed in.
        .target(name: "BiomaCore", dependencies: ["BiomaText"], exclude: ["README.md"]),
        // The one SQLite setting Swift cannot make itself (a C function of variable arguments).
        .target(name: "CSQLite", linkerSettings: [.linkedLibrary("sqlite3")]),
        // The SQLite store (GRDB) and the tracker facade the daemon drives.
        .target(
            name: "BiomaStore",
            dependencies: [
                "BiomaCore", "BiomaSystem", "CSQLite", .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's own functions, for values bound straight to a bulk insert (`DirectBinding`).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            exclude: ["README.md"]
        ),
        // The published state and the renderers for the status bars; one folder per bar under
        // Widgets/.
        .target(
            name: "BiomaWidgets",
            dependencies: ["BiomaContract", "BiomaText"],
            path: "Widgets",
            exclude: ["README.md", "i3blocks/README.md", "i3blocks/i3blocks.conf", "island/README.md", "json/README.md", "polybar/README.md", "polybar/config.ini", "template/README.md", "tmux/README.md", "tmux/tmux.conf", "waybar/README.md", "waybar/config.jsonc", "waybar/style.css"]
        ),
        // What the daemon prints that is not a bar line: the picture of the day (drawn from
        // BiomaCore's DayChart), report and status text, the notifications' words.
        .target(
            name: "BiomaReports", dependencies: ["BiomaCore", "BiomaText"],
            exclude: ["README.md"]
        ),
        // zlib, found through pkg-config; Debian's zlib1g-dev provides it (the tray's PNG dots).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // `biomatimer tray`: a StatusNotifierItem with a dbusmenu, one more renderer of the
        // published state. Pure parts (pixmaps, PNG, menu model, tooltip) beside the bus side.
        .target(name: "BiomaTray", dependencies: ["DBusKit", "BiomaClient", "BiomaContract", "BiomaWidgets", "BiomaText", "BiomaSystem", "CZlib"], exclude: ["README.md"]),
        // The daemon: the tracker published as /org/biomatimer/Timer1, and the command line
        // run for the front (org.biomatimer.Command1.Run).
        .target(
            name: "BiomaDaemon",
            dependencies: [
                "DBusKit", "BiomaContract", "CSystem", "BiomaCore", "BiomaStore", "BiomaWidgets", "BiomaReports", "BiomaCommands",
                "BiomaSystem", "BiomaSync",
            ],
            exclude: ["README.md"]
        ),
        // The contract as clients and the daemon share it: names, property tables, the
        // blocking client and its failures. No Foundation.
        .target(name: "BiomaContract", dependencies: ["DBusCore", "CContract", "BiomaText", "BiomaSystem", "CSystem"], exclude: ["README.md"]),
        // The sync folder: each device's operation log written and read there (no store, no bus).
        .target(name: "BiomaSync", dependencies: ["BiomaCore", "BiomaSystem", "BiomaText"], exclude: ["README.md"]),
        // The client's side beyond one call: the follower of the daemon's state (the watch's
        // and the tray's) and the watch.
        .target(name: "BiomaClient", dependencies: ["DBusKit", "BiomaContract", "CContract", "BiomaWidgets"], exclude: ["README.md"]),
        // `install` and `uninstall`: the layout, the manifest, files written atomically.
        .target(
            name: "BiomaInstall", dependencies: ["DBusCore", "BiomaSystem"],
            exclude: ["README.md", "gnome-shell/README.md", "taskwarrior/README.md"],
            // What `install` writes, kept once as the files themselves and compiled in (no
            // Foundation, no bundle to find at run time): the GNOME Shell extension's sources
            // and Taskwarrior's hook.
            resources: [
                "metadata.json", "stylesheet.css", "legacy-head.js", "legacy-tail.js", "module-head.js", "module-tail.js",
                "island.js", "client.js", "indicator.js",
            ].map { .embedInCode("gnome-shell/" + $0) } + [.embedInCode("taskwarrior/on-modify.biomatimer")]
        ),
        // The command tree (ArgumentParser): parsing, help, usage errors, completions, the
        // manual, and every command run against a caller's context. The daemon runs it for
        // the front; biomatimer-tool runs it for the local commands and when no daemon answers.
        // The grammar only for watch, tray, install, uninstall and daemon: their bodies are
        // supplied by biomatimer-tool (`LocalCommands`), so the daemon links none of them.
        .target(
            name: "BiomaCommands",
            dependencies: [
                "BiomaWidgets", "BiomaText", "BiomaSystem", "BiomaContract", "DBusCore", "CSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["README.md"]
        ),
        // `biomatimer`: a small C front that carries every command line to the daemon in one
        // libdbus call (Run), runs `biomatimerd` for `daemon`, and hands the local commands,
        // and everything when no daemon can be reached, to `biomatimer-tool`.
        .executableTarget(
            name: "biomatimer", dependencies: ["CContract"], exclude: ["README.md", "link"],
            // libdbus's headers without CDBus, whose pkg-config libraries would link the
            // shared libdbus ahead of everything (Debian's two architectures' arch headers).
            cSettings: [
                .unsafeFlags([
                    "-I/usr/include/dbus-1.0", "-I/usr/lib/x86_64-linux-gnu/dbus-1.0/include",
                    "-I/usr/lib/aarch64-linux-gnu/dbus-1.0/include",
                ])
            ],
            // With the runtime's two entry points stubbed in main.c, nothing of the Swift
            // runtime is pulled in; --as-needed and the linker script in link/ keep the
            // driver's -lstdc++ from becoming NEEDED (loading it cost a fifth of a poll).
            // libdbus is linked from its archive: the shared one brings libsystemd and six
            // more libraries to load and relocate on every command (about 1 ms of a poll).
            linkerSettings: [
                .unsafeFlags([
                    "-static-stdlib", "-Xlinker", "--as-needed", "-LSources/biomatimer/link", "-Xlinker", "-l:libdbus-1.a",
                ])
            ]
        ),
        // The command tree run in the caller's process: watch, install, uninstall, and every
        // command when no daemon can be reached (the offline messages). It links neither the
        // store nor Foundation (only FoundationEssentials), and the Swift runtime statically.
        .executableTarget(
            name: "biomatimer-tool",
            dependencies: [
                "BiomaCommands", "BiomaClient", "BiomaInstall", "BiomaTray", "BiomaWidgets", "BiomaSystem", "BiomaText", "BiomaContract",
            ],
            path: "Sources/BiomatimerTool",
            exclude: ["README.md"],
            linkerSettings: [
                .unsafeFlags(["-static-stdlib"]),
                // FoundationEssentials's own static dependencies, which -static-stdlib leaves out.
                .linkedLibrary("_FoundationCollections"), .linkedLibrary("_FoundationCShims"),
                .linkedLibrary("swiftSynchronization"),
            ]
        ),
        // `biomatimer tray` alone: the tray without the command tree, ArgumentParser or
        // Foundation, the Swift runtime statically (its private memory is most of its cost).
        .executableTarget(
            name: "biomatimer-tray",
            dependencies: ["BiomaTray", "BiomaSystem"],
            path: "Sources/BiomatimerTray"
        ),
        // The daemon: the store, the bus object, the deadlines.
        .executableTarget(
            name: "biomatimerd",
            dependencies: [
                "BiomaCore", "BiomaDaemon", "BiomaSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["README.md"]
        ),

        // Benchmarks (`make bench`): each compares against a baseline measured in the same run.
        .target(name: "CBaseline", dependencies: ["CDBus"]),
        .executableTarget(name: "BenchDBus", dependencies: ["DBusKit", "CBaseline"]),
        .executableTarget(name: "BenchStore", dependencies: ["BiomaCore", "BiomaStore", "BiomaSync"]),

        // Tests. TestSupport starts private dbus-daemons and finds the built binaries.
        .target(name: "TestSupport", dependencies: ["BiomaCore", "DBusCore", "BiomaContract", "CSystem"], path: "Tests/TestSupport"),
        // Hooks into the store's connection for its tests and the daemon's (a dump of every
        // table, raw SQL, query plans), kept out of the daemon; reached with @testable import.
        .target(
            name: "StoreTestSupport",
            dependencies: [
                "BiomaCore", "BiomaStore", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Tests/StoreTestSupport"
        ),
        .testTarget(name: "DBusKitTests", dependencies: ["DBusKit", "CDBus", "BiomaSystem", "TestSupport"]),
        .testTarget(
            name: "BiomaCoreTests",
            dependencies: [
                "BiomaCore", "BiomaText", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "BiomaStoreTests",
            dependencies: [
                "BiomaCore", "BiomaStore", "TestSupport", "StoreTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // The bars' renderers; StatusText (BiomaReports) is checked on the same fixtures.
        .testTarget(name: "BiomaWidgetsTests", dependencies: ["BiomaWidgets", "BiomaText", "BiomaReports", "BiomaContract", "TestSupport"]),
        .testTarget(name: "BiomaTrayTests", dependencies: ["BiomaTray", "BiomaText", "BiomaWidgets", "BiomaContract", "TestSupport"]),
        .testTarget(name: "BiomaSyncTests", dependencies: ["BiomaSync", "BiomaCore", "TestSupport"]),
        .testTarget(name: "BiomaContractTests", dependencies: ["BiomaContract", "TestSupport"]),
        // The command tree in process against a stand-in daemon: exact output and exit codes.
        // (ArgumentParser: the tree walked to find every command.)
        .testTarget(
            name: "BiomaCommandsTests",
            dependencies: [
                "BiomaCommands", "BiomaWidgets", "BiomaContract", "DBusCore", "CContract",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(name: "BiomaReportsTests", dependencies: ["BiomaReports", "BiomaCore", "BiomaText", "TestSupport"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "DBusKit", "BiomaCore", "BiomaStore", "BiomaDaemon", "BiomaClient", "BiomaInstall", "BiomaWidgets",
                "BiomaReports", "BiomaText", "BiomaTray", "BiomaSystem", "TestSupport", "StoreTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: fileByFile
        ),
    ],
    swiftLanguageModes: [.v6]
)
