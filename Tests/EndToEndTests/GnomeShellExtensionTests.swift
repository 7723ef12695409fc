import BiomaInstall
import BiomaText
import BiomaWidgets
import DBusCore
import Foundation
import Testing
import BiomaContract

import TestSupport

/// The GNOME Shell extension's files, without a shell: `install` carries Sources/BiomaInstall/gnome-shell as
/// it is, both forms parse (the legacy one also loads in the real shell, `GnomeShellTests`),
/// and the line it shows is the island renderer's, state for state, instant for instant.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct GnomeShellExtensionTests {
    static let folder = repositoryRoot.appendingPathComponent("Sources/BiomaInstall/gnome-shell")

    static func source(_ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    @Test func whatInstallWritesIsTheFolderJoined() throws {
        for (form, prefix, versions) in [
            (GnomeShellExtension.Form.legacy, "legacy", #"["43", "44"]"#),
            (.modules, "module", #"["45", "46", "47", "48", "49"]"#),
        ] {
            let files = Dictionary(uniqueKeysWithValues: GnomeShellExtension.files(form).map { ($0.name, $0.text) })
            let script = try ["\(prefix)-head.js", "island.js", "client.js", "indicator.js", "\(prefix)-tail.js"].map(Self.source).joined()
            #expect(files["extension.js"] == script)
            #expect(files["stylesheet.css"] == (try Self.source("stylesheet.css")))
            let metadata = try #require(files["metadata.json"])
            #expect(metadata == (try Self.source("metadata.json")).replacingOccurrences(of: "@SHELL_VERSIONS@", with: versions))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(metadata.utf8)) as? [String: Any])
            #expect(object["uuid"] as? String == GnomeShellExtension.uuid)
        }
        #expect(GnomeShellExtension.Form(forVersion: "GNOME Shell 43.9") == .legacy)
        #expect(GnomeShellExtension.Form(forVersion: "GNOME Shell 44.2") == .legacy)
        #expect(GnomeShellExtension.Form(forVersion: "GNOME Shell 45.0") == .modules)
        #expect(GnomeShellExtension.Form(forVersion: "GNOME Shell 48.rc") == .modules)
        #expect(GnomeShellExtension.Form(forVersion: nil) == .modules)
    }

    /// Node parses both forms (the ES module as a module); gjs loads the ES module as far as
    /// its first shell import, which only a running shell provides: an import error, not a
    /// syntax error.
    @Test func bothFormsParse() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/gjs"), "gjs is missing (Debian package gjs; `make deps`)")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/node"), "node is missing (Debian package nodejs; `make deps`)")
        let directory = try makeTemporaryDirectory("gnome-extension-forms")
        defer { try? FileManager.default.removeItem(at: directory) }
        for form in [GnomeShellExtension.Form.legacy, .modules] {
            let script = try #require(GnomeShellExtension.files(form).first { $0.name == "extension.js" }?.text)
            let file = directory.appendingPathComponent(form == .legacy ? "legacy.js" : "module.mjs")
            try script.write(to: file, atomically: true, encoding: .utf8)
            let check = try runProcess("/usr/bin/node", ["--check", file.path])
            #expect(check.status == 0, "node --check \(file.lastPathComponent): \(check.stderr)")
        }
        // A broken copy must fail the same checks.
        let broken = directory.appendingPathComponent("broken.mjs")
        try (try String(contentsOf: directory.appendingPathComponent("module.mjs"), encoding: .utf8) + "\n}\n")
            .write(to: broken, atomically: true, encoding: .utf8)
        #expect(try runProcess("/usr/bin/node", ["--check", broken.path]).status != 0)

        let extensionJS = directory.appendingPathComponent("extension.js")
        try FileManager.default.copyItem(at: directory.appendingPathComponent("module.mjs"), to: extensionJS)
        let module = try runProcess("/usr/bin/gjs", ["-m", extensionJS.path])
        #expect(module.status != 0)
        #expect(module.stderr.contains("ImportError") && module.stderr.contains("resource:///org/gnome/shell"), "\(module.stderr)")
        #expect(!module.stderr.contains("SyntaxError"), "\(module.stderr)")
        let brokenModule = try runProcess("/usr/bin/gjs", ["-m", broken.path])
        #expect(brokenModule.stderr.contains("SyntaxError"), "\(brokenModule.stderr)")
    }

    /// The extension's line and next redraw for many states at several instants, from the
    /// properties as D-Bus carries them (each interface's table), against `IslandRenderer` and
    /// `nextRedraw` (the line's times, and all of them while the menu is open).
    @Test func theExtensionShowsTheIslandLine() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/gjs"), "gjs is missing (Debian package gjs; `make deps`)")
        let t0: Int64 = 1_763_776_800_000_000
        let instants: [Int64] = [t0 - 2_000_000, t0, t0 + 500_000, t0 + 999_999, t0 + 1_000_000, t0 + 3_601_250_000]
        var cases: [(state: WidgetState, now: Int64)] = []
        for state in Self.states(t0) { for now in instants { cases.append((state, now)) } }

        let directory = try makeTemporaryDirectory("gnome-island")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("cases.json")
        let json = cases.map { c in
            [
                "now": c.now,
                "state": [
                    "online": c.state.online,
                    "timer": Self.json(WorkStatus.table.values(of: c.state.timer)),
                    "focus": Self.json(FocusStatus.table.values(of: c.state.focus)),
                    "tasks": Self.json(TasksStatus.table.values(of: c.state.tasks)),
                ] as [String: Any],
            ] as [String: Any]
        }
        try JSONSerialization.data(withJSONObject: json).write(to: input)
        let script = directory.appendingPathComponent("island.js")
        try (try Self.source("island.js") + String(contentsOf: repositoryRoot.appendingPathComponent("Tests/peers/island_lines.js"), encoding: .utf8))
            .write(to: script, atomically: true, encoding: .utf8)
        let run = try runProcess("/usr/bin/gjs", [script.path, input.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        let answers = run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        try #require(answers.count == cases.count, "\(run.stdout)")
        let renderer = IslandRenderer()
        for (c, answer) in zip(cases, answers) {
            let expected = renderer.render(c.state, now: c.now)
            #expect(answer["line"] as? String == expected, "now \(c.now - t0) µs after t0, state \(c.state)")
            // The panel wakes only for the line's times; the open menu's project times too.
            let next = nextRedraw(after: c.now, state: c.state, showing: .line)
            #expect((answer["next"] as? NSNumber)?.int64Value == next, "next redraw, now \(c.now - t0), state \(c.state)")
            let nextAll = nextRedraw(after: c.now, state: c.state, showing: .all)
            #expect((answer["nextAll"] as? NSNumber)?.int64Value == nextAll, "next redraw with the menu, now \(c.now - t0), state \(c.state)")
        }
    }

    /// Plain JSON values for a property table's values (numbers, strings, booleans, lists).
    static func json(_ values: [String: DBusValue]) -> [String: Any] {
        values.compactMapValues(plain)
    }

    static func plain(_ value: DBusValue) -> Any? {
        switch value {
        case .boolean(let b): return b
        case .int64(let v): return v
        case .uint32(let v): return v
        case .double(let v): return v
        case .string(let s): return s
        case .array(_, let items): return items.compactMap(plain)
        case .structure(let fields): return fields.compactMap(plain)
        default: return nil
        }
    }

    /// Work stopped, running, with and without a project, hostile, long, wide, combining and
    /// right-to-left names, a target, due tasks, and focus timers in every state.
    static func states(_ t0: Int64) -> [WidgetState] {
        func work(
            running: Bool = true, session: Int64 = 330_400_000, daily: Int64 = 9_915_700_000, id: String = "",
            name: String = "", color: String = "#FF8800"
        ) -> WidgetState {
            WidgetState(
                running: running, updatedAt: t0, sessionTime: session, dailyTotal: daily, day: "2026-11-22",
                activeProject: id, activeProjectName: name, activeProjectColor: id.isEmpty ? "" : color,
                projectSessionTime: id.isEmpty ? 0 : 135_250_000, projectDailyTotal: id.isEmpty ? 0 : 5_445_900_000)
        }
        func focus(
            _ state: FocusRunState, kind: String = "pomodoro", phase: String = "work", label: String = "", round: UInt32 = 2,
            rounds: UInt32 = 4, left: Int64 = 754_200_000, on base: WidgetState
        ) -> WidgetState {
            var s = base
            s.focus.state = state
            s.focus.kind = kind
            s.focus.phase = phase
            s.focus.label = label
            s.focus.round = round
            s.focus.rounds = rounds
            s.focus.phaseDuration = 1_500_000_000
            s.focus.remaining = left
            s.focus.updatedAt = t0
            s.focus.phaseEndsAt = state == .running ? t0 + left : 0
            return s
        }
        let names = [
            "Client A", ##"R&D <b>"x"</b> %{F#f00} #[fg=red]"##, "עבודה על הפרויקט החדש שלנו היום", "Client أ عميل",
            String(repeating: "Lorem ipsum ", count: 42).prefix(500).description, "日本語のプロジェクト名前です長い名前",
            "🚀 Launch 👩‍💻 team 🇩🇪🇫🇷 and more words here", "Cafe\u{301} cre\u{300}me bru\u{302}le\u{301}e and e\u{301}clairs",
            "Line\nbreak\tand\u{7F}controls\u{2028}here", "A  very long project name that goes on and on", "   ",
        ]
        var states: [WidgetState] = [
            .offline, work(running: false, session: 0, daily: 0), work(running: false), work(running: false, session: 400_000),
            work(), work(id: "p1", name: ""), work(id: "p2", name: "Client A", color: "red"),
            work(running: false, id: "p3", name: "Stopped but listed"),
        ]
        states += names.enumerated().map { work(id: "p\($0.offset + 10)", name: $0.element) }
        var target = work(id: "p1", name: "Client A")
        target.dailyTarget = 28_800_000_000
        target.balance = -2_700_000_000
        var due = work(running: false)
        due.tasks.dueTasks = 2
        due.tasks.openTasks = 5
        var offlineDue = WidgetState.offline
        offlineDue.tasks.dueTasks = 3
        states += [target, due, offlineDue]
        let withProject = work(id: "p1", name: "Client A")
        let idle = work(running: false, session: 0, daily: 0)
        let stopped = work(running: false)
        states.append(focus(.running, label: "Deep work", on: withProject))
        states.append(focus(.running, kind: "countdown", phase: "countdown", label: "Tea", round: 1, rounds: 1, left: 299_100_000, on: idle))
        states.append(focus(.running, kind: "countdown", phase: "countdown", left: 3_722_600_000, on: stopped))
        states.append(focus(.running, kind: "intervals", phase: "rest", round: 3, rounds: 0, left: 400_000, on: work()))
        states.append(focus(.paused, label: "Deep work", on: withProject))
        states.append(focus(.paused, label: "Deep work", on: stopped))
        states.append(focus(.waiting, phase: "short-break", label: String(repeating: "label ", count: 20), on: stopped))
        states.append(focus(.done, kind: "countdown", phase: "countdown", label: "Tea", left: 0, on: idle))
        states.append(focus(.done, kind: "intervals", phase: "active", label: "", left: 0, on: target))
        states.append(focus(.running, phase: "long-break", label: ##"<i>R&D</i>"##, left: 0, on: due))
        return states
    }
}
