import ArgumentParser
import BiomaText
import CContract
import DBusCore
import BiomaContract

// `biomatimer sync …`: one history across a person's machines (`org.biomatimer.Sync1`).

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Keep one history across your machines through a shared folder.",
        discussion: """
            Share one folder between your machines with Syncthing (or anything that copies files), \
            then run `biomatimer sync enable DIR` on each. Every change is written to this machine's \
            own log in DIR/devices/<id>/; the other machines' logs are merged as they arrive. The \
            database never enters the folder. `sync_dir = DIR` in the config does the same at start.
            """,
        subcommands: [SyncEnable.self, SyncStatusCommand.self, SyncDisable.self])
}

struct SyncEnable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable", abstract: "Turn sync on for DIR, made if missing (this machine's history is written there once).")
    @Argument(help: "The shared folder.", completion: .directory) var directory: String
    @Option(help: "The name this machine shows to the others (default: its host name).") var name: String?

    func validate() throws {
        guard !directory.isEmpty else { throw ValidationError("Give the shared folder: biomatimer sync enable DIR.") }
    }

    func run() throws {
        let folder = CommandContext.current.absolute(directory)
        _ = try daemonClient().call(
            BIOMATIMER_SYNC1_ENABLE, [.string(folder), .string(name ?? "")], interface: ContractNames.syncInterface)
        let status = try daemonClient().state(SyncStatus.self)
        say("Sync on: \(status.folder) as \(status.deviceName) (\(status.deviceId)).")
    }
}

struct SyncDisable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disable", abstract: "Turn sync off (the folder is left as it is).")

    func run() throws {
        _ = try daemonClient().call(BIOMATIMER_SYNC1_DISABLE, [], interface: ContractNames.syncInterface)
        say("Sync off.")
    }
}

struct SyncStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "The devices in the folder, how far each has been read, and any problem.")
    @Flag(help: "JSON for scripts.") var json = false

    func run() throws {
        let status = try daemonClient().state(SyncStatus.self)
        if json {
            let devices: [JSON] = status.devices.map { row in
                .fields([
                    ("id", .string(row.id)), ("name", .string(row.name)), ("this", .bool(row.id == status.deviceId)),
                    ("last_op", row.lastOp > 0 ? .int(row.lastOp / 1_000_000) : .null), ("read_up_to", .int(row.readUpTo)),
                    ("problem", row.problem.isEmpty ? .null : .string(row.problem)),
                ])
            }
            say(
                JSON.fields([
                    ("enabled", .bool(status.enabled)), ("folder", status.enabled ? .string(status.folder) : .null),
                    ("device_id", .string(status.deviceId)), ("device_name", .string(status.deviceName)),
                    ("behind", .int(Int64(status.behind))), ("devices", .array(devices)),
                ]).text)
            return
        }
        guard status.enabled else {
            say("Sync is off. Turn it on with: biomatimer sync enable DIR")
            return
        }
        say("Folder: \(TextEscaping.singleLine(status.folder))")
        // The other devices' names, ids and problems come from the shared folder: printed as
        // one line each, with no control character reaching the terminal.
        for row in status.devices {
            let this = row.id == status.deviceId
            var line = "\(this ? "*" : " ") \(row.name.isEmpty ? "?" : TextEscaping.singleLine(row.name))  \(TextEscaping.singleLine(row.id))  "
            line += this ? "wrote \(row.readUpTo)" : "read \(row.readUpTo)"
            if row.lastOp > 0 { line += ", last change \(WhenText.describe(row.lastOp, now: commandNow(), zone: CommandContext.current.zone))" }
            say(line)
            if !row.problem.isEmpty { say("    problem: \(TextEscaping.singleLine(row.problem))") }
        }
        if status.behind > 0 { say("Not merged yet: \(status.behind) operations.") }
    }
}
