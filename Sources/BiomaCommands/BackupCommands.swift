import ArgumentParser
import BiomaText
import CContract
import DBusCore
import BiomaContract

// `biomatimer backups` and `biomatimer restore`: the copies of the store the daemon keeps, and
// the way back to one of them (`ListBackups`, `RestoreBackup`).

struct BackupsCommand: RowsCommand {
    static let configuration = CommandConfiguration(
        commandName: "backups", abstract: "The backups the daemon keeps, newest first, by the name `restore` takes.",
        discussion: """
            The daemon keeps a copy of its store in the data folder's backups/ \
            ($XDG_DATA_HOME/biomatimer/backups/, default ~/.local/share/biomatimer/backups/): one a \
            day, and one before each `project delete`, `reset-history` and `restore`, the newest \
            seven of each kind. Each is listed with when it was taken, why and its size.
            """)
    static let member = BIOMATIMER_TIMER1_LIST_BACKUPS
    static let none = "No backups yet: one is taken every day, and before project delete, reset-history and restore."
    @Flag(help: "JSON for scripts.") var json = false

    static func rowsJSON(_ rows: [BackupListing]) -> JSON {
        .array(
            rows.map { row in
                .fields([("name", .string(row.name)), ("taken", .int(row.taken)), ("reason", .string(row.reason)), ("size", .int(row.size))])
            })
    }

    /// A row as its columns show it.
    struct BackupLine {
        var taken, why, size, name: String
    }

    static func sayLines(_ rows: [BackupListing]) {
        let describer = WhenText.Describer(now: commandNow(), zone: CommandContext.current.zone)
        let lines = rows.map { row in
            BackupLine(
                taken: describer.describe(row.taken), why: BackupWords.reason(row.reason), size: BackupWords.size(row.size),
                name: TextEscaping.singleLine(row.name))
        }
        func width(_ column: (BackupLine) -> String) -> Int { lines.map { DisplayWidth.of(column($0)) }.max() ?? 0 }
        let widths = (width(\.taken), width(\.why), width(\.size))
        for line in lines {
            say(
                Terminal.pad(line.taken, widths.0) + "  " + Terminal.pad(line.why, widths.1) + "  "
                    + Terminal.padLeft(line.size, widths.2) + "  " + line.name)
        }
        say("Bring one back with: biomatimer restore NAME")
    }
}

struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Bring a backup back in place of all recorded time (a backup of it is kept first).",
        discussion: """
            BACKUP is a name `biomatimer backups` lists. Everything the store holds is replaced: \
            projects, time, tasks, focus history, targets, clients. The history it replaces is kept \
            first as a backup of its own, so `biomatimer restore` of that one takes the restore \
            back; undo does not reach across a restore. Refused while sync is on: the other \
            machines' newer changes would be merged over the restored history.
            """)
    @Argument(help: "The backup's name, as `biomatimer backups` lists it.", completion: .backups) var backup: String
    @Flag(help: "Do not ask for confirmation.") var yes = false
    func validate() throws { try requireTerminalOrYes(yes) }

    func run() throws {
        try confirm(
            "Replace ALL recorded time with the backup \(TextEscaping.singleLine(backup))? (What is recorded now is kept as a backup.)",
            yes: yes)
        let answer = try callDaemon(BIOMATIMER_TIMER1_RESTORE_BACKUP, [.string(backup)])
        let restored = answer.first.flatMap(BackupListing.init(dbusValue:)) ?? BackupListing()
        let kept = TextEscaping.singleLine((answer.dropFirst().first.flatMap(BackupListing.init(dbusValue:)) ?? BackupListing()).name)
        let when = WhenText.describe(restored.taken, now: commandNow(), zone: CommandContext.current.zone)
        say(
            "Restored the backup of \(when) (\(BackupWords.reason(restored.reason))). The history before it is kept as backup \(kept): "
                + "`biomatimer restore \(kept)` takes it back.")
    }
}

extension CompletionKind {
    /// The backups' names, for `restore` (`Completions.swift` says how a shell asks).
    static var backups: CompletionKind {
        .custom { _, _, prefix in
            BackupListing.rows(completionCall(BIOMATIMER_TIMER1_LIST_BACKUPS)?.first).map(\.name).filter { $0.hasPrefix(prefix) }
        }
    }
}

/// A backup's reason and size in words.
enum BackupWords {
    static func reason(_ reason: String) -> String {
        switch reason {
        case "daily": "daily"
        case "before-delete-project": "before deleting a project"
        case "before-reset-history": "before resetting the history"
        case "before-restore": "before a restore"
        default: TextEscaping.singleLine(reason)
        }
    }

    /// `812 B`, `96 KiB`, `4.2 MiB`, `1.3 GiB`.
    static func size(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1024 * 1024 { return "\((bytes + 512) / 1024) KiB" }
        let units = ["MiB", "GiB", "TiB"]
        var scaled = bytes / 1024
        var unit = 0
        while scaled >= 1024 * 1024, unit < units.count - 1 {
            scaled /= 1024
            unit += 1
        }
        let tenths = (scaled * 10 + 512) / 1024
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}

