import Foundation
import Testing
import TestSupport

/// The programs read their arguments as the kernel keeps them: with libfaketime preloaded (as
/// the end-to-end tests move the clock), Swift's `CommandLine.arguments` came back empty in
/// about one start in five, and `biomatimer-tool report --pdf -` then printed the help and
/// exited 0. Thirty starts each make a miss all but certain to show.
@Suite struct ProcessArgumentsTests {
    static let environment = fakeTime(["PATH": "/usr/bin:/bin"], at: "2026-11-20 12:00:00")

    @Test func theToolSeesItsArgumentsUnderLibfaketime() throws {
        let tool = productsDirectory.appendingPathComponent("biomatimer-tool").path
        let version = try runProcess(tool, ["--version"]).requireSuccess("biomatimer-tool --version").stdout
        for _ in 0..<30 {
            let r = try runProcess(tool, ["--version"], environment: Self.environment)
            #expect(r.status == 0 && r.stdout == version, "\(r.status): \(r.stdout.prefix(200))")
        }
    }

    @Test func theDaemonSeesItsArgumentsUnderLibfaketime() throws {
        let daemon = productsDirectory.appendingPathComponent("biomatimerd").path
        for _ in 0..<30 {
            let r = try runProcess(daemon, ["--day-start", "nonsense"], environment: Self.environment)
            #expect(r.status == 2 && r.stderr.contains("nonsense"), "\(r.status): \(r.stderr.prefix(300))")
        }
    }
}
