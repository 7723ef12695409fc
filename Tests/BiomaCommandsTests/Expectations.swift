import BiomaCommands
import DBusCore
import Testing
import BiomaContract

/// A line that succeeds: the calls it makes in order, what the daemon answers (by member, and
/// `GetAll` by interface) and exactly what it prints.
struct Line: Sendable, CustomTestStringConvertible {
    var line: [String]
    var calls: [StandInDaemon.Call]
    var answers: [String: [DBusValue]] = [:]
    var properties: [String: [String: DBusValue]] = [:]
    var out = ""
    var err = ""
    /// The files the line reads, as the caller's process has them.
    var contents: [String: [UInt8]] = [:]
    /// What the daemon's `Run` answers before the caller has opened the line's files (exit
    /// 65): nil when it needs none.
    var requests: String?
    /// What the line writes to files, by path.
    var written: [String: String] = [:]
    /// What it prints when no daemon answers (a bar's offline line).
    var offline = ""
    var testDescription: String { line.joined(separator: " ") }

    /// A line that makes one call on `interface`.
    init(
        _ line: [String], on interface: String = ContractNames.interface, _ member: String, _ arguments: [DBusValue] = [],
        answer: [DBusValue] = [], out: String = ""
    ) {
        self.line = line
        self.calls = [.init(interface: interface, member: member, arguments: arguments)]
        self.answers = [member: answer]
        self.out = out
    }

    init(
        _ line: [String], calls: [StandInDaemon.Call], answers: [String: [DBusValue]] = [:],
        properties: [String: [String: DBusValue]] = [:], out: String = "", err: String = ""
    ) {
        (self.line, self.calls, self.answers, self.properties, self.out, self.err) = (line, calls, answers, properties, out, err)
    }

    func daemon() -> StandInDaemon { StandInDaemon(answers: answers, properties: properties) }

    /// The line reading `contents` by path; in the daemon it asks first for `requests`.
    func with(contents: [String: [UInt8]] = [:], requests: String?, written: [String: String] = [:]) -> Line {
        var line = self
        (line.contents, line.requests, line.written) = (contents, requests, written)
        return line
    }
}

/// A call on org.biomatimer.Timer1 (and the other interfaces), as the stand-in records it.
func timer(_ member: String, _ arguments: [DBusValue] = []) -> StandInDaemon.Call {
    .init(interface: ContractNames.interface, member: member, arguments: arguments)
}

func focus(_ member: String, _ arguments: [DBusValue] = []) -> StandInDaemon.Call {
    .init(interface: ContractNames.focusInterface, member: member, arguments: arguments)
}

func tasks(_ member: String, _ arguments: [DBusValue] = []) -> StandInDaemon.Call {
    .init(interface: ContractNames.tasksInterface, member: member, arguments: arguments)
}

/// The refusals every line is tried with: the daemon's own words (exit 1), and no daemon (exit 3).
enum Refusals {
    static let refused = ClientFailure(exitCode: ExitCode.refused, "No project named or with id 'nope'.")
    static let gone = ClientFailure(exitCode: ExitCode.unavailable, "the biomatimer daemon is not running.")
}

/// The line run as the tool and as the daemon's `Run`: exit 0, exactly `out` and `err`, and
/// exactly `calls`; in the daemon a line with files first asks for them, and makes no call.
func expectSucceeds(_ line: Line, sourceLocation: SourceLocation = #_sourceLocation) {
    for daemonSide in [false, true] {
        let daemon = line.daemon()
        let files = StandInFiles(contents: line.contents)
        let outcome = run(line.line, daemon: daemon, files: files, daemonSide: daemonSide)
        if daemonSide, let requests = line.requests {
            #expect(outcome == Outcome(code: ExitCode.files, out: requests, err: ""), sourceLocation: sourceLocation)
            #expect(daemon.calls.isEmpty, sourceLocation: sourceLocation)
            continue
        }
        #expect(outcome == Outcome(code: ExitCode.done, out: line.out, err: line.err), "daemon side: \(daemonSide)", sourceLocation: sourceLocation)
        #expect(daemon.calls == line.calls, "daemon side: \(daemonSide)", sourceLocation: sourceLocation)
        #expect(files.written.mapValues { String(decoding: $0, as: UTF8.self) } == line.written, sourceLocation: sourceLocation)
    }
}

/// The daemon refusing the line's first call: its words on stderr with exit 1, nothing on
/// stdout, no call after it; no daemon at all: exit 3 with the tool's words.
func expectRefusals(_ line: Line, sourceLocation: SourceLocation = #_sourceLocation) {
    let refused = StandInDaemon(answers: line.answers, properties: line.properties, refusal: Refusals.refused)
    #expect(
        run(line.line, daemon: refused, files: StandInFiles(contents: line.contents)) == Outcome(code: 1, out: "", err: "biomatimer: No project named or with id 'nope'.\n"),
        sourceLocation: sourceLocation)
    #expect(refused.calls == Array(line.calls.prefix(1)), sourceLocation: sourceLocation)
    let gone = StandInDaemon(refusal: Refusals.gone)
    #expect(
        run(line.line, daemon: gone, files: StandInFiles(contents: line.contents)) == Outcome(code: 3, out: line.offline, err: "biomatimer: the biomatimer daemon is not running.\n"),
        sourceLocation: sourceLocation)
}

/// The daemon refusing `member` (a later call of the line): the calls up to it are made, none
/// after, and its words are said with exit 1; what was printed before stays.
func expectRefusal(
    of member: String, in line: Line, calls: Int, out: String = "", sourceLocation: SourceLocation = #_sourceLocation
) {
    let daemon = StandInDaemon(answers: line.answers, properties: line.properties, refusals: [member: Refusals.refused])
    #expect(
        run(line.line, daemon: daemon, files: StandInFiles(contents: line.contents)) == Outcome(code: 1, out: out, err: "biomatimer: No project named or with id 'nope'.\n"),
        sourceLocation: sourceLocation)
    #expect(daemon.calls == Array(line.calls.prefix(calls)), sourceLocation: sourceLocation)
}

/// A usage error: ArgumentParser's message, the command's usage, exit 2, and no call, as the
/// tool and as the daemon.
struct Usage: Sendable, CustomTestStringConvertible {
    var line: [String]
    var err: String
    var testDescription: String { line.joined(separator: " ") }

    /// `message`, then the usage of `command` (its names, e.g. `task edit`: its words after
    /// `biomatimer` on the usage line) and the pointer to its help.
    init(_ line: [String], _ message: String, _ usage: String) {
        self.line = line
        let command = usage.split(separator: " ").prefix { !$0.hasPrefix("[") && !$0.hasPrefix("<") && !$0.hasPrefix("-") }
            .joined(separator: " ")
        self.err = "biomatimer: \(message)\nUsage: biomatimer \(usage)\n  See 'biomatimer \(command) --help' for more information.\n"
    }

    init(line: [String], err: String) { (self.line, self.err) = (line, err) }
}

func expectUsage(_ usage: Usage, sourceLocation: SourceLocation = #_sourceLocation) {
    for daemonSide in [false, true] {
        let daemon = StandInDaemon()
        #expect(
            run(usage.line, daemon: daemon, daemonSide: daemonSide) == Outcome(code: 2, out: "", err: usage.err),
            "daemon side: \(daemonSide)", sourceLocation: sourceLocation)
        #expect(daemon.calls.isEmpty, sourceLocation: sourceLocation)
    }
}
