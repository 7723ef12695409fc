import Foundation
import Testing
import TestSupport

/// What a command writes to standard output goes through the caller's own descriptor, which
/// the front passes, not in `Run`'s reply: an export larger than one D-Bus message (here a
/// bus whose limit is 1 MB; the dbus-daemon's own is 128 MiB) is written whole, not refused.
@Suite(.timeLimit(.minutes(2)))
struct LargeOutputTests {
    @Test func anExportLargerThanOneMessageIsWrittenWhole() throws {
        let f = try DaemonFixture(maxMessageSize: 1_000_000)
        // 20,000 half-hour intervals, one an hour from 2024-01-01: a CSV of about 1.5 MB.
        var csv = "project,color,start,end,duration\n"
        let start = 1_704_067_200  // 2024-01-01T00:00:00Z
        let formatter = ISO8601DateFormatter()
        for index in 0..<20_000 {
            let from = Date(timeIntervalSince1970: TimeInterval(start + index * 3600))
            csv += "Client A,#FF8800,\(formatter.string(from: from)),\(formatter.string(from: from.addingTimeInterval(1800))),\n"
        }
        let file = f.dataDirectory.deletingLastPathComponent().appendingPathComponent("large-\(getpid()).csv")
        try csv.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        var env = f.environment
        env["BIOMATIMER_TIMEOUT"] = "100"
        let imported = try runProcess(DaemonFixture.binary, ["import", file.path], environment: env, timeout: 110)
        #expect(imported.status == 0, "\(imported.stderr)")

        let exported = try runProcess(DaemonFixture.binary, ["export"], environment: env, timeout: 110)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.utf8.count > 1_000_000, "\(exported.stdout.utf8.count) bytes")
        #expect(exported.stdout.split(separator: "\r\n").count == 20_001, "the header and every interval")
        let calendar = try runProcess(DaemonFixture.binary, ["export", "--format", "ics"], environment: env, timeout: 110)
        #expect(calendar.status == 0, "\(calendar.stderr)")
        #expect(calendar.stdout.components(separatedBy: "BEGIN:VEVENT").count == 20_001)
        // Written to a file instead, the same bytes.
        let copy = file.deletingLastPathComponent().appendingPathComponent("export-\(getpid()).csv")
        defer { try? FileManager.default.removeItem(at: copy) }
        #expect(try runProcess(DaemonFixture.binary, ["export", "-o", copy.path], environment: env, timeout: 110).status == 0)
        #expect(try String(contentsOf: copy, encoding: .utf8) == exported.stdout)
    }
}
