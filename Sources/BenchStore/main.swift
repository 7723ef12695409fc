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
        let id = try tracker.catalog.addProject(name: "Crash", color: "#FF0000", at: now)
        try tracker.timers.startProject(id, at: now)
        FileHandle.standardOutput.write("ready\n".data(using: .utf8)!)
        while true { sleep(60) }
    } catch {
        FileHandle.standardError.write("crash-child: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
}

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

// `BenchStore import <timew-export.json>`: reads and records one export into a fresh store,
// with the time of each step (for profiling the import on its own).
if arguments.count >= 3, arguments[1] == "import" {
    let text = try String(contentsOfFile: arguments[2], encoding: .utf8)
    var parsed: [ImportedInterval] = []
    let parseTime = try measure { parsed = try TimewarriorImport.parse(text) }
    let tracker = try Tracker(dataDirectory: base.appendingPathComponent("import"), rules: rules, now: start, bootID: bootID)
    let storeTime = try measure { _ = try tracker.imports.importIntervals(parsed, format: .timewarrior, at: start) }
    print("\(parsed.count) intervals: read \(ms(parseTime)), recorded \(ms(storeTime))")
    exit(0)
}

if arguments.count >= 2, arguments[1] == "sync" { exit(try syncBenchmark() ? 0 : 1) }

// `BenchStore history <data-dir> <timew-db>`: the same history in both, and nothing else.
if arguments.count >= 4, arguments[1] == "history" {
    let directory = URL(fileURLWithPath: arguments[2], isDirectory: true)
    let tracker = try Tracker(dataDirectory: directory, rules: rules, now: start, bootID: bootID)
    let ids = try projectNames.map { try tracker.catalog.addProject(name: $0, color: "", at: start) }
    let count = try tracker.history.append(history(projectIDs: ids), at: start)
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
