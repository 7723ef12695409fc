import BiomaDaemon
import Foundation
import Testing

import TestSupport

/// Memory given back after bulk work: the daemon's private dirty memory a second after
/// importing ten years of history (Timewarrior's export of BenchStore's ten years: ~40
/// intervals a day, 12 projects) and exporting it again is back near its idle size, instead of
/// keeping the peak until a restart.
@Suite(.ownThreadLong, .timeLimit(.minutes(10)))
struct MemoryTests {
    /// `Private_Dirty` of `/proc/PID/smaps_rollup`, in kB.
    static func privateDirty(_ pid: pid_t) throws -> Int {
        let text = try String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Private_Dirty:") }),
            let kB = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { throw TestSupportError("no Private_Dirty in smaps_rollup:\n\(text)") }
        return kB
    }

    /// The mappings holding most of `pid`'s private dirty memory, for a failure's message:
    /// "836 kB [heap] 7f86…", largest first.
    static func dirtiest(_ pid: pid_t, count: Int = 6) -> String {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps", encoding: .utf8) else { return "(no smaps)" }
        var mapping = ""
        var rows: [(kB: Int, mapping: String)] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), !first.hasSuffix(":") {
                mapping = "\(fields.count > 5 ? fields[5...].joined(separator: " ") : "[anonymous]") \(first)"
            } else if fields.first == "Private_Dirty:", fields.count > 1, let kB = Int(fields[1]) {
                rows.append((kB, mapping))
            }
        }
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? 0
        return rows.sorted { $0.kB > $1.kB }.prefix(count).map { "\($0.kB) kB \($0.mapping)" }.joined(separator: "; ")
            + "; \(threads) threads"
    }

    /// BenchStore's ten years, as `timew export` writes them (UTC instants, the tag first).
    static func tenYears(endingBefore now: Date) -> (json: String, count: Int) {
        let day: TimeInterval = 86_400
        let lastMidnight = (now.timeIntervalSince1970 / day).rounded(.down) * day
        let first = lastMidnight - 365 * 10 * day
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        var parts: [String] = []
        parts.reserveCapacity(365 * 10 * 40)
        var ordinal = 0
        var midnight = first
        while midnight < lastMidnight {
            let morning = midnight + 7 * 3600
            for slot in 0..<40 {
                let begin = morning + TimeInterval(slot * 24 * 60)
                let length = TimeInterval((10 + (slot * 7 + ordinal) % 13) * 60)
                let which = (slot + ordinal) % 13
                let tags = which == 12 ? "" : #","tags":["Project \#(which + 1)"]"#
                parts.append(
                    #"{"id":\#(parts.count + 1),"start":"\#(formatter.string(from: Date(timeIntervalSince1970: begin)))","end":"\#(formatter.string(from: Date(timeIntervalSince1970: begin + length)))"\#(tags)}"#
                )
            }
            midnight += day
            ordinal += 1
        }
        return ("[\n" + parts.joined(separator: ",\n") + "\n]\n", parts.count)
    }

    @Test func importingAndExportingTenYearsGivesTheMemoryBack() async throws {
        // A binary linked moments ago (the build before the suite) has its pages dirty in the
        // page cache until they are written back, up to 30 s later, and smaps counts a dirty
        // page that one process maps as that process's private dirty memory: a daemon started
        // then showed 8.9 MB of its own code so. Its file is written back first.
        let daemonBinary = productsDirectory.appendingPathComponent("biomatimerd").path
        let descriptor = open(daemonBinary, O_RDONLY)
        try #require(descriptor >= 0, "cannot open \(daemonBinary)")
        #expect(fsync(descriptor) == 0)
        close(descriptor)
        let f = try DaemonFixture()
        #expect(try f.cli(["status"]).status == 0)
        let pid = try #require(try f.daemonPID())
        let idle = try Self.privateDirty(pid)
        if idle > 8192 { print("idle daemon over 8 MiB: \(Self.dirtiest(pid))") }

        // The 4 MiB aim, and what the worker connection bulk work ran on keeps while it waits
        // for the next (SQLite's parsed schema and its lookaside slots, about 150 kB here: a
        // connection let go would wake the daemon every second, see WorkerConnections).
        let limit = 4096 + 256
        let history = Self.tenYears(endingBefore: Date())
        let file = f.dataDirectory.deletingLastPathComponent().appendingPathComponent("ten-years-\(getpid()).json")
        try history.json.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        // Ten years take a while in a debug build on a busy machine: the client waits for as
        // long as the work takes (this is no test of speed; `make bench` times the import).
        var env = f.environment
        env["BIOMATIMER_TIMEOUT"] = "280"
        let imported = try runProcess(
            DaemonFixture.binary, ["import", "--format", "timewarrior", file.path], environment: env, timeout: 290)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("\(history.count)"), "\(imported.stdout)")
        // The memory is given back on the loop's next turn after the reply: looked at until it
        // is (a second on an idle machine; a loaded one may take longer), at most 20 s.
        var afterImport = try Self.privateDirty(pid)
        _ = waitUntil(timeout: 20) {
            afterImport = (try? Self.privateDirty(pid)) ?? afterImport
            return afterImport <= limit
        }
        #expect(afterImport <= limit, "\(afterImport) kB private dirty after the import (idle: \(idle) kB): \(Self.dirtiest(pid))")

        let exported = try runProcess(DaemonFixture.binary, ["export"], environment: env, timeout: 290)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.split(separator: "\r\n").count == history.count + 1, "the header and every interval")
        var afterExport = try Self.privateDirty(pid)
        _ = waitUntil(timeout: 20) {
            afterExport = (try? Self.privateDirty(pid)) ?? afterExport
            return afterExport <= limit
        }
        #expect(afterExport <= limit, "\(afterExport) kB private dirty after the export (idle: \(idle) kB): \(Self.dirtiest(pid))")

        // A year's timesheet as HTML and as PDF (drawn by rsvg-convert in a child process).
        // A year's text report, then a year's timesheet as HTML and as PDF (drawn by
        // rsvg-convert in a child process), twice: the daemon keeps nothing of any of them.
        // The first timesheet leaves what a first use of its code makes once (the runtime's
        // type metadata, static tables): up to 0.5 MiB over the 4 MiB aim, measured, not hidden.
        func settled(_ limit: Int) throws -> Int {
            var now = try Self.privateDirty(pid)
            _ = waitUntil(timeout: 10) {
                now = (try? Self.privateDirty(pid)) ?? now
                return now <= limit
            }
            return now
        }
        let plain = try runProcess(DaemonFixture.binary, ["report", "--year", "--date", "2025-06-01"], environment: env, timeout: 290)
        #expect(plain.status == 0, "\(plain.stderr)")
        let afterPlain = try settled(limit)
        #expect(afterPlain <= 4096 + 512, "\(afterPlain) kB private dirty after report --year (idle: \(idle) kB)")
        var rounds: [Int] = []
        for round in 1...2 {
            for (option, name) in [("--html", "year.html"), ("--pdf", "year.pdf")] {
                let target = f.dataDirectory.deletingLastPathComponent().appendingPathComponent("\(getpid())-\(round)-\(name)")
                defer { try? FileManager.default.removeItem(at: target) }
                let made = try runProcess(
                    DaemonFixture.binary, ["report", "--year", "--date", "2025-06-01", "--round", "15m", option, target.path],
                    environment: env, timeout: 290)
                #expect(made.status == 0, "\(made.stderr)")
                #expect(((try? FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int) ?? 0) > 10_000)
            }
            rounds.append(try settled(limit))
        }
        print("private dirty: \(afterPlain) kB after report --year, \(rounds) kB after each round of timesheets")
        #expect(
            rounds.allSatisfy { $0 <= 4096 + 512 }, "\(rounds) kB private dirty after the timesheets (idle: \(idle) kB): \(Self.dirtiest(pid))")
        // Nothing grows from round to round: six rounds in a row here kept 4264–4272 kB. What
        // one round leaves in the allocator's arenas varies with the threads it ran on: one
        // run in nine of this test kept 132 kB more in its second round.
        #expect(rounds[1] <= rounds[0] + 256, "the second round kept \(rounds[1] - rounds[0]) kB more: \(Self.dirtiest(pid))")
        #expect(try f.daemonPID() == pid, "the same daemon all along")
    }
}
