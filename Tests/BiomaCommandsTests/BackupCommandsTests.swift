import BiomaCommands
import CContract
import DBusCore
import Testing
import BiomaContract

/// `backups` and `restore` (`ListBackups`, `RestoreBackup`).
@Suite struct BackupCommandsTests {
    static func backup(_ name: String, _ taken: Int64, _ reason: String, _ size: Int64) -> BackupListing {
        var row = BackupListing()
        (row.name, row.taken, row.reason, row.size) = (name, taken, reason, size)
        return row
    }

    static let deleted = backup("biomatimer-202611240915000000-before-delete-project.sqlite", Moment.today(10, 15), "before-delete-project", 98_304)
    static let daily = backup("biomatimer-202611222300000000-daily.sqlite", Moment.today(0, days: -1), "daily", 1_572_864)
    static let kept = backup("biomatimer-202611240920000000-before-restore.sqlite", Moment.today(10, 20), "before-restore", 101_000)
    static let listing = BackupListing.list([
        kept, deleted, daily,
        backup("biomatimer-202611010800000000-before-reset-history.sqlite", Moment.today(9, days: -23), "before-reset-history", 812),
        backup("biomatimer-202610010800000000-odd\u{1B}[2J.sqlite", Moment.today(9, days: -54), "odd\u{1B}[2J", 3 << 30),
    ])

    static let successes: [Line] = [
        Line(
            ["backups"], BIOMATIMER_TIMER1_LIST_BACKUPS, answer: [listing],
            out: "10:20             before a restore               99 KiB  biomatimer-202611240920000000-before-restore.sqlite\n"
                + "10:15             before deleting a project      96 KiB  biomatimer-202611240915000000-before-delete-project.sqlite\n"
                + "yesterday 00:00   daily                         1.5 MiB  biomatimer-202611222300000000-daily.sqlite\n"
                + "2026-11-01 09:00  before resetting the history    812 B  biomatimer-202611010800000000-before-reset-history.sqlite\n"
                + "2026-10-01 09:00  odd [2J                       3.0 GiB  biomatimer-202610010800000000-odd [2J.sqlite\n"
                + "Bring one back with: biomatimer restore NAME\n"),
        Line(
            ["backups"], BIOMATIMER_TIMER1_LIST_BACKUPS, answer: [BackupListing.list([])],
            out: "No backups yet: one is taken every day, and before project delete, reset-history and restore.\n"),
        Line(
            ["backups", "--json"], BIOMATIMER_TIMER1_LIST_BACKUPS, answer: [BackupListing.list([deleted, daily])],
            out: "[{\"name\":\"biomatimer-202611240915000000-before-delete-project.sqlite\",\"taken\":1795511700000000,"
                + "\"reason\":\"before-delete-project\",\"size\":98304},"
                + "{\"name\":\"biomatimer-202611222300000000-daily.sqlite\",\"taken\":1795388400000000,\"reason\":\"daily\",\"size\":1572864}]\n"),
        Line(
            ["restore", deleted.name, "--yes"], BIOMATIMER_TIMER1_RESTORE_BACKUP, [.string(deleted.name)],
            answer: [deleted.dbusValue, kept.dbusValue],
            out: "Restored the backup of 10:15 (before deleting a project). The history before it is kept as backup "
                + "biomatimer-202611240920000000-before-restore.sqlite: "
                + "`biomatimer restore biomatimer-202611240920000000-before-restore.sqlite` takes it back.\n"),
        Line(
            ["restore", daily.name, "--yes"], BIOMATIMER_TIMER1_RESTORE_BACKUP, [.string(daily.name)],
            answer: [daily.dbusValue, kept.dbusValue],
            out: "Restored the backup of yesterday 00:00 (daily). The history before it is kept as backup "
                + "biomatimer-202611240920000000-before-restore.sqlite: "
                + "`biomatimer restore biomatimer-202611240920000000-before-restore.sqlite` takes it back.\n"),
    ]

    @Test(arguments: successes) func eachLineMakesItsCallsAndPrintsExactly(_ line: Line) { expectSucceeds(line) }

    @Test(arguments: successes) func eachLineSaysTheDaemonsRefusal(_ line: Line) { expectRefusals(line) }

    /// On a terminal `restore` asks first (in the daemon, its caller asks); no is nothing done.
    @Test func aRestoreAsksFirst() {
        let daemon = StandInDaemon(answers: [BIOMATIMER_TIMER1_RESTORE_BACKUP: [Self.daily.dbusValue, Self.kept.dbusValue]])
        let question = "Replace ALL recorded time with the backup \(Self.daily.name)? (What is recorded now is kept as a backup.) [y/N] "
        #expect(
            run(["restore", Self.daily.name], daemon: daemon, daemonSide: true, stdinTTY: true)
                == Outcome(code: ExitCode.confirm, out: "", err: question))
        #expect(
            run(["restore", Self.daily.name], daemon: daemon, daemonSide: true, stdinTTY: true, answer: "n")
                == Outcome(code: 1, out: "", err: "biomatimer: Nothing was changed.\n"))
        #expect(daemon.calls.isEmpty)
        let done = run(["restore", Self.daily.name], daemon: daemon, daemonSide: true, stdinTTY: true, answer: "y")
        #expect(done.code == 0 && done.out.hasPrefix("Restored the backup of yesterday 00:00 (daily)."), "\(done)")
        #expect(daemon.calls.map(\.member) == [BIOMATIMER_TIMER1_RESTORE_BACKUP])
    }

    static let restoreUsage = "restore <backup> [--yes]"

    static let usages: [Usage] = [
        Usage(["backups", "daily"], "Unexpected argument 'daily'", "backups [--json]"),
        Usage(["restore", daily.name], "There is no terminal to ask for confirmation on: pass --yes.", restoreUsage),
        Usage(
            ["restore", "--yes"], "Missing expected argument '<backup>'\nHelp:  <backup>  The backup's name, as `biomatimer backups` lists it.",
            restoreUsage),
    ]

    @Test(arguments: usages) func eachUsageErrorIsExact(_ usage: Usage) { expectUsage(usage) }
}
