import BiomaCore
import Foundation
import GRDB

/// The tracker the daemon drives: the pure rules of BiomaCore applied to a durable SQLite store.
///
/// It is the sole owner of its database. Every state change is one transaction that writes the
/// new stopwatch state together with the interval changes; a call that fails throws a
/// `TrackerError` and leaves memory and store as they were. Calls are serialised by an internal
/// lock, so the object may be shared between threads.
public final class Tracker: @unchecked Sendable {
    /// How often the daemon calls `heartbeat(at:)` while work runs: at a reboot, at most this
    /// much running time is lost.
    public static let heartbeatInterval: Micros = 120 * microsPerSecond
    /// Backups kept per kind (daily, before-delete-project, before-reset-history).
    public static let backupsKept = 7
    public static let databaseFileName = "biomatimer.sqlite"

    /// The database file.
    public let path: URL
    public let dataDirectory: URL
    public var backupDirectory: URL { dataDirectory.appendingPathComponent("backups", isDirectory: true) }
    public let rules: DayRules
    /// The last daily backup that failed (operations go on; the next change retries it).
    public private(set) var lastBackupError: TrackerError?

    let database: DatabaseQueue
    private let lock = NSRecursiveLock()
    private let bootID: String
    private var model: Model
    private var todayCache: (day: Day, closed: [Interval])?
    private var lastDailyBackup: Day?
    /// The day a daily backup was last tried (succeeded or not): one try per day and start.
    private var lastDailyBackupAttempt: Day?

    struct Model {
        var state = TimerState()
        var projects: [Project] = []
        var nextProjectNumber = 1
    }

    // MARK: Opening

    /// `$XDG_DATA_HOME/biomatimer`, or `~/.local/share/biomatimer`.
    public static func defaultDataDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("biomatimer")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true)
            .appendingPathComponent(".local/share/biomatimer", isDirectory: true)
    }

    /// Opens (or creates) the store in `dataDirectory` and recovers a session left open: it
    /// continues if `bootID` is the one it was recorded under, and is otherwise closed at the
    /// last moment the program was known alive. An unreadable database throws `.storage` naming
    /// its path and is left untouched.
    public init(dataDirectory: URL, rules: DayRules, now: Micros, bootID: String) throws {
        self.dataDirectory = dataDirectory
        self.path = dataDirectory.appendingPathComponent(Tracker.databaseFileName)
        self.rules = rules
        self.bootID = bootID
        let path = self.path
        func failure(_ error: any Error, _ doing: String) -> TrackerError {
            Tracker.storageError(error, doing: doing, path: path)
        }
        do {
            try Tracker.makePrivateDirectory(dataDirectory)
            try Tracker.createPrivateFileIfMissing(path)
        } catch {
            throw failure(error, "create")
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(2)
        configuration.prepareDatabase { db in
            // WAL: a commit appends to the log, readers never block, and a crash mid-write
            // leaves the last committed state. synchronous=FULL: each commit reaches the disk
            // before the call returns, so a power cut loses no acknowledged change.
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL")
        }
        do {
            database = try DatabaseQueue(path: path.path, configuration: configuration)
        } catch {
            throw failure(error, "open")
        }
        var loaded: (Model, heartbeat: Micros?, boot: String?, lastBackup: String?)
        do {
            try Schema.migrator.migrate(database)
            loaded = try database.read(Tracker.load)
        } catch {
            throw failure(error, "read")
        }
        model = loaded.0
        lastDailyBackup = loaded.lastBackup.flatMap(Day.init)
        // Recovery: after a reboot, the open interval ends when the program was last alive.
        if let open = model.state.open, loaded.boot != bootID {
            let alive = max(loaded.heartbeat ?? .min, open.start, model.state.lastChange)
            try change(at: alive) { model, _ in model.state.stop(at: alive) }
        }
        if loaded.boot != bootID {
            do {
                try database.write { db in
                    try db.execute(
                        sql: "UPDATE timer_state SET boot_id = ?, heartbeat_us = ? WHERE id = 1",
                        arguments: [bootID, now])
                }
            } catch {
                throw failure(error, "write")
            }
        }
        takeDailyBackupIfDue(at: now)
    }

    // MARK: Reading

    public func snapshot(at now: Micros) -> TrackerSnapshot {
        locked {
            let today = rules.day(containing: now)
            var closed = todayCache?.day == today ? todayCache?.closed : nil
            if closed == nil {
                let (low, high) = rules.bounds(of: today)
                closed = try? database.read { try Tracker.closedIntervals($0, overlapping: low, high) }
                if let closed { todayCache = (today, closed) }
            }
            return TrackerSnapshot(
                state: model.state, projects: model.projects, closedIntervalsOfToday: closed ?? [],
                rules: rules, now: now)
        }
    }

    public var projects: [Project] { locked { model.projects } }
    public var timerState: TimerState { locked { model.state } }

    public func report(_ period: ReportPeriod, containing day: Day?, at now: Micros) throws -> Report {
        let range = rules.period(period, containing: day ?? rules.day(containing: now))
        return try report(from: range.from, to: range.to, at: now)
    }

    public func report(from: Day, to: Day, at now: Micros) throws -> Report {
        guard from <= to else {
            throw TrackerError.invalidArgument("The report range starts (\(from)) after it ends (\(to)).")
        }
        guard to.ordinal - from.ordinal < 366 * 200 else {
            throw TrackerError.invalidArgument("A report covers at most 200 years.")
        }
        return try locked {
            let boundaries = rules.boundaries(from: from, to: to)
            var intervals = try readOrThrow {
                try Tracker.closedIntervals($0, overlapping: boundaries.first!, boundaries.last!)
            }
            if let open = model.state.open, now > open.start {
                intervals.append(Interval(start: open.start, end: now, projectID: open.projectID))
            }
            return Report(
                from: from, to: to, boundaries: boundaries, intervals: intervals, projects: model.projects)
        }
    }

    /// The first and last day with recorded time (nil when there is none).
    public func recordedDays(at now: Micros) throws -> (first: Day, last: Day)? {
        try locked {
            let bounds = try readOrThrow { db in
                try Row.fetchOne(db, sql: "SELECT MIN(start_us), MAX(end_us) FROM interval")
            }
            var first: Micros? = bounds?[0]
            var last: Micros? = bounds?[1]
            if let open = model.state.open {
                first = min(first ?? open.start, open.start)
                last = max(last ?? now, now)
            }
            guard let first, let last else { return nil }
            return (rules.day(containing: first), rules.day(containing: max(first, last - 1)))
        }
    }

    // MARK: Work timer

    public func start(at now: Micros) throws {
        try change(at: now) { model, _ in model.state.start(at: now, rules: rules) }
    }

    public func stop(at now: Micros) throws {
        try change(at: now) { model, _ in model.state.stop(at: now) }
    }

    /// Returns whether work runs afterwards.
    public func toggle(at now: Micros) throws -> Bool {
        try change(at: now) { model, _ in
            model.state.running ? model.state.stop(at: now) : model.state.start(at: now, rules: rules)
        }
        return locked { model.state.running }
    }

    public func reset(at now: Micros) throws {
        try change(at: now) { model, _ in model.state.reset(at: now) }
    }

    // MARK: Project timers

    public func startProject(_ ref: String, at now: Micros) throws {
        try change(at: now) { model, _ in
            let id = try Tracker.resolve(ref, in: model.projects).id
            return model.state.startProject(id, at: now, rules: rules)
        }
    }

    public func stopProject(at now: Micros) throws {
        try change(at: now) { model, _ in model.state.stopProject(at: now) }
    }

    /// Returns whether the project runs afterwards.
    public func toggleProject(_ ref: String, at now: Micros) throws -> Bool {
        var running = false
        try change(at: now) { model, _ in
            let id = try Tracker.resolve(ref, in: model.projects).id
            if model.state.activeProject == id { return model.state.stopProject(at: now) }
            running = true
            return model.state.startProject(id, at: now, rules: rules)
        }
        return running
    }

    /// Runs the project `step` places after the running one (wrapping); returns its id.
    public func cycleProject(step: Int, at now: Micros) throws -> String {
        var target = ""
        try change(at: now) { model, _ in
            guard !model.projects.isEmpty else {
                throw TrackerError.invalidArgument("There are no projects to cycle through; add one first.")
            }
            guard let id = model.state.cycleTarget(step: step, order: model.projects.map(\.id)) else {
                throw TrackerError.invalidArgument("The cycle step must not be 0 (use 1 or -1).")
            }
            target = id
            return model.state.startProject(id, at: now, rules: rules)
        }
        return target
    }

    public func resetProject(_ ref: String, at now: Micros) throws {
        try change(at: now) { model, _ in
            let id = try Tracker.resolve(ref, in: model.projects).id
            model.state.resetProject(id, at: now)
            return []
        }
    }

    // MARK: Projects

    /// Adds a project at the end of the list; `color` "" means `#007AFF`. Returns its id.
    public func addProject(name: String, color: String, at now: Micros) throws -> String {
        var id = ""
        try change(at: now) { model, db in
            id = try Tracker.insertProject(name: name, color: color, into: &model, db)
            return []
        }
        return id
    }

    /// Renames, recolours and/or moves a project (position is 0-based and clamped to the list).
    public func updateProject(
        _ ref: String, name: String?, color: String?, position: Int?, at now: Micros
    ) throws {
        try change(at: now) { model, db in
            var project = try Tracker.resolve(ref, in: model.projects)
            if let name {
                let valid = try Project.validatedName(name)
                if model.projects.contains(where: {
                    $0.id != project.id && Project.nameKey($0.name) == Project.nameKey(valid)
                }) {
                    throw TrackerError.nameTaken(valid)
                }
                project.name = valid
            }
            if let color { project.color = try Project.validatedColor(color) }
            var list = model.projects.filter { $0.id != project.id }
            let place = min(max(position ?? project.position, 0), list.count)
            list.insert(project, at: place)
            for index in list.indices { list[index].position = index }
            // Names are unique among the others (checked above), so rows can be written in
            // any order without a transient clash on name_key.
            for (old, new) in zip(model.projects, list) where old != new {
                try db.execute(
                    sql: "UPDATE project SET name = ?, name_key = ?, color = ?, position = ? WHERE id = ?",
                    arguments: [new.name, Project.nameKey(new.name), new.color, new.position, new.id])
            }
            model.projects = list
            return []
        }
    }

    /// Deletes a project and its recorded time, after a backup.
    public func deleteProject(_ ref: String, at now: Micros) throws {
        let id = try locked { try Tracker.resolve(ref, in: model.projects).id }
        try backup(reason: "before-delete-project", at: now)
        try change(at: now) { model, db in
            let changes = model.state.deleteProject(id, at: now)
            try Tracker.apply(changes, openBefore: model.state.open, db)
            try db.execute(sql: "DELETE FROM project WHERE id = ?", arguments: [id])
            model.projects.removeAll { $0.id == id }
            for index in model.projects.indices where model.projects[index].position != index {
                model.projects[index].position = index
                try db.execute(
                    sql: "UPDATE project SET position = ? WHERE id = ?", arguments: [index, model.projects[index].id])
            }
            return []
        }
    }

    // MARK: History

    /// Deletes all recorded time, after a backup. A running timer goes on from `now`.
    public func resetHistory(at now: Micros) throws {
        try backup(reason: "before-reset-history", at: now)
        try change(at: now) { model, db in
            let changes = model.state.resetHistory(at: now)
            try db.execute(sql: "DELETE FROM interval")
            try Tracker.apply(changes, openBefore: nil, db)
            return []
        }
    }

    /// The recorded (closed) intervals overlapping the days `from...to` (nil: unbounded), as
    /// CSV (see `IntervalCSV`). The running interval is exported once it has been closed.
    public func exportCSV(from: Day?, to: Day?, at now: Micros) throws -> String {
        if let from, let to, from > to {
            throw TrackerError.invalidArgument("The export range starts (\(from)) after it ends (\(to)).")
        }
        return try locked {
            let low = from.map(rules.start(of:)) ?? .min
            let high = to.map { rules.start(of: $0.adding(days: 1)) } ?? .max
            let intervals = try readOrThrow { try Tracker.closedIntervals($0, overlapping: low, high) }
            let byID = Dictionary(model.projects.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let rows = intervals.map { interval in
                let project = interval.projectID.flatMap { byID[$0] }
                return IntervalCSV.Row(
                    projectName: project?.name, color: project?.color, start: interval.start, end: interval.end)
            }
            return IntervalCSV.encode(rows, timeZone: rules.timeZone)
        }
    }

    /// Imports `exportCSV`'s format, all or nothing; returns the number of intervals added.
    /// Projects are matched by name (ignoring case) or created with the row's colour. A row equal
    /// to recorded time is skipped; a row overlapping other recorded time is an error.
    public func importCSV(_ csv: String, at now: Micros) throws -> Int {
        let rows = try IntervalCSV.decode(csv)
        var count = 0
        try change(at: now) { model, db in
            var items: [(interval: Interval, line: Int)] = []
            for row in rows {
                var projectID: String?
                if let name = row.projectName {
                    if let existing = model.projects.first(where: { Project.nameKey($0.name) == Project.nameKey(name) }) {
                        projectID = existing.id
                    } else {
                        projectID = try Tracker.insertProject(name: name, color: row.color ?? "", into: &model, db)
                    }
                }
                items.append((Interval(start: row.start, end: row.end, projectID: projectID), row.line))
            }
            count = try Tracker.insertHistory(items, state: model.state, rules: rules, db)
            return []
        }
        return count
    }

    /// Adds recorded intervals of existing projects in one transaction, with the checks of
    /// `importCSV` (used by it, by tools and by the benchmark). Returns the number added.
    public func appendHistory(_ intervals: [Interval], at now: Micros) throws -> Int {
        var count = 0
        try change(at: now) { model, db in
            let known = Set(model.projects.map(\.id))
            for interval in intervals where interval.projectID.map({ !known.contains($0) }) ?? false {
                throw TrackerError.noSuchProject(interval.projectID!)
            }
            count = try Tracker.insertHistory(
                intervals.enumerated().map { ($0.element, $0.offset + 1) }, state: model.state, rules: rules, label: "Interval", db)
            return []
        }
        return count
    }

    /// Inserts intervals after checking they overlap neither each other nor recorded time (an
    /// interval equal to a recorded one is skipped). `line` names the culprit in errors.
    static func insertHistory(
        _ items: [(interval: Interval, line: Int)], state: TimerState, rules: DayRules, label: String = "CSV line", _ db: Database
    ) throws -> Int {
        let sorted = items.sorted { ($0.interval.start, $0.line) < ($1.interval.start, $1.line) }
        guard let first = sorted.first else { return 0 }
        func text(_ interval: Interval) -> String {
            "\(IntervalCSV.formatInstant(interval.start, rules: rules)) – \(IntervalCSV.formatInstant(interval.end, rules: rules))"
        }
        func overlap(_ item: (interval: Interval, line: Int), _ what: String) -> TrackerError {
            guard item.interval.end > item.interval.start else {
                return .invalidArgument("\(label) \(item.line): the end is not after the start. Nothing was imported.")
            }
            return .invalidArgument("\(label) \(item.line) (\(text(item.interval))) overlaps \(what). Nothing was imported.")
        }
        let last = sorted.map(\.interval.end).max()!
        let existing = try closedIntervals(db, overlapping: first.interval.start, last)
        var cursor = 0
        var previous: (interval: Interval, line: Int)?
        var count = 0
        let insert = try db.cachedStatement(sql: "INSERT INTO interval (start_us, end_us, project_id) VALUES (?, ?, ?)")
        for item in sorted {
            let interval = item.interval
            guard interval.end > interval.start else { throw overlap(item, "") }
            if let previous, interval.start < previous.interval.end {
                if previous.interval == interval { continue }
                throw overlap(item, "\(label.lowercased()) \(previous.line) (\(text(previous.interval)))")
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
            try insert.execute(arguments: [interval.start, interval.end, interval.projectID])
            count += 1
        }
        return count
    }

    /// Records that the program is alive; the daemon calls it every `heartbeatInterval` while
    /// work runs. Also takes the daily backup when due.
    public func heartbeat(at now: Micros) throws {
        takeDailyBackupIfDue(at: now)
        try locked {
            try writeOrThrow { db in
                try db.execute(
                    sql: "UPDATE timer_state SET heartbeat_us = ?, boot_id = ? WHERE id = 1",
                    arguments: [now, bootID])
            }
        }
    }

    // MARK: Backups

    /// Copies the database (`VACUUM INTO`, a consistent snapshot) into `backups/`, keeping the newest
    /// `backupsKept` of this kind. Returns the file written.
    @discardableResult
    public func backup(reason: String, at now: Micros) throws -> URL {
        try locked {
            let directory = backupDirectory
            let stamp = IntervalCSV.formatInstant(now, rules: DayRules(timeZone: TimeZone(identifier: "UTC")!))
                .filter { $0.isNumber }
            let file = directory.appendingPathComponent("biomatimer-\(stamp)-\(reason).sqlite")
            let partial = directory.appendingPathComponent(".partial-\(reason).sqlite")
            do {
                try Tracker.makePrivateDirectory(directory)
                try? FileManager.default.removeItem(at: partial)
                try Tracker.createPrivateFileIfMissing(partial)
                // VACUUM INTO writes a consistent copy through the open connection. A second
                // DatabaseQueue would do too, but releasing its dispatch queue starts
                // libdispatch's worker pool, whose monitor then wakes the daemon every second.
                try database.writeWithoutTransaction { db in
                    try db.execute(sql: "VACUUM INTO ?", arguments: [partial.path])
                }
                try? FileManager.default.removeItem(at: file)
                try FileManager.default.moveItem(at: partial, to: file)
            } catch {
                try? FileManager.default.removeItem(at: partial)
                throw TrackerError.storage(
                    "Cannot back up the database at \(path.path) into \(directory.path): \(Tracker.cause(of: error)). Nothing was changed.")
            }
            let kind = "-\(reason).sqlite"
            let old = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
                .filter { $0.hasPrefix("biomatimer-") && $0.hasSuffix(kind) }
                .sorted()
                .dropLast(Tracker.backupsKept)
            for name in old { try? FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
            return file
        }
    }

    /// Takes today's backup if it has not been taken (or tried) yet. Called at open, with the
    /// heartbeat and by the daemon at each day boundary — never inside a state change, so a key
    /// press never waits for a copy of the whole history. A failure is kept in
    /// `lastBackupError` and tried again the next day or the next start.
    public func takeDailyBackupIfDue(at now: Micros) {
        locked {
            let today = rules.day(containing: now)
            guard lastDailyBackup != today, lastDailyBackupAttempt != today else { return }
            lastDailyBackupAttempt = today
            do {
                try backup(reason: "daily", at: now)
                try writeOrThrow { db in
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('last_daily_backup', ?)",
                        arguments: [today.description])
                }
                lastDailyBackup = today
                lastBackupError = nil
            } catch {
                lastBackupError = error as? TrackerError ?? .storage("\(error)")
            }
        }
    }

    // MARK: Transactions

    /// Runs `body` on a copy of the model inside one write transaction that also persists the
    /// new stopwatch state and applies the interval changes. Memory changes only on commit.
    private func change(
        at now: Micros, _ body: (inout Model, Database) throws -> [SegmentChange]
    ) throws {
        try locked {
            let before = model
            var after = model
            try writeOrThrow { db in
                let changes = try body(&after, db)
                try Tracker.apply(changes, openBefore: before.state.open, db)
                try Tracker.persist(before: before, after: after, bootID: bootID, now: now, db)
            }
            model = after
            todayCache = nil
        }
    }

    private func locked<R>(_ body: () throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private func readOrThrow<R>(_ body: (Database) throws -> R) throws -> R {
        do { return try database.read(body) } catch { throw Tracker.storageError(error, doing: "read", path: path) }
    }

    private func writeOrThrow<R>(_ body: (Database) throws -> R) throws -> R {
        do { return try database.write(body) } catch {
            throw Tracker.storageError(error, doing: "write", path: path)
        }
    }

    // MARK: Test hooks (internal; reached with @testable import)

    /// Runs SQL outside any transaction (e.g. `PRAGMA max_page_count` to fill the "disk").
    func executeForTesting(_ sql: String) throws {
        try locked { try database.writeWithoutTransaction { try $0.execute(sql: sql) } }
    }

    /// SQLite's plans for the queries behind today's totals and reports.
    func queryPlansForTesting() throws -> [String] {
        try locked {
            try database.read { db in
                let queries: [(String, StatementArguments)] = [(Tracker.overlapSQL, [0, 1]), (Tracker.afterSQL, [0])]
                return try queries.map { query in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + query.0, arguments: query.1).map { $0["detail"] as String }
                        .joined(separator: "; ")
                }
            }
        }
    }

    /// Every row of every table, as text, to compare the store before and after a call.
    func dumpForTesting() throws -> String {
        try locked {
            try database.read { db in
                var text = ""
                for table in ["project", "interval", "timer_state", "meta"] {
                    for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1") {
                        text += "\(table) \(row)\n"
                    }
                }
                return text
            }
        }
    }

    // MARK: SQL

    static func apply(_ changes: [SegmentChange], openBefore: OpenSegment?, _ db: Database) throws {
        var open = openBefore
        for change in changes {
            switch change {
            case .close(let end):
                if let segment = open, end > segment.start {
                    try db.cachedStatement(sql: "UPDATE interval SET end_us = ? WHERE end_us IS NULL")
                        .execute(arguments: [end])
                } else {
                    try db.cachedStatement(sql: "DELETE FROM interval WHERE end_us IS NULL").execute()
                }
                open = nil
            case .open(let segment):
                try db.cachedStatement(
                    sql: "INSERT INTO interval (start_us, end_us, project_id) VALUES (?, NULL, ?)"
                ).execute(arguments: [segment.start, segment.projectID])
                open = segment
            case .discardOpen:
                try db.cachedStatement(sql: "DELETE FROM interval WHERE end_us IS NULL").execute()
                open = nil
            }
        }
    }

    static func persist(before: Model, after: Model, bootID: String, now: Micros, _ db: Database) throws {
        let s = after.state
        try db.cachedStatement(
            sql: """
                UPDATE timer_state SET work_session_us = ?, work_run_start_us = ?,
                    project_run_start_us = ?, resume_project_id = ?, session_last_active_us = ?,
                    last_change_us = ?, heartbeat_us = ?, boot_id = ? WHERE id = 1
                """
        ).execute(arguments: [
            s.workSession, s.workRunStart, s.projectRunStart, s.resumeProject, s.sessionLastActive,
            s.lastChange, max(now, s.lastChange), bootID,
        ])
        let ids = Set(before.state.projectSessions.keys).union(s.projectSessions.keys)
        for id in ids where before.state.projectSessions[id] != s.projectSessions[id] {
            try db.cachedStatement(sql: "UPDATE project SET session_us = ? WHERE id = ?")
                .execute(arguments: [s.projectSessions[id] ?? 0, id])
        }
        if before.nextProjectNumber != after.nextProjectNumber {
            try db.execute(
                sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('next_project_number', ?)",
                arguments: [String(after.nextProjectNumber)])
        }
    }

    static func insertProject(name: String, color: String, into model: inout Model, _ db: Database) throws -> String {
        let valid = try Project.validatedName(name)
        let color = color.isEmpty ? Project.defaultColor : try Project.validatedColor(color)
        if model.projects.contains(where: { Project.nameKey($0.name) == Project.nameKey(valid) }) {
            throw TrackerError.nameTaken(valid)
        }
        let id = "p\(model.nextProjectNumber)"
        model.nextProjectNumber += 1
        let project = Project(id: id, name: valid, color: color, position: model.projects.count)
        try db.execute(
            sql: "INSERT INTO project (id, name, name_key, color, position) VALUES (?, ?, ?, ?, ?)",
            arguments: [id, valid, Project.nameKey(valid), color, project.position])
        model.projects.append(project)
        return id
    }

    static func resolve(_ ref: String, in projects: [Project]) throws -> Project {
        if let project = projects.first(where: { $0.id == ref }) { return project }
        let key = Project.nameKey(ref.trimmingCharacters(in: .whitespacesAndNewlines))
        if let project = projects.first(where: { Project.nameKey($0.name) == key }) { return project }
        throw TrackerError.noSuchProject(ref)
    }

    /// Closed intervals overlapping [low, high), in order. Intervals never overlap, so they are
    /// those ending in (low, high] plus at most one ending later: two bounded index ranges.
    static let overlapSQL =
        "SELECT start_us, end_us, project_id FROM interval WHERE end_us > ? AND end_us <= ? ORDER BY end_us"
    static let afterSQL = "SELECT start_us, end_us, project_id FROM interval WHERE end_us > ? ORDER BY end_us LIMIT 1"

    static func closedIntervals(_ db: Database, overlapping low: Micros, _ high: Micros) throws -> [Interval] {
        var result: [Interval] = []
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: overlapSQL), arguments: [low, high])
        while let row = try rows.next() {
            let start: Int64 = row[0]
            if start < high { result.append(Interval(start: start, end: row[1], projectID: row[2])) }
        }
        if high < .max,
            let row = try Row.fetchOne(
                db.cachedStatement(sql: afterSQL), arguments: [high])
        {
            let start: Int64 = row[0]
            if start < high { result.append(Interval(start: start, end: row[1], projectID: row[2])) }
        }
        return result
    }

    static func load(_ db: Database) throws -> (Model, heartbeat: Micros?, boot: String?, lastBackup: String?) {
        var model = Model()
        var sessions: [String: Micros] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT id, name, color, position, session_us FROM project ORDER BY position, id")
        {
            let id: String = row[0]
            model.projects.append(Project(id: id, name: row[1], color: row[2], position: model.projects.count))
            let session: Int64 = row[4]
            if session != 0 { sessions[id] = session }
        }
        var state = TimerState()
        state.projectSessions = sessions
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT work_session_us, work_run_start_us, project_run_start_us, resume_project_id,
                        session_last_active_us, last_change_us, heartbeat_us, boot_id FROM timer_state WHERE id = 1
                    """)
        else { throw TrackerError.storage("The timer state row is missing.") }
        state.workSession = row[0]
        state.workRunStart = row[1]
        state.projectRunStart = row[2]
        state.resumeProject = row[3]
        state.sessionLastActive = row[4]
        state.lastChange = row[5]
        if let open = try Row.fetchOne(db, sql: "SELECT start_us, project_id FROM interval WHERE end_us IS NULL") {
            state.open = OpenSegment(start: open[0], projectID: open[1])
            if state.workRunStart == nil { state.workRunStart = state.open?.start }
            if state.open?.projectID != nil, state.projectRunStart == nil { state.projectRunStart = state.open?.start }
        } else {
            state.workRunStart = nil
            state.projectRunStart = nil
        }
        model.state = state
        let next = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'next_project_number'")
        let highest = model.projects.compactMap { Int($0.id.dropFirst()) }.max() ?? 0
        model.nextProjectNumber = max(next.flatMap { Int($0) } ?? 1, highest + 1)
        let lastBackup = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'last_daily_backup'")
        return (model, row[6], row[7], lastBackup)
    }

    // MARK: Files and errors

    static func makePrivateDirectory(_ url: URL) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) { return }
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    static func createPrivateFileIfMissing(_ url: URL) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
        } else if errno != EEXIST {
            throw TrackerError.storage(String(cString: strerror(errno)))
        }
    }

    static func cause(of error: any Error) -> String {
        if let error = error as? TrackerError { return error.message }
        guard let error = error as? DatabaseError else { return "\(error)" }
        switch error.resultCode {
        case .SQLITE_FULL: return "the disk is full (free some space and try again)"
        case .SQLITE_NOTADB: return "the file is not a SQLite database"
        case .SQLITE_CORRUPT: return "the database file is corrupt"
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
            return "the file cannot be opened (check that you can read and write it and its directory)"
        case .SQLITE_READONLY: return "the file is read-only (check its permissions)"
        case .SQLITE_IOERR: return "an input/output error (\(error.message ?? "disk error"))"
        case .SQLITE_BUSY, .SQLITE_LOCKED: return "it is locked by another program"
        default: return error.message ?? "SQLite error \(error.resultCode.rawValue)"
        }
    }

    static func storageError(_ error: any Error, doing: String, path: URL) -> TrackerError {
        if let error = error as? TrackerError {
            guard case .storage(let cause) = error else { return error }
            return .storage("Cannot \(doing) the database at \(path.path): \(cause).")
        }
        var text = "Cannot \(doing) the database at \(path.path): \(cause(of: error))."
        if let db = error as? DatabaseError, [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(db.resultCode) {
            text += " It was left untouched: move it away or restore a copy from \(path.deletingLastPathComponent().appendingPathComponent("backups").path)."
        } else if doing == "write" {
            text += " Nothing was changed."
        }
        return .storage(text)
    }
}
