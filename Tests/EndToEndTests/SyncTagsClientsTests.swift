import Foundation
import Testing

import TestSupport

/// Tags and clients between two daemons sharing a sync folder (each on its own bus and faked
/// clock), driven by the real CLI: an interval's tags as one field, clients as an entity kind.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct SyncTagsClientsTests {
    typealias Machine = SyncEndToEndTests.Machine

    static func tags(_ m: Machine) throws -> [[String]] {
        (try m.f.method("ListIntervals", [.string("2026-11-01"), .string("2026-11-30")]).first?.array ?? [])
            .map { ($0.vardict?["Tags"]?.array ?? []).compactMap(\.string) }
    }

    static func clients(_ m: Machine) throws -> [String] {
        (try m.f.method("ListClients").first?.array ?? []).compactMap { row in
            row.vardict.map { "\($0["Name"]?.string ?? "") \($0["Rate"]?.int64 ?? 0) \($0["Currency"]?.string ?? "")" }
        }
    }

    static func projectClients(_ m: Machine) throws -> [String] {
        (try m.f.method("ListProjects").first?.array ?? []).compactMap { row in
            row.vardict.map { "\($0["Name"]?.string ?? ""):\($0["ClientName"]?.string ?? ""):\($0["Rate"]?.int64 ?? 0)" }
        }
    }

    @Test func tagsAndClientsTravelBothWays() throws {
        let folder = try SyncEndToEndTests.sharedFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = try Machine()
        let b = try Machine()
        try a.cliOK(["sync", "enable", folder.path, "--name", "Desk"])
        try b.cliOK(["sync", "enable", folder.path, "--name", "Laptop"])
        try a.cliOK(["client", "add", "ACME", "--rate", "90", "--currency", "EUR"])
        try a.cliOK(["project", "add", "Website", "--client", "ACME"])
        try a.cliOK(["add", "07:00-08:00", "--project", "Website", "+meeting", "+call"])
        #expect(waitUntil { (try? Self.tags(b)) == [["meeting", "call"]] && (try? Self.projectClients(b)) == ["Website:ACME:9000"] })
        #expect(try Self.clients(b) == ["ACME 9000 EUR"])
        // B edits the tags and the rate; A gets both.
        try b.cliOK(["edit", "1", "--tag", "bug", "--untag", "meeting"])
        try b.cliOK(["client", "edit", "ACME", "--rate", "95.50"])
        #expect(waitUntil { (try? Self.tags(a)) == [["call", "bug"]] && (try? Self.clients(a)) == ["ACME 9550 EUR"] })
        #expect(try a.cliOK(["report", "--date", "2026-11-20"]).stdout.contains("95.50 EUR"))
        // A removes the client: B's project stays, client-less.
        try a.cliOK(["client", "remove", "ACME"])
        #expect(waitUntil { (try? Self.clients(b)) == [] && (try? Self.projectClients(b)) == ["Website::0"] })
        #expect(SyncEndToEndTests.converge(a, b))
    }
}
