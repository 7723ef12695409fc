// BenchStore — the store benchmark (`make bench`), and a crash helper for the store tests.
//
//   BenchStore [output-dir]          ten years of history vs. an empty store, and Timewarrior
//   BenchStore history <data-dir> <timew-db>
//                                    writes the same ten years into a biomatimer store and a
//                                    Timewarrior database (for the client comparisons in .ci/bench)
//   BenchStore import <file>         reads and records a `timew export` file, timing each step
//   BenchStore sync                  ten years written by one device as operations to a sync
//                                    folder, replayed by another, vs recording them directly
//   BenchStore open-child <dir>     opens the store, prints the error if any (tests)
//   BenchStore crash-child <dir> <boot-id> <now-µs>
//                                    opens a tracker, runs a project, prints "ready", waits to
//                                    be killed (SIGKILL) — used by BiomaStoreTests
import BiomaCore
import BiomaStore
import BiomaSync
import Foundation


let arguments = CommandLine.arguments

// `BenchStore open-child <dir>`: opens the store and reports the error, if any, on stderr
// (exit 1). BiomaStoreTests runs it as an unprivileged user to see an unreadable file as a
// user would; root reads files whatever their mode.
if arguments.count >= 3, arguments[1] == "open-child" {
    do {
        _ = try Tracker(
            dataDirectory: URL(fileURLWithPath: arguments[2]), rules: DayRules(timeZone: TimeZone(identifier: "UTC")!),
            now: 0, bootID: "open-child")
        exit(0)
    } catch {
        FileHandle.standardError.write("\(error)\n".data(using: .utf8)!)
        exit(1)
    }
}

if arguments.count >= 5, arguments[1] == "crash-child" {
    do {
        let tracker = try Tracker(
            dataDirectory: URL(fileURLWithPath: arguments[2]), rules: DayRules(timeZone: TimeZone(identifier: "UTC")!),
            now: Micros(arguments[4])!, bootID: arguments[3])
        let now = Micros(arguments[4])!
        let id = try tracker.addProject(name: "Crash", color: "#FF0000", at: now)
        try tracker.startProject(id, at: now)
        FileHandle.standardOutput.write("ready\n".data(using: .utf8)!)
        while true { sleep(60) }
    } catch {
        FileHandle.standardError.write("crash-child: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
}

// MARK: - Benchmark

func nowMicros() -> Micros { Micros(Date().timeIntervalSince1970 * 1_000_000) }

func measure(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let elapsed = try clock.measure(body)
    return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}
func ms(_ value: Double) -> String { String(format: "%9.3f ms", value) }

let keep = arguments.count >= 2 && !["history", "import", "sync"].contains(arguments[1])
let base: URL
if keep {
    base = URL(fileURLWithPath: arguments[1], isDirectory: true)
} else {
    base = FileManager.default.temporaryDirectory.appendingPathComponent("biomatimer-bench-\(getpid())")
}
try? FileManager.default.removeItem(at: base)
try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
defer { if !keep { try? FileManager.default.removeItem(at: base) } }

let rules = DayRules(timeZone: TimeZone(identifier: "Europe/Berlin")!)
let bootID = "bench-boot"
let start = nowMicros()
let today = rules.day(containing: start)
let years = 10
let firstDay = today.adding(days: -365 * years)
let projectNames = (1...12).map { "Project \($0)" }

struct Results {
    var changeMedian = 0.0, changeP99 = 0.0, startupFirst = 0.0, startup = 0.0, year = 0.0, all = 0.0
    var backup = 0.0
    var intervals = 0
    var edit = 0.0, undo = 0.0, week = 0.0, reset = 0.0, resetUndo = 0.0
}

/// Generates ~40 intervals a day over `firstDay..<today`, 12 projects and some time with none.
func history(projectIDs: [String]) -> [Interval] {
    var result: [Interval] = []
    result.reserveCapacity(365 * years * 40)
    var day = firstDay
    while day < today {
        let morning = rules.start(of: day) + 7 * 3600 * microsPerSecond
        for slot in 0..<40 {
            let begin = morning + Micros(slot) * 24 * 60 * microsPerSecond
            let length = Micros(10 + (slot * 7 + day.ordinal) % 13) * 60 * microsPerSecond
            let which = (slot + day.ordinal) % 13
            result.append(Interval(start: begin, end: begin + length, projectID: which == 12 ? nil : projectIDs[which]))
        }
        day = day.adding(days: 1)
    }
    return result
}

func run(_ label: String, full: Bool) throws -> Results {
    var results = Results()
    let directory = base.appendingPathComponent(label)
    var now = start
    var ids: [String] = []
    do {
        let tracker = try Tracker(dataDirectory: directory, rules: rules, now: now, bootID: bootID)
        for name in projectNames { ids.append(try tracker.addProject(name: name, color: "", at: now)) }
        if full {
            let intervals = history(projectIDs: ids)
            let load = try measure { results.intervals = try tracker.appendHistory(intervals, at: now) }
            print("  \(label): loaded \(results.intervals) intervals in one transaction in \(String(format: "%.0f", load)) ms")
        }
    }
    // Startup: open the store and compute today's totals. The first open of a day also takes
    // the daily backup.
    var opens: [Double] = []
    var tracker: Tracker!
    for index in 0..<6 {
        tracker = nil
        let time = try measure {
            tracker = try Tracker(dataDirectory: directory, rules: rules, now: now, bootID: bootID)
            _ = try tracker.snapshot(at: now)
        }
        if index == 0 { results.startupFirst = time } else { opens.append(time) }
    }
    results.startup = median(opens)
    // State changes: 500 alternating toggles and project switches, each one commit.
    var changes: [Double] = []
    for index in 0..<500 {
        now += 1_000_000
        let time = try measure {
            if index % 2 == 0 {
                try tracker.startProject(ids[index % ids.count], at: now)
            } else {
                _ = try tracker.toggle(at: now)
            }
        }
        changes.append(time)
    }
    results.changeMedian = median(changes)
    results.changeP99 = percentile(changes, 0.99)
    // Editing the past, five years back: an add over recorded time (--replace) and its undo,
    // 100 of each, each one commit; and listing a week's intervals. The edited week is
    // recorded in both stores (in the empty one, only that week), so both edits do the same.
    let week = rules.period(.week, containing: today.adding(days: -5 * 365))
    let (weekStart, weekEnd) = (rules.start(of: week.from), rules.start(of: week.to.adding(days: 1)))
    _ = try tracker.appendHistory(
        history(projectIDs: ids).filter { $0.start >= weekStart && $0.end <= weekEnd }, at: now)
    let past = rules.start(of: today.adding(days: -5 * 365)) + 9 * 3600 * microsPerSecond
    var edits: [Double] = []
    var undos: [Double] = []
    for _ in 0..<100 {
        edits.append(try measure { _ = try tracker.addInterval(start: past, end: past + 1_800_000_000, project: nil, replace: true, at: now) })
        undos.append(try measure { _ = try tracker.undo(at: now) })
    }
    results.edit = median(edits)
    results.undo = median(undos)
    results.week = median(try (0..<20).map { _ in try measure { _ = try tracker.intervals(from: week.from, to: week.to) } })
    results.backup = try measure { try tracker.backup(reason: "bench", at: now) }
    let lastYear = today.adding(days: -365)
    results.year = median(try (0..<5).map { _ in try measure { _ = try tracker.report(.year, containing: lastYear, at: now) } })
    results.all = median(try (0..<5).map { _ in try measure { _ = try tracker.report(from: firstDay, to: today, at: now) } })
    // Last: reset-history (a backup, then every row journaled in one INSERT … SELECT) and its
    // undo (every row back under its id).
    results.reset = try measure { try tracker.resetHistory(at: now) }
    results.resetUndo = try measure { _ = try tracker.undo(at: now) }
    return results
}

// MARK: Timewarrior, same intervals

func writeTimewarrior(_ intervals: [Interval], names: [String: String], to directory: URL) throws {
    let data = directory.appendingPathComponent("data")
    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    try "".write(to: directory.appendingPathComponent("timewarrior.cfg"), atomically: true, encoding: .utf8)
    let utc = DayRules(timeZone: TimeZone(identifier: "UTC")!)
    func stamp(_ t: Micros) -> String {
        IntervalCSV.formatInstant(t - t % microsPerSecond, rules: utc).replacingOccurrences(of: "-", with: "")
            .replacingOccurrences(of: ":", with: "").replacingOccurrences(of: "+0000", with: "Z")
    }
    var files: [String: String] = [:]
    for interval in intervals {
        let key = String(IntervalCSV.formatInstant(interval.start, rules: utc).prefix(7))
        var line = "inc \(stamp(interval.start)) - \(stamp(interval.end))"
        if let id = interval.projectID, let name = names[id] { line += " # \"\(name)\"" }
        files[key, default: ""] += line + "\n"
    }
    for (month, text) in files {
        try text.write(to: data.appendingPathComponent("\(month).data"), atomically: true, encoding: .utf8)
    }
    let tags = "{" + names.values.sorted().map { "\"\($0)\":{\"count\":1}" }.joined(separator: ",") + "}"
    try tags.write(to: data.appendingPathComponent("tags.data"), atomically: true, encoding: .utf8)
}

func timew(_ args: [String], database: URL) -> Double? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/timew")
    process.arguments = args
    var environment = ProcessInfo.processInfo.environment
    environment["TIMEWARRIORDB"] = database.path
    process.environment = environment
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    do {
        let time = try measure {
            try process.run()
            process.waitUntilExit()
        }
        return process.terminationStatus == 0 ? time : nil
    } catch { return nil }
}

/// `timew export` of the whole history, captured, and how long Timewarrior took to write it.
func timewExport(database: URL) throws -> (text: String, ms: Double) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/timew")
    process.arguments = ["export"]
    var environment = ProcessInfo.processInfo.environment
    environment["TIMEWARRIORDB"] = database.path
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    var data = Data()
    let time = try measure {
        try process.run()
        data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
    }
    guard process.terminationStatus == 0 else { throw TrackerError.invalidArgument("timew export failed") }
    return (String(decoding: data, as: UTF8.self), time)
}

/// Importing Timewarrior's export of the whole history into an empty store (reading the
/// JSON, then one transaction), and again into the store that now holds it (every interval
/// checked, none added), against the time `timew export` takes to write it.
func importBenchmark(_ database: URL) throws -> [String] {
    let exports = try (0..<3).map { _ in try timewExport(database: database) }
    let export = exports[0].text
    let exportTime = exports.map(\.ms).min()!
    var parsed: [ImportedInterval] = []
    let parseTime = median(try (0..<3).map { _ in try measure { parsed = try TimewarriorImport.parse(export) } })
    let tracker = try Tracker(dataDirectory: base.appendingPathComponent("import"), rules: rules, now: start, bootID: bootID)
    var added = 0
    let storeTime = try measure { added = try tracker.importIntervals(parsed, format: .timewarrior, at: start).count }
    var again = -1
    let againTime = try measure {
        again = try tracker.importIntervals(try TimewarriorImport.parse(export), format: .timewarrior, at: start).count
    }
    let total = parseTime + storeTime
    func row(_ label: String, _ time: Double) -> String {
        let padded = label + String(repeating: " ", count: max(0, 56 - label.count))
        return "| \(padded) | \(ms(time)) | \(String(format: "%13.2f×", time / exportTime)) |"
    }
    let size = String(format: "%.1f", Double(export.utf8.count) / 1_048_576)
    return [
        "",
        "importing `timew export` of the same history: \(parsed.count) intervals read, \(added) recorded, \(size) MiB of JSON",
        "",
        "| \("step".padding(toLength: 56, withPad: " ", startingAt: 0)) |         time | ÷ timew export |",
        "|\(String(repeating: "-", count: 58))|--------------|----------------|",
        row("timew export (Timewarrior writing them)", exportTime),
        row("biomatimer: read the JSON (TimewarriorImport.parse)", parseTime),
        row("biomatimer: record them in one transaction (empty store)", storeTime),
        row("biomatimer: import, in all", total),
        row("biomatimer: import again (read and check, \(again) added)", againTime),
    ]
}

// `BenchStore import <timew-export.json>`: reads and records one export into a fresh store,
// with the time of each step (for profiling the import on its own).
if arguments.count >= 3, arguments[1] == "import" {
    let text = try String(contentsOfFile: arguments[2], encoding: .utf8)
    var parsed: [ImportedInterval] = []
    let parseTime = try measure { parsed = try TimewarriorImport.parse(text) }
    let tracker = try Tracker(dataDirectory: base.appendingPathComponent("import"), rules: rules, now: start, bootID: bootID)
    let storeTime = try measure { _ = try tracker.importIntervals(parsed, format: .timewarrior, at: start) }
    print("\(parsed.count) intervals: read \(ms(parseTime)), recorded \(ms(storeTime))")
    exit(0)
}

// `BenchStore sync`: a peer's ten years replayed. Device A records the history with sync on
// (every interval an operation in its log, in a real folder); device B reads that log and
// merges it, batch by batch as the daemon does. The baseline is the same history recorded
// directly into a fresh store with sync off.
if arguments.count >= 2, arguments[1] == "sync" {
    let folder = SyncFolder(root: base.appendingPathComponent("folder").path)
    try FileManager.default.createDirectory(atPath: folder.root, withIntermediateDirectories: true)
    let a = try Tracker(dataDirectory: base.appendingPathComponent("a"), rules: rules, now: start, bootID: bootID)
    let deviceA = try a.syncDevice().id
    try folder.prepare(device: deviceA, name: "A")
    var pending: [SyncOperation] = []
    a.onSyncOperations = { pending += $0 }
    try a.enableSync(folder: folder.root, name: "A")
    let ids = try projectNames.map { try a.addProject(name: $0, color: "", at: start) }
    let intervals = history(projectIDs: ids)
    var written = 0
    let writeTime = try measure {
        _ = try a.appendHistory(intervals, at: start)
        // What the daemon makes a slice per turn of its loop, made here in a row.
        while a.hasSyncBacklog { try a.drainSyncBacklog() }
        try folder.append(pending, device: deviceA)
        written = pending.count
    }
    pending = []
    let baseline = try Tracker(dataDirectory: base.appendingPathComponent("direct"), rules: rules, now: start, bootID: bootID)
    let baselineIDs = try projectNames.map { try baseline.addProject(name: $0, color: "", at: start) }
    let direct = try measure { _ = try baseline.appendHistory(history(projectIDs: baselineIDs), at: start) }
    let b = try Tracker(dataDirectory: base.appendingPathComponent("b"), rules: rules, now: start, bootID: bootID)
    let deviceB = try b.syncDevice().id
    try folder.prepare(device: deviceB, name: "B")
    try b.enableSync(folder: folder.root, name: "B")
    var applied = 0
    var batches = 0
    let replay = try measure {
        var peer = SyncPeerState(device: deviceA)
        while true {
            let batch = folder.read(deviceA, from: SyncCursor(segment: peer.segment, offset: peer.offset, sequence: peer.sequence))
            if let problem = batch.problem { fatalError("the log is damaged: \(problem)") }
            guard !batch.operations.isEmpty else { break }
            (peer.segment, peer.offset, peer.sequence) = (batch.cursor.segment, batch.cursor.offset, batch.cursor.sequence)
            applied += try b.mergeSync(batch.operations, peer: peer, at: start).operations
            batches += 1
            if !batch.more { break }
        }
    }
    let same = try a.exportCSV(from: nil, to: nil, at: start) == b.exportCSV(from: nil, to: nil, at: start)
    print("| sync: a peer's ten years replayed            | time          | vs baseline | aim    |")
    print("|----------------------------------------------|---------------|-------------|--------|")
    print("| baseline: the same history recorded directly | \(ms(direct)) |       1.00× |        |")
    print("| written as operations, appended and fsynced  | \(ms(writeTime)) | \(String(format: "%10.2f", writeTime / direct))× |        |")
    print("| replayed from the folder (\(batches) batches)       | \(ms(replay)) | \(String(format: "%10.2f", replay / direct))× | < 10 s |")
    print("  \(intervals.count) intervals, \(written) operations written, \(applied) applied; histories identical: \(same)")
    exit(same && applied == written ? 0 : 1)
}

// `BenchStore history <data-dir> <timew-db>`: the same history in both, and nothing else.
if arguments.count >= 4, arguments[1] == "history" {
    let directory = URL(fileURLWithPath: arguments[2], isDirectory: true)
    let tracker = try Tracker(dataDirectory: directory, rules: rules, now: start, bootID: bootID)
    let ids = try projectNames.map { try tracker.addProject(name: $0, color: "", at: start) }
    let count = try tracker.appendHistory(history(projectIDs: ids), at: start)
    let names = Dictionary(uniqueKeysWithValues: zip(ids, projectNames))
    try writeTimewarrior(history(projectIDs: ids), names: names, to: URL(fileURLWithPath: arguments[3], isDirectory: true))
    print("\(count) intervals, \(firstDay) … \(today), zone \(rules.timeZone.identifier)")
    exit(0)
}

print("biomatimer store benchmark — \(years) years (\(firstDay) … \(today)) × ~40 intervals/day, 12 projects, zone \(rules.timeZone.identifier)")
print("SQLite in WAL mode with synchronous=FULL: every state change is fsynced before it returns")
print("data in \(base.path)\(keep ? "" : " (removed afterwards)")")
let empty = try run("empty", full: false)
let full = try run("full", full: true)

var timewYear: Double?
var timewAll: Double?
var importLines: [String] = []
if FileManager.default.isExecutableFile(atPath: "/usr/bin/timew") {
    let names = Dictionary(uniqueKeysWithValues: projectNames.enumerated().map { ("p\($0.offset + 1)", $0.element) })
    let database = base.appendingPathComponent("timewarrior")
    try writeTimewarrior(history(projectIDs: (1...12).map { "p\($0)" }), names: names, to: database)
    let lastYear = rules.period(.year, containing: today.adding(days: -365))
    timewYear = [0, 1, 2].compactMap { _ in
        timew(["summary", "\(lastYear.from)", "-", "\(lastYear.to.adding(days: 1))"], database: database)
    }.min()
    timewAll = [0, 1].compactMap { _ in
        timew(["summary", "\(firstDay)", "-", "\(today.adding(days: 1))"], database: database)
    }.min()
    importLines = try importBenchmark(database)
}

print("")
print("| measure                                  |        empty |  10y history | aim      |")
print("|------------------------------------------|--------------|--------------|----------|")
print("| state change commit, median (500)        | \(ms(empty.changeMedian)) | \(ms(full.changeMedian)) | < 1 ms   |")
print("| state change commit, p99                 | \(ms(empty.changeP99)) | \(ms(full.changeP99)) | flat     |")
print("| startup to today's totals (first open)   | \(ms(empty.startupFirst)) | \(ms(full.startupFirst)) |          |")
print("| startup to today's totals (median of 5)  | \(ms(empty.startup)) | \(ms(full.startup)) |          |")
print("| backup (SQLite online backup, daily)     | \(ms(empty.backup)) | \(ms(full.backup)) |          |")
print("| edit: add --replace 5 years back, median | \(ms(empty.edit)) | \(ms(full.edit)) | flat     |")
print("| undo of that edit, median                | \(ms(empty.undo)) | \(ms(full.undo)) | flat     |")
print("| a week's intervals with ids (log --week) | \(ms(empty.week)) | \(ms(full.week)) | flat     |")
print("| year report                              | \(ms(empty.year)) | \(ms(full.year)) | < 10 ms  |")
print("| all-time report (\(years) years)               | \(ms(empty.all)) | \(ms(full.all)) | < 100 ms |")
let boundaryTime = median((0..<5).map { _ in measure { _ = rules.boundaries(from: firstDay, to: today) } })
print("| reset-history (backup, rows journaled)   | \(ms(empty.reset)) | \(ms(full.reset)) |          |")
print("| undo of the reset (every row back)       | \(ms(empty.resetUndo)) | \(ms(full.resetUndo)) |          |")
print("  edits and the week's list: the empty store holds only the edited week, so both change the same rows")
print("  of the all-time report: computing \(today.ordinal - firstDay.ordinal + 2) day boundaries took \(ms(boundaryTime))")
print("")
if let timewYear, let timewAll {
    print("| same history, Timewarrior (timew summary) |   timew      | biomatimer/timew |")
    print("|-------------------------------------------|--------------|------------------|")
    print("| year                                      | \(ms(timewYear)) | \(String(format: "%16.4f", full.year / timewYear)) |")
    print("| all time                                  | \(ms(timewAll)) | \(String(format: "%16.4f", full.all / timewAll)) |")
} else {
    print("timew not available or failed: no Timewarrior comparison")
}
for line in importLines { print(line) }
