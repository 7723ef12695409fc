import ArgumentParser
import BiomaText
import BiomaSystem
import BiomaWidgets
import DBusCore
import BiomaContract

#if canImport(Glibc)
import Glibc
#endif

/// What a command prints goes to its caller: straight to the process's own standard output
/// in `biomatimer-tool`, into the `Run` reply in the daemon.
func writeStandardOutput(_ text: String) { CommandContext.current.output(text) }
func writeStandardError(_ text: String) { CommandContext.current.error(text) }

/// `print` for commands: a line (or `terminator`) to the caller's standard output.
func say(_ text: String, terminator: String = "\n") { CommandContext.current.output(text + terminator) }

/// What a `list` command prints: with `--json` (`asJSON`) the rows as `json` makes them, for
/// scripts, an empty list included; with no rows, `none` (what there is to do); else `lines`.
func sayRows<Row>(_ rows: [Row], asJSON: Bool, json: ([Row]) -> JSON, none: String, lines: ([Row]) throws -> Void) rethrows {
    if asJSON {
        say(json(rows).text)
    } else if rows.isEmpty {
        say(none)
    } else {
        try lines(rows)
    }
}

/// A `list` command whose rows are one call's answer, without arguments: `member` on
/// `interface` (Timer1 unless it says otherwise), said by `sayRows`.
protocol RowsCommand: ParsableCommand {
    associatedtype Row: ResultRow
    static var member: String { get }
    static var interface: String { get }
    /// What to do when there are none.
    static var none: String { get }
    static func rowsJSON(_ rows: [Row]) -> JSON
    static func sayLines(_ rows: [Row])
    /// `--json`.
    var json: Bool { get }
}

extension RowsCommand {
    static var interface: String { ContractNames.interface }

    func run() throws {
        let rows = Row.rows(try daemonClient().call(Self.member, [], interface: Self.interface).first)
        sayRows(rows, asJSON: json, json: Self.rowsJSON, none: Self.none, lines: Self.sayLines)
    }
}

/// The caller's daemon: in `biomatimer-tool` a connection to the session bus, in the daemon
/// the handlers themselves.
func daemonClient() throws(ClientFailure) -> any DaemonAccess { try CommandContext.current.daemon() }

/// The caller's terminal style: colour on a terminal, without `NO_COLOR`, `TERM` not dumb.
func terminalStyle() -> Terminal { CommandContext.current.terminal }
