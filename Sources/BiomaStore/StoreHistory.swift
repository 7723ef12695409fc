import BiomaCore
import Foundation
import GRDB

/// Recorded time as a whole: read (today's, a range's, reports), reset, exported, appended to
/// (and the insert every import goes through).
public struct StoreHistory: StorePart {
    let tracker: Tracker
}

extension StoreHistory {
    /// Deletes all recorded time, after a backup and journaled (`undo` restores every row). A
    /// running timer goes on from `now`.
    public func reset(at now: Micros) throws {
        try tracker.backups.backup(reason: "before-reset-history", at: now)
        try change(at: now) { model, db in
            let changes = model.state.resetHistory(at: now)
            // The running interval restarts now under its project, with its note and tags.
            let running = try Row.fetchOne(db, sql: "SELECT note, tags FROM interval WHERE end_us IS NULL")
            try EditJournal.journalReset(at: now, db)
            // Every row at once: the deletions recorded (when sync records them) in one
            // statement, as the per-row delete trigger writes them, then deleted with the
            // triggers off (no row of another table refers to an interval).
            if try SyncTable.isRecording(db) { try db.execute(sql: SyncTable.named(.interval).deletionsSQL) }
            try ConnectionSwitch.withChecksOff(db) { try db.execute(sql: "DELETE FROM interval") }
            try Tracker.apply(changes, openBefore: nil, db)
            if let running, model.state.open != nil {
                let (note, tags): (String?, String?) = (running["note"], running["tags"])
                if note != nil || tags != nil {
                    try db.execute(sql: "UPDATE interval SET note = ?, tags = ? WHERE end_us IS NULL", arguments: [note, tags])
                }
            }
            if let open = try IntervalRows.rows(db, overlapping: now, .max).first(where: \.running) {
                try EditJournal.journalRunningAfterReset(open, db)
            }
            return []
        }
    }

    /// The recorded (closed) intervals overlapping the days `from...to` (nil: unbounded), as
    /// CSV (see `IntervalCSV`). The running interval is exported once it has been closed.
    /// With `rounding`, a `rounded` column holds each interval's rounded duration.
    public func exportCSV(from: Day?, to: Day?, rounding: Rounding? = nil, at now: Micros) throws -> String {
        var out = ""
        try exportCSV(from: from, to: to, rounding: rounding, at: now) { out += $0 }
        return out
    }

    /// `exportCSV` streamed: the header, then the rows `batch` at a time, each piece handed to
    /// `write` (a file descriptor, a pipe) as soon as it is made, read from a cursor, so that a
    /// long history never sits in memory whole. Follow it with `releaseMemory()`.
    public func exportCSV(
        from: Day?, to: Day?, rounding: Rounding? = nil, at now: Micros, batch: Int = 1000, write: (String) throws -> Void
    ) throws {
        if let from, let to, from > to {
            throw TrackerError.invalidArgument("The export range starts (\(from)) after it ends (\(to)).")
        }
        let low = from.map(rules.start(of:)) ?? .min
        let high = to.map { rules.start(of: $0.adding(days: 1)) } ?? .max
        let byID = Dictionary(model.projects.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let timeZone = rules.timeZone
        try write((rounding == nil ? IntervalCSV.header : IntervalCSV.roundedHeader) + "\r\n")
        var rows: [IntervalCSV.Row] = []
        rows.reserveCapacity(max(1, batch))
        // An error of `write` is the caller's own, passed through as it is.
        var writeError: (any Error)?
        do {
            try readOrThrow { db in
                try Tracker.forEachClosedInterval(db, overlapping: low, high) { (interval: Interval, note: String?, tags: String?) in
                    let project = interval.projectID.flatMap { byID[$0] }
                    rows.append(
                        IntervalCSV.Row(
                            projectName: project?.name, color: project?.color, start: interval.start, end: interval.end,
                            note: note))
                    if tags != nil { rows[rows.count - 1].tags = Tags.parse(tags) }
                    if rows.count >= batch {
                        do { try write(IntervalCSV.encodeRows(rows, timeZone: timeZone, rounding: rounding)) } catch {
                            writeError = error
                            throw error
                        }
                        rows.removeAll(keepingCapacity: true)
                    }
                }
            }
        } catch {
            throw writeError ?? error
        }
        if !rows.isEmpty { try write(IntervalCSV.encodeRows(rows, timeZone: timeZone, rounding: rounding)) }
    }

    /// Adds recorded intervals of existing projects in one transaction, with the checks of
    /// `importCSV` (used by it, by tools and by the benchmark). Returns the number added.
    public func append(_ intervals: [Interval], at now: Micros) throws -> Int {
        var count = 0
        try change(at: now) { model, db in
            let known = Set(model.projects.map(\.id))
            for interval in intervals where interval.projectID.map({ !known.contains($0) }) ?? false {
                throw TrackerError.noSuchProject(interval.projectID!)
            }
            count = try StoreHistory.insertHistory(
                intervals.enumerated().map { ($0.element, $0.offset + 1) }, state: model.state, rules: rules, label: "Interval", db
            ).count
            return []
        }
        return count
    }

    /// Inserts intervals after checking they overlap neither each other nor recorded time (an
    /// interval equal to a recorded one is skipped). `line` names the culprit in errors, as
    /// `name(line)` when given, else as "`label` `line`". Returns the intervals added.
    static func insertHistory(
        _ items: [(interval: Interval, line: Int)], state: WorkTimer, rules: DayRules, label: String = "CSV line",
        name: ((Int) -> String)? = nil, note: ((Int) -> String?)? = nil, tags: ((Int) -> String?)? = nil, _ db: Database
    ) throws -> AddedIntervals {
        // In start order: as an import lists them already (checked in one pass), else sorted.
        func before(_ a: (interval: Interval, line: Int), _ b: (interval: Interval, line: Int)) -> Bool {
            (a.interval.start, a.line) < (b.interval.start, b.line)
        }
        let sorted = items.isSorted(by: before) ? items : items.sorted(by: before)
        guard let first = sorted.first else { return AddedIntervals() }
        func text(_ interval: Interval) -> String {
            "\(IntervalCSV.formatInstant(interval.start, rules: rules)) – \(IntervalCSV.formatInstant(interval.end, rules: rules))"
        }
        func named(_ line: Int) -> String { name?(line) ?? "\(label) \(line)" }
        func overlap(_ item: (interval: Interval, line: Int), _ what: String) -> TrackerError {
            guard item.interval.end > item.interval.start else {
                return .invalidArgument("\(named(item.line)): the end is not after the start. Nothing was imported.")
            }
            return .invalidArgument("\(named(item.line)) (\(text(item.interval))) overlaps \(what). Nothing was imported.")
        }
        let last = sorted.map(\.interval.end).max()!
        let existing = try Tracker.closedIntervals(db, overlapping: first.interval.start, last)
        var cursor = 0
        var previous: (interval: Interval, line: Int)?
        // Every check first: nothing is inserted before the whole input is known to fit.
        var kept: [(interval: Interval, line: Int)] = []
        kept.reserveCapacity(sorted.count)
        for item in sorted {
            let interval = item.interval
            guard interval.end > interval.start else { throw overlap(item, "") }
            if let previous, interval.start < previous.interval.end {
                if previous.interval == interval { continue }
                throw overlap(item, "\(name?(previous.line) ?? "\(label.lowercased()) \(previous.line)") (\(text(previous.interval)))")
            }
            previous = item
            if let open = state.open, interval.end > open.start {
                throw overlap(item, "the running interval (started \(IntervalCSV.formatInstant(open.start, rules: rules)))")
            }
            while cursor < existing.count, existing[cursor].end <= interval.start { cursor += 1 }
            if cursor < existing.count, existing[cursor].start < interval.end {
                if existing[cursor] == interval { continue }
                throw overlap(item, "recorded time \(text(existing[cursor]))")
            }
            kept.append(item)
        }
        var bulk = kept.count >= bulkRows ? try BulkIntervals(db) : nil
        var added = AddedIntervals()
        added.ids.reserveCapacity(kept.count)
        added.digests.reserveCapacity(kept.count * 8)
        // Rows go in `insertRows` to a statement: SQLite's work per statement (its journal,
        // the AUTOINCREMENT counter) is paid once per group rather than once per row. The rows
        // of one statement take consecutive ids, its last being the last inserted. Values are
        // bound straight to the statement (`DirectBinding`), and each row's digest is made
        // from them as they are bound.
        let verb = bulk == nil ? "INSERT" : "INSERT OR FAIL"
        func insertSQL(_ rows: Int) -> String {
            "\(verb) INTO interval (start_us, end_us, project_id, note, tags, uuid) VALUES "
                + repeatElement("(?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
        }
        let whole = insertSQL(insertRows)
        func insertAll() throws {
            var start = 0
            while start < kept.count {
                let group = kept[start..<min(kept.count, start + insertRows)]
                let insert = DirectBinding(try db.cachedStatement(sql: group.count == insertRows ? whole : insertSQL(group.count)))
                var index: Int32 = 1
                for item in group {
                    let (note, tags) = (note?(item.line), tags?(item.line))
                    try insert.bind(item.interval.start, at: index)
                    try insert.bind(item.interval.end, at: index + 1)
                    try insert.bind(item.interval.projectID, at: index + 2)
                    try insert.bind(note, at: index + 3)
                    try insert.bind(tags, at: index + 4)
                    try insert.bind(bulk?.nextUUID(), at: index + 5)
                    index += 6
                    var digest = RowDigest()
                    digest.add(item.interval.start)
                    digest.add(item.interval.end)
                    digest.add(item.interval.projectID)
                    digest.add(note)
                    digest.add(tags)
                    withUnsafeBytes(of: digest.value.littleEndian) { added.digests.append(contentsOf: $0) }
                }
                try insert.execute()
                let last = db.lastInsertedRowID
                added.ids += (last - Int64(group.count) + 1)...last
                start += group.count
            }
        }
        if let bulk {
            try ConnectionSwitch.withChecksOff(db, insertAll)
            try bulk.finish(added: added.ids)
        } else {
            try insertAll()
        }
        return added
    }

    /// Rows per INSERT statement of `insertHistory` (six values each, well under SQLite's
    /// limit of 32 766 bound values).
    static let insertRows = 64

    /// From this many rows on, an insert of history is a bulk insert (`BulkIntervals`); below
    /// it, the per-row trigger costs less than setting the checks aside.
    static let bulkRows = 500
}

/// The intervals an insert added: their rowids in order, and the digest of each
/// (`RowDigest`, 8 bytes little-endian apiece, in the same order), as an import's journal entry
/// keeps them for undo.
struct AddedIntervals {
    var ids: [Int64] = []
    var digests: [UInt8] = []
    var count: Int { ids.count }
}

/// Many intervals inserted in one transaction (an import), as one bulk statement per group of
/// rows with the connection's triggers and foreign-key checks off
/// (`ConnectionSwitch.withChecksOff`): SQLite runs a trigger as a sub-program per row, which
/// cost more than the inserts themselves (146 000 rows: 3.5 s against 0.9 s), and with the
/// checks on it keeps a journal of each statement to take it back alone. Each row gets its
/// `uuid` here, in the insert trigger's own layout (`SyncTable.newUUID`); when changes are
/// recorded (sync on), the rows' creations go into `sync_change` in one statement, in id order,
/// exactly as the trigger writes them row by row. Every row names a project the caller found
/// or made. All of it is in the caller's transaction: a failure anywhere rolls it all back.
struct BulkIntervals {
    let millis: Int64
    private var number: Int64
    /// The uuids' random bits, seeded once from the system (a system call per row was a tenth
    /// of the import).
    private var random = SplitMix()
    private let db: Database

    init(_ db: Database) throws {
        self.db = db
        millis = Int64(Date().timeIntervalSince1970 * 1000)
        number = try Int64.fetchOne(db, sql: "SELECT ifnull(max(id), 0) FROM interval") ?? 0
    }

    /// The next row's uuid: the trigger's layout, numbered after every id the table has.
    mutating func nextUUID() -> String {
        number += 1
        return SyncTable.newUUID(millis: millis, number: number, random: UInt32(truncatingIfNeeded: random.next()))
    }

    /// Records the rows' creations as the trigger would have (when recording).
    func finish(added: [Int64]) throws {
        if let low = added.min(), let high = added.max(), try SyncTable.isRecording(db) {
            try db.execute(sql: SyncTable.named(.interval).creationsSQL("WHERE rowid BETWEEN ? AND ?"), arguments: [low, high])
        }
    }
}
