import BiomaDaemon
import DBusCore
import Foundation
import Testing
import TestSupport

/// `biomatimer backups` and `biomatimer restore` against the real daemon on a private bus: a
/// deleted project brought back with its time, the restore taken back by its own backup, the
/// bars' signal carrying the restored state, and every refusal changing nothing.
@Suite(.serialized) struct BackupRestoreTests {
    /// `backups --json`'s rows: name and reason.
    static func listed(_ f: DaemonFixture) throws -> [(name: String, reason: String)] {
        let r = try f.cliOK(["backups", "--json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        return rows.map { ($0["name"] as? String ?? "", $0["reason"] as? String ?? "") }
    }

    /// `project list --json`: each project's name and today's total (µs).
    static func projects(_ f: DaemonFixture) throws -> [String: Int64] {
        let r = try f.cliOK(["project", "list", "--json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["name"] as? String ?? "", ($0["daily_total"] as? NSNumber)?.int64Value ?? -1) })
    }

    @Test func aDeletedProjectComesBackAndTheRestoreIsTakenBackByItsOwnBackup() throws {
        // The daemon's clock at noon: 09:00-10:30 today is past whenever the test runs.
        let f = try DaemonFixture(movableClock: true)
        try f.cliOK(["project", "add", "Client A"])
        try f.cliOK(["project", "add", "Internal"])
        try f.cliOK(["add", "09:00-10:30", "--project", "Client A"])
        try f.cliOK(["add", "10:30-11:00", "--project", "Internal"])
        let (ninety, thirty): (Int64, Int64) = (5_400_000_000, 1_800_000_000)
        #expect(try Self.projects(f) == ["Client A": ninety, "Internal": thirty])
        let withA = try f.durableState()

        try f.cliOK(["project", "delete", "Client A", "--yes"])
        #expect(try Self.projects(f) == ["Internal": thirty])
        let withoutA = try f.durableState()
        let first = try Self.listed(f)
        #expect(first.map(\.reason) == ["before-delete-project", "daily"], "\(first)")
        let deleted = first[0].name
        let shown = try f.cliOK(["backups"]).stdout
        #expect(shown.contains("before deleting a project") && shown.contains(deleted) && shown.contains("daily"), "\(shown)")

        // Refused, nothing changed: no terminal to ask on without --yes (a usage error), and a
        // name that is not one of the backups.
        let unasked = try f.cli(["restore", deleted])
        #expect(unasked.status == 2 && unasked.stderr.contains("pass --yes"), "\(unasked.stderr)")
        let backups = f.dataDirectory.appendingPathComponent("backups")
        for name in ["../biomatimer.sqlite", "..", backups.appendingPathComponent(deleted).path, "biomatimer.sqlite", "nope"] {
            let r = try f.cli(["restore", name, "--yes"])
            #expect(r.status == 1 && r.stderr.contains("`biomatimer backups` lists them"), "\(name): \(r.stderr)")
        }
        let notAStore = "biomatimer-202001010000000000-daily.sqlite"
        try Data("not a database\n".utf8).write(to: backups.appendingPathComponent(notAStore))
        let garbage = try f.cli(["restore", notAStore, "--yes"])
        #expect(garbage.status == 1 && garbage.stderr.contains("is not a biomatimer store"), "\(garbage.stderr)")
        #expect(try f.durableState() == withoutA, "a refused restore changes nothing")
        #expect(try Self.listed(f).count == first.count + 1, "and takes no backup")
        try FileManager.default.removeItem(at: backups.appendingPathComponent(notAStore))

        // The restore: the project and its time are back, in the properties and their signal.
        let monitor = try PropertiesMonitor(environment: f.environment)
        let restore = try f.cli(["restore", deleted, "--yes"])
        #expect(restore.status == 0, "\(restore.stderr)")
        let afterRestore = try Self.listed(f)
        #expect(afterRestore.map(\.reason) == ["before-restore", "before-delete-project", "daily"], "\(afterRestore)")
        let kept = afterRestore[0].name
        #expect(restore.stdout.hasPrefix("Restored the backup of "), "\(restore.stdout)")
        #expect(
            restore.stdout.hasSuffix(
                " (before deleting a project). The history before it is kept as backup \(kept): `biomatimer restore \(kept)` takes it back.\n"),
            "\(restore.stdout)")
        #expect(try Self.projects(f) == ["Client A": ninety, "Internal": thirty])
        #expect(try f.durableState() == withA)
        let properties = try f.properties()
        #expect(properties["DailyTotal"]?.int64 == ninety + thirty)
        #expect(properties["Projects"]?.description.contains("Client A") == true)
        let signal = monitor.waitFor(1).first { $0["Projects"] != nil } ?? [:]
        #expect("\(signal["Projects"] ?? "")".contains("Client A"), "the bars are told: \(signal)")
        #expect((signal["DailyTotal"] as? NSNumber)?.int64Value ?? 0 >= ninety + thirty, "\(signal)")
        // Undo does not reach across a restore: its own backup is the way back.
        #expect(try f.cli(["undo"]).status == 1)

        // Restoring the restore's own backup takes it back.
        try f.cliOK(["restore", kept, "--yes"])
        #expect(try Self.projects(f) == ["Internal": thirty])
        #expect(try f.durableState() == withoutA)
        #expect(try Self.listed(f).map(\.reason) == ["before-restore", "before-restore", "before-delete-project", "daily"])
    }
}
