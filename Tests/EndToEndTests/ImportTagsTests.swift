import Foundation
import Testing

import TestSupport

/// Imports keep tags: every tag of a Timewarrior interval made by the real `timew` (the project
/// mapping as before), and Watson's tags; a tag that is not a word here is made one.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct ImportTagsTests {
    @Test func timewarriorAndWatsonTagsAreKept() throws {
        let timew = try ImportEndToEndTests.Timewarrior(zone: "UTC")
        try timew.run(["track", "2026-11-18T09:00:00", "-", "2026-11-18T10:00:00", "Client A", "meeting", "needs review"])
        try timew.run(["track", "2026-11-18T11:00:00", "-", "2026-11-18T12:00:00", "bug"])
        let export = try timew.run(["export"])
        let (f, daemon) = try ImportEndToEndTests.daemon(zone: "UTC")
        defer { daemon.terminate() }
        let file = f.dataDirectory.appendingPathComponent("timew.json")
        try export.write(to: file, atomically: true, encoding: .utf8)
        try f.cliOK(["import", "--format", "timewarrior", "--tag-map", "Client A=Client A", file.path])
        let frames = #"[[1795341600, 1795345200, "watson-project", "f1", ["deploy", "ops team"], 1795345200, null]]"#
        let watson = f.dataDirectory.appendingPathComponent("frames")
        try frames.write(to: watson, atomically: true, encoding: .utf8)
        try f.cliOK(["import", "--format", "watson", watson.path])
        let rows = try f.method("ListIntervals", [.string("2026-11-01"), .string("2026-11-30")]).first?.array ?? []
        let tags = rows.map { ($0.vardict?["Tags"]?.array ?? []).compactMap(\.string) }
        #expect(tags == [["Client-A", "meeting", "needs-review"], ["bug"], ["deploy", "ops-team"]], "\(tags)")
        // The CSV export carries them, and undo takes the import back with its tags.
        #expect(try f.cliOK(["export"]).stdout.contains(",,Client-A meeting needs-review\r\n"))
        try f.cliOK(["undo"])
        #expect((try f.method("ListIntervals", [.string("2026-11-01"), .string("2026-11-30")]).first?.array ?? []).count == 2)
    }
}
