import BiomaCore
import BiomaStore
import CContract
import CSystem
import DBusKit
import Foundation

/// `Import`: time from another tracker (or biomatimer's own CSV), all or nothing.
extension WorkService {
    func importMethods() -> [DBusMethod] {
        [
            DBusMethod.deferred(
                BIOMATIMER_TIMER1_IMPORT, in: [.init("format", "s"), .init("data", "s"), .init("options", "a{sv}")],
                out: [.init("count", "u")]
            ) { [self] call, reply in
                let format = try Self.importFormat(call.arguments[0].string!)
                let data = call.arguments[1].string!
                let tagMap = try Self.importTagMap(call.arguments[2].vardict ?? [:], format: format)
                // Read and recorded on the worker: the loop answers reads meanwhile.
                changeInBulk(reply: reply, size: data.utf8.count, { tracker, now in
                    switch format {
                    case .csv:
                        // Through Import, a bad row is bad data like any other format's.
                        do {
                            return try tracker.imports.importCSV(data, at: now)
                        } catch TrackerError.invalidArgument(let message) {
                            throw TrackerError.invalidImport(message)
                        }
                    case .timewarrior:
                        return try tracker.imports.importIntervals(
                            TimewarriorImport.parse(data, tagMap: tagMap), format: format, at: now
                        ).count
                    case .watson:
                        return try tracker.imports.importIntervals(WatsonImport.parse(data, tagMap: tagMap), format: format, at: now)
                            .count
                    }
                }) { [.uint32(UInt32(clamping: $0))] }
            }
        ]
    }

    /// After an import, an export or a history reset: once the reply has left (the next turn
    /// of the loop), SQLite's cache is emptied and, when the work moved `bytes` of a megabyte
    /// or more, malloc gives its free pages back, so the daemon's private memory falls back to
    /// its idle size instead of keeping the peak until a restart. Giving the pages back walks
    /// every arena (tens of milliseconds after a ten-year export): it is done on a thread of
    /// its own, not on the loop, and not after small work (a few rows exported again and
    /// again would have it walk them all the time).
    func releaseMemoryAfterBulkWork(bytes: Int) {
        bus.loop.later { [tracker] in
            tracker.releaseMemory()
            if bytes >= 1 << 20 { Thread { malloc_trim(0) }.start() }
        }
    }

    static func importFormat(_ text: String) throws -> ImportFormat {
        guard let format = ImportFormat(rawValue: text) else {
            throw DaemonAPI.invalidArgument(
                "Unknown import format \(quoted(text)): use \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return format
    }

    /// The options: `TagMap` a{ss} (tag → project name, `""` for no project), for the
    /// Timewarrior and Watson formats.
    static func importTagMap(_ values: [String: DBusValue], format: ImportFormat) throws -> TagMap {
        let options = try Options(values, allowed: ["TagMap"])
        guard let value = options.values["TagMap"] else { return TagMap() }
        guard case .array(.dictEntry(.string, .string), let entries) = value else {
            throw DaemonAPI.invalidArgument("TagMap must be of type a{ss}, not \(value.signature).")
        }
        guard format != .csv || entries.isEmpty else {
            throw DaemonAPI.invalidArgument("TagMap is for the timewarrior and watson formats: CSV names its projects.")
        }
        var map: [String: String] = [:]
        for case .dictEntry(.string(let tag), .string(let name)) in entries {
            guard map.updateValue(name, forKey: tag) == nil else {
                throw DaemonAPI.invalidArgument("TagMap names the tag \(quoted(tag)) twice.")
            }
        }
        do {
            return try TagMap(map)
        } catch {
            throw DaemonAPI.dbusError(error)
        }
    }
}
