import BiomaCore
import BiomaStore
import Foundation

// Timewarrior holding the same intervals: its database written, its commands timed, and
// importing its export.

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
    let storeTime = try measure { added = try tracker.imports.importIntervals(parsed, format: .timewarrior, at: start).count }
    var again = -1
    let againTime = try measure {
        again = try tracker.imports.importIntervals(try TimewarriorImport.parse(export), format: .timewarrior, at: start).count
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
