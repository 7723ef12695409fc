import BiomaCore
import Foundation
import GRDB

/// Writes entities from their merged fields (`sync_entity`), with this device's local ids.
/// Its writes are not recorded as operations (the merge turns recording off), except the cuts
/// that keep intervals apart, which it records itself.
struct SyncMaterializer {
    let db: Database
    /// The merged fields this merge changed (as kept in `sync_entity`: no need to read them again).
    let known: [StoreSync.EntityKey: StampedFields]
    /// Intervals that name a project this merge made: written again now that it exists.
    var referencing: Set<String> = []

    init(db: Database, known: [StoreSync.EntityKey: StampedFields] = [:]) {
        self.db = db
        self.known = known
    }

    func fields(_ entity: SyncEntity, _ id: String) throws -> [String: SyncValue] {
        if let known = known[StoreSync.EntityKey(entity: entity, id: id)] { return known.values }
        return try StoreSync.mergedFields(db, entity, id)?.values ?? [:]
    }

    /// Project UUID → local id, as read in this merge (projects are written before intervals).
    private final class ProjectIDs { var known: [String: String?] = [:] }
    private let projectIDs = ProjectIDs()

    /// The local id of the project `value` names, for `entity` `id`; an entity naming a
    /// project not here yet waits for it (`sync_waiting`) and is written again when it comes.
    func localProject(_ value: SyncValue?, for entity: SyncEntity, _ id: String) throws -> String? {
        guard case .string(let uuid)? = value else { return nil }
        let local: String?
        if let known = projectIDs.known[uuid] {
            local = known
        } else {
            local = try String.fetchOne(db.cachedStatement(sql: "SELECT id FROM project WHERE uuid = ?"), arguments: [uuid])
            projectIDs.known[uuid] = local
        }
        if local == nil {
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO sync_waiting (project, kind, uuid) VALUES (?, ?, ?)")
                .execute(arguments: [uuid, entity.rawValue, id])
        }
        return local
    }

    func databaseValue(_ value: SyncValue?, _ column: SyncTable.Column, for entity: SyncEntity, _ id: String) throws
        -> (any DatabaseValueConvertible)?
    {
        if column.projectReference { return try localProject(value, for: entity, id) }
        if column.clientReference {
            // Clients are written before projects; one not here (deleted meanwhile) is none.
            guard case .string(let uuid)? = value else { return nil }
            return try String.fetchOne(db.cachedStatement(sql: "SELECT id FROM client WHERE uuid = ?"), arguments: [uuid])
        }
        switch value {
        case .int(let n)?: return n
        case .string(let s)?: return s
        case .bool(let b)?: return b ? 1 : 0
        case .null?, nil: return nil
        }
    }

    /// Writes one project, preset, task or weekday target from its fields: deleted, updated,
    /// or made under a new local id once its required fields are known.
    mutating func write(_ table: SyncTable, _ id: String) throws {
        if table.entity == .project { projectIDs.known = [:] }
        let fields = try fields(table.entity, id)
        let exists =
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM \(table.table) WHERE uuid = ?"), arguments: [id]) ?? false
        if fields[SyncOperation.deletedField] == .bool(true) {
            if exists { try db.cachedStatement(sql: "DELETE FROM \(table.table) WHERE uuid = ?").execute(arguments: [id]) }
            return
        }
        var columns: [String] = []
        var values: [(any DatabaseValueConvertible)?] = []
        for column in table.columns {
            guard let value = fields[column.field] else {
                if column.required && !exists { return }
                continue
            }
            if column.required && value == .null { return }
            columns.append(column.column)
            values.append(try databaseValue(value, column, for: table.entity, id))
        }
        if table.nameKey, case .string(let name)? = fields["name"] {
            let (local, key) = try uniqueName(name, table: table.table, uuid: id)
            if let index = columns.firstIndex(of: "name") { values[index] = local }
            columns.append("name_key")
            values.append(key)
        }
        if exists {
            guard !columns.isEmpty else { return }
            try db.execute(
                sql: "UPDATE \(table.table) SET \(columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE uuid = ?",
                arguments: StatementArguments(values + [id]))
            return
        }
        if let localID = try newLocalID(table) {
            columns.append("id")
            values.append(localID)
        }
        if table.entity == .project || table.entity == .client, !columns.contains("position") {
            columns.append("position")
            values.append(try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.table)") ?? 0)
        }
        try db.execute(
            sql: "INSERT INTO \(table.table) (\(columns.joined(separator: ", ")), uuid) VALUES (\(Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")))",
            arguments: StatementArguments(values + [id]))
        if table.entity == .project {
            let waiting = try Row.fetchAll(db, sql: "SELECT kind, uuid FROM sync_waiting WHERE project = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM sync_waiting WHERE project = ?", arguments: [id])
            for row in waiting {
                let (kind, uuid): (String, String) = (row[0], row[1])
                if kind == SyncEntity.interval.rawValue {
                    referencing.insert(uuid)
                } else if kind == SyncEntity.task.rawValue {
                    try write(SyncTable.named(.task), uuid)
                }
            }
        }
    }

    /// A local id for a new row: `p<n>`, `t<n>`, `f<n>` as the commands make them; nil where
    /// the database gives it (intervals) or the fields hold it (a weekday).
    func newLocalID(_ table: SyncTable) throws -> String? {
        let (prefix, counter): (String, String?)
        switch table.entity {
        case .project: (prefix, counter) = ("p", "next_project_number")
        case .task: (prefix, counter) = ("t", "next_task_number")
        case .preset: (prefix, counter) = ("f", nil)
        case .client: (prefix, counter) = ("c", nil)
        case .interval, .setting: return nil
        }
        let highest = try Int.fetchOne(
            db, sql: "SELECT max(CAST(substr(id, 2) AS INTEGER)) FROM \(table.table)") ?? 0
        var number = highest + 1
        if let counter {
            number = max(number, try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [counter]).flatMap { Int($0) } ?? 1)
            try db.execute(
                sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [counter, String(number + 1)])
        }
        return prefix + String(number)
    }

    /// Names are unique (by their key) on each device. Two devices that made one name each
    /// under its own UUID: the smaller UUID keeps the name, the other shows as `Name (2)` —
    /// the same on every device, since each decides by the UUIDs alone.
    func uniqueName(_ name: String, table: String, uuid: String) throws -> (name: String, key: String) {
        func key(_ text: String) -> String { table == "project" ? Project.nameKey(text) : text.lowercased() }
        func holder(_ text: String) throws -> String? {
            try String.fetchOne(
                db, sql: "SELECT uuid FROM \(table) WHERE name_key = ? AND uuid <> ?", arguments: [key(text), uuid])
        }
        func free(after text: String, for owner: String) throws -> String {
            var number = 2
            while true {
                let candidate = "\(text) (\(number))"
                let other = try String.fetchOne(
                    db, sql: "SELECT uuid FROM \(table) WHERE name_key = ? AND uuid <> ?", arguments: [key(candidate), owner])
                if other == nil { return candidate }
                number += 1
            }
        }
        guard let other = try holder(name) else { return (name, key(name)) }
        if other < uuid {
            let local = try free(after: name, for: uuid)
            return (local, key(local))
        }
        // The other's own name as merged (not a suffixed one it shows here already).
        let kind = SyncTable.all.first { $0.table == table }?.entity ?? .preset
        let merged = try fields(kind, other)["name"]
        var otherName = try String.fetchOne(db, sql: "SELECT name FROM \(table) WHERE uuid = ?", arguments: [other]) ?? name
        if case .string(let text)? = merged { otherName = text }
        let moved = try free(after: otherName, for: other)
        try db.execute(
            sql: "UPDATE \(table) SET name = ?, name_key = ? WHERE uuid = ?", arguments: [moved, key(moved), other])
        return (name, key(name))
    }

    /// `writeSQL` and `deleteSQL` of each group's size, made once (a peer's history writes thousands).
    static let writeSQLs = DirectBinding.groupSQL(writeSQL)
    static let deleteSQLs = DirectBinding.groupSQL(deleteSQL)

    /// Deletes `rows` intervals by uuid.
    static func deleteSQL(_ rows: Int) -> String {
        "DELETE FROM interval WHERE uuid IN (" + repeatElement("?", count: rows).joined(separator: ", ") + ")"
    }

    /// Writes `rows` intervals by uuid: each made, or updated where it is here already.
    static func writeSQL(_ rows: Int) -> String {
        "INSERT INTO interval (start_us, end_us, project_id, note, tags, uuid) VALUES "
            + repeatElement("(?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
            + """
                 ON CONFLICT (uuid) DO UPDATE SET start_us = excluded.start_us, end_us = excluded.end_us,
                    project_id = excluded.project_id, note = excluded.note, tags = excluded.tags
                """
    }

    /// Writes intervals from their merged fields, keeping every interval apart from the
    /// others: of two that overlap, the later-started keeps the time and the earlier one is
    /// cut at its start (a running one is stopped there). A cut is recorded as this device's
    /// operation. `intervals` are each id with its merged fields' values (nil: read from the
    /// store). Returns the overlaps both devices had timed.
    mutating func writeIntervals(_ intervals: [(id: String, values: [String: SyncValue]?)]) throws -> [(
        kept: String, cut: String, from: Micros, to: Micros
    )] {
        guard !intervals.isEmpty else { return [] }
        struct Target {
            var id: String
            var start: Micros
            var end: Micros?
            var project: String?
            var note: String?
            var tags: String?
        }
        var targets: [Target] = []
        var gone: [String] = []
        targets.reserveCapacity(intervals.count)
        // In any order: each is read on its own (a project not here yet waits whatever the order).
        for (id, values) in intervals {
            var (start, end, note, tags, project, deleted): (Micros?, Micros?, String?, String?, SyncValue?, Bool) =
                (nil, nil, nil, nil, nil, false)
            func take(_ name: String, _ value: SyncValue) {
                switch (name, value) {
                case ("start", .int(let n)): start = n
                case ("end", .int(let n)): end = n
                case ("note", .string(let text)): note = text
                case ("tags", .string(let text)): tags = Tags.stored(Tags.parse(text))
                case ("project", _): project = value
                case (SyncOperation.deletedField, .bool(true)): deleted = true
                default: break
                }
            }
            for (name, value) in try values ?? fields(.interval, id) { take(name, value) }
            guard !deleted, let start, end.map({ $0 > start }) ?? true else {
                gone.append(id)
                continue
            }
            targets.append(
                Target(id: id, start: start, end: end, project: try localProject(project, for: .interval, id), note: note, tags: tags))
        }
        // The merge's view: the intervals written here, and every interval already here that
        // overlaps one of them (`overlapping`).
        var overlapping: [SyncMerge.Stretch] = []
        var writtenOverlap = false
        // Intervals here never overlap each other, so those overlapping the span the written
        // ones cover are the ones ending inside it, the first ending after it, and the open
        // one: index ranges, read once per merge. Each is kept if it overlaps one of them.
        if let low = targets.lazy.map(\.start).min() {
            let high = targets.lazy.map { $0.end ?? .max }.max() ?? .max
            let spans = targets.map { ($0.start, $0.end ?? .max) }.sorted { $0.0 < $1.0 }
            // The latest end among spans starting at or before each one's start.
            var reach: [Micros] = []
            reach.reserveCapacity(spans.count)
            for span in spans { reach.append(max(reach.last ?? .min, span.1)) }
            // Two written ones overlap when one starts before those before it have all ended.
            writtenOverlap = zip(spans.dropFirst(), reach).contains { span, before in span.0 < before }
            func overlapsATarget(_ start: Micros, _ end: Micros) -> Bool {
                // The spans starting before `end`; one of them reaching past `start` overlaps.
                var (lo, hi) = (0, spans.count)
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if spans[mid].0 < end { lo = mid + 1 } else { hi = mid }
                }
                return lo > 0 && reach[lo - 1] > start
            }
            // Made at the first row read (a replay in order reads none).
            var written: Set<String>?
            func consider(_ row: Row) {
                let id: String = row[0]
                let start: Micros = row[1]
                let end: Micros? = row[2]
                if written == nil { written = Set(intervals.lazy.map(\.id)) }
                guard !written!.contains(id), overlapsATarget(start, end ?? .max) else { return }
                overlapping.append(SyncMerge.Stretch(id: id, start: start, end: end))
            }
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: "SELECT uuid, start_us, end_us FROM interval WHERE end_us > ? AND end_us <= ?"),
                arguments: [low, high])
            while let row = try rows.next() { consider(row) }
            if high < .max, let row = try Row.fetchOne(db.cachedStatement(sql: StoreSync.nextEndingSQL), arguments: [high]) {
                consider(row)
            }
            if let row = try Row.fetchOne(db.cachedStatement(sql: StoreSync.runningSQL)) {
                consider(row)
            }
        }
        // The rule, where anything overlaps (a peer's history replayed in order: nothing).
        let (cuts, overlaps) =
            writtenOverlap || !overlapping.isEmpty
            ? SyncMerge.cuts(targets.map { SyncMerge.Stretch(id: $0.id, start: $0.start, end: $0.end) } + overlapping) : ([], [])
        // Deletes, then ends that close, then the rest: no moment with two open intervals.
        let goneIDs = gone.sorted()
        for group in DirectBinding.rowGroups(goneIDs.count) {
            let delete = DirectBinding(try db.cachedStatement(sql: Self.deleteSQLs[group.count]!))
            for (index, id) in goneIDs[group].enumerated() { try delete.bind(id, at: Int32(index + 1)) }
            try delete.execute()
        }
        if !cuts.isEmpty {
            let record = try db.cachedStatement(sql: "INSERT INTO sync_change (kind, uuid, fields) VALUES ('interval', ?, ?)")
            let targetAt = Dictionary(uniqueKeysWithValues: targets.indices.map { (targets[$0].id, $0) })
            var cutTargets: Set<Int> = []
            for cut in cuts.sorted(by: { $0.id < $1.id }) {
                let kept = cut.end.map { $0 > cut.start } ?? true
                try record.execute(
                    arguments: [cut.id, (kept ? JSON.object(["end": cut.end.map(JSON.int) ?? .null]) : .object(["deleted": .bool(true)])).text])
                if let index = targetAt[cut.id] {
                    // Written below with the rest of its fields.
                    if kept { targets[index].end = cut.end } else {
                        cutTargets.insert(index)
                        try db.cachedStatement(sql: "DELETE FROM interval WHERE uuid = ?").execute(arguments: [cut.id])
                    }
                } else if kept {
                    try db.cachedStatement(sql: "UPDATE interval SET end_us = ? WHERE uuid = ?").execute(arguments: [cut.end, cut.id])
                } else {
                    try db.cachedStatement(sql: "DELETE FROM interval WHERE uuid = ?").execute(arguments: [cut.id])
                }
            }
            targets = targets.indices.filter { !cutTargets.contains($0) }.map { targets[$0] }
        }
        // In the order of their ids (as they were made), the running one last. A peer's log
        // names them in that order already.
        if !zip(targets, targets.dropFirst()).allSatisfy({ $0.id < $1.id }) { targets.sort { $0.id < $1.id } }
        let ordered = targets.indices.filter { targets[$0].end != nil } + targets.indices.filter { targets[$0].end == nil }
        // `StoreHistory.insertRows` to a statement, values bound straight to it. On a worker the
        // connection's triggers are off meanwhile (`Tracker.writeOrThrow(triggers:)`); the
        // schema keeps them (dropping them changed it each slice, and every statement of both
        // connections was prepared again).
        for group in DirectBinding.rowGroups(ordered.count) {
            let write = DirectBinding(try db.cachedStatement(sql: Self.writeSQLs[group.count]!))
            var index: Int32 = 1
            for at in ordered[group] {
                try write.bind(targets[at].start, at: index)
                try write.bind(targets[at].end, at: index + 1)
                try write.bind(targets[at].project, at: index + 2)
                try write.bind(targets[at].note, at: index + 3)
                try write.bind(targets[at].tags, at: index + 4)
                try write.bind(targets[at].id, at: index + 5)
                index += 6
            }
            try write.execute()
        }
        // Said once: the time both devices timed (a run stopped by a newer start is not news).
        var timedTwice: [(kept: String, cut: String, from: Micros, to: Micros)] = []
        for overlap in overlaps {
            guard let to = overlap.to else { continue }
            let kept = try StoreSync.starter(ofInterval: overlap.kept, db) ?? ""
            let cut = try StoreSync.starter(ofInterval: overlap.cut, db) ?? ""
            timedTwice.append((kept, cut, overlap.from, to))
        }
        return timedTwice
    }
}
