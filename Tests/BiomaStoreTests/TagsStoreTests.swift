import BiomaCore
import Foundation
import Testing

@testable import BiomaStore

/// Tags in the store: journaled with the edit that set them, and carried by sync as one field.
@Suite struct TagsStoreTests {
    static let day = t("2026-11-20T00:00:00+01:00")
    static func at(_ h: Double) -> Micros { day + Micros(h * Double(hour)) }

    static func tags(_ tracker: Tracker) throws -> [String] {
        try tracker.edits.intervals(from: Day("2026-11-20")!, to: Day("2026-11-20")!).map { $0.tags ?? "" }
    }

    @Test func tagsTravelBothWaysAsOneField() throws {
        try withTemporaryDirectory { dir in
            let pair = try SyncPair(dir, now: Self.at(8))
            _ = try pair.a.catalog.addProject(name: "Website", color: "", at: Self.at(8))
            _ = try pair.a.edits.addInterval(
                start: Self.at(8), end: Self.at(9), project: "Website", tags: ["meeting", "+call"], replace: false, at: Self.at(9.5))
            try pair.a.timers.startProject("Website", at: Self.at(10))
            _ = try pair.a.edits.changeRunningTags(add: ["deep-work"], remove: [], at: Self.at(10.1))
            try pair.exchange(at: Self.at(10.2))
            #expect(try Self.tags(pair.b) == ["meeting call", "deep-work"])
            // B changes the recorded interval's tags; A gets the whole field.
            let id = try pair.b.edits.intervals(from: Day("2026-11-20")!, to: Day("2026-11-20")!)[0].id
            var changes = StoreEdits.IntervalChanges()
            (changes.addTags, changes.removeTags) = (["bug"], ["MEETING"])
            try pair.b.edits.updateInterval(String(id), changes, at: Self.at(10.3))
            try pair.exchange(at: Self.at(10.4))
            #expect(try Self.tags(pair.a) == ["call bug", "deep-work"])
            #expect(try Self.tags(pair.b) == ["call bug", "deep-work"])
        }
    }

    /// A history reset restarts the running interval now, under its project, with its note
    /// and its tags (they were dropped); undo brings the history back.
    @Test func aResetKeepsTheRunningIntervalsNoteAndTags() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: Self.at(8), bootID: boot)
            _ = try tracker.catalog.addProject(name: "Website", color: "", at: Self.at(8))
            try tracker.timers.startProject("Website", at: Self.at(9))
            _ = try tracker.edits.changeRunningTags(add: ["meeting", "call"], remove: [], at: Self.at(9.1))
            _ = try tracker.edits.setRunningNote("with ACME", at: Self.at(9.2))
            try tracker.history.reset(at: Self.at(10))
            let rows = try tracker.edits.intervals(from: Day("2026-11-20")!, to: Day("2026-11-20")!)
            #expect(rows.count == 1 && rows[0].start == Self.at(10) && rows[0].end == nil)
            #expect(rows[0].tags == "meeting call" && rows[0].note == "with ACME", "\(rows)")
        }
    }

    @Test func badTagsChangeNothing() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: Self.at(8), bootID: boot)
            try tracker.timers.start(at: Self.at(9))
            for (add, message) in [
                (["two words"], "is not a word"), ([String(repeating: "x", count: 33)], "longer than 32"), ([""], "cannot be empty"),
                ((1...17).map { "t\($0)" }, "at most 16 tags"),
            ] {
                #expect(throws: TrackerError.self) { _ = try tracker.edits.changeRunningTags(add: add, remove: [], at: Self.at(9.5)) }
                do {
                    _ = try tracker.edits.changeRunningTags(add: add, remove: [], at: Self.at(9.5))
                } catch {
                    #expect("\(error)".contains(message), "\(error)")
                }
                #expect(try Self.tags(tracker) == [""])
            }
            // Duplicates ignoring case are dropped; undo takes the change back.
            #expect(try tracker.edits.changeRunningTags(add: ["Call", "call", "x"], remove: [], at: Self.at(9.6)).1 == ["Call", "x"])
            #expect(try tracker.edits.undo(at: Self.at(9.7)).contains("tags of interval"))
            #expect(try Self.tags(tracker) == [""])
        }
    }
}

/// Clients travel as an entity kind of their own, merged by the same rules as projects; a
/// project's client, rate, currency and billing as its fields.
@Suite struct ClientSyncTests {
    static let at = TagsStoreTests.at

    static func billing(_ tracker: Tracker) throws -> [String] {
        let clients = Dictionary(try tracker.catalog.clients().map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let billing = try tracker.catalog.billing()
        return tracker.projects.map { p in
            let b = billing[p.id]!
            return "\(p.name) \(b.clientID.flatMap { clients[$0] } ?? "-") \(b.rate ?? 0) \(b.currency ?? "-") \(b.billable)"
        }
    }

    @Test func clientsTravelBothWays() throws {
        try withTemporaryDirectory { dir in
            let pair = try SyncPair(dir, now: Self.at(8))
            _ = try pair.a.catalog.addClient(name: "ACME", rate: "90", currency: "EUR", at: Self.at(8))
            _ = try pair.a.catalog.addProject(name: "Website", color: "", at: Self.at(8.1))
            try pair.a.catalog.updateProjectBilling("Website", .init(client: .some("ACME")), at: Self.at(8.2))
            _ = try pair.a.catalog.addProject(name: "Hosting", color: "", at: Self.at(8.3))
            try pair.a.catalog.updateProjectBilling("Hosting", .init(client: .some("ACME"), rate: .some("120.50"), billable: false), at: Self.at(8.4))
            try pair.exchange(at: Self.at(9))
            #expect(try pair.b.catalog.clients().map { "\($0.name) \($0.rate ?? 0) \($0.currency ?? "-")" } == ["ACME 9000 EUR"])
            #expect(try Self.billing(pair.b) == ["Website ACME 9000 EUR true", "Hosting ACME 12050 EUR false"])
            // B changes the rate; A gets it. A removes the client; B's projects stay, client-less.
            try pair.b.catalog.updateClient("ACME", .init(rate: .some("100")), at: Self.at(9.5))
            try pair.exchange(at: Self.at(10))
            #expect(try Self.billing(pair.a) == ["Website ACME 10000 EUR true", "Hosting ACME 12050 EUR false"])
            try pair.a.catalog.deleteClient("ACME", at: Self.at(10.5))
            try pair.exchange(at: Self.at(11))
            #expect(try pair.b.catalog.clients().isEmpty)
            #expect(try Self.billing(pair.b) == ["Website - 0 - true", "Hosting - 12050 EUR false"])
        }
    }

    /// A project's own rate is in the currency it was given in: its client changing currency,
    /// the project moving to another client, or its client going, leaves rate and currency
    /// as they were (before, a removed client took the currency and so the amount with it).
    @Test func aProjectsOwnRateKeepsItsCurrency() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: Self.at(8), bootID: boot)
            _ = try tracker.catalog.addClient(name: "ACME", rate: "90", currency: "EUR", at: Self.at(8))
            _ = try tracker.catalog.addClient(name: "Initech", rate: "70", currency: "GBP", at: Self.at(8))
            for name in ["Hosting", "Website", "Design"] {
                _ = try tracker.catalog.addProject(name: name, color: "", at: Self.at(8.1))
                try tracker.catalog.updateProjectBilling(name, .init(client: .some("ACME")), at: Self.at(8.2))
            }
            try tracker.catalog.updateProjectBilling("Hosting", .init(rate: .some("120.50")), at: Self.at(8.3))
            try tracker.catalog.updateProjectBilling("Design", .init(rate: .some("60")), at: Self.at(8.3))
            #expect(try Self.billing(tracker) == ["Hosting ACME 12050 EUR true", "Website ACME 9000 EUR true", "Design ACME 6000 EUR true"])
            try tracker.catalog.updateClient("ACME", .init(currency: "USD"), at: Self.at(8.4))
            try tracker.catalog.updateProjectBilling("Design", .init(client: .some("Initech")), at: Self.at(8.5))
            #expect(try Self.billing(tracker) == ["Hosting ACME 12050 EUR true", "Website ACME 9000 USD true", "Design Initech 6000 EUR true"])
            try tracker.catalog.deleteClient("ACME", at: Self.at(8.6))
            try tracker.catalog.deleteClient("Initech", at: Self.at(8.7))
            #expect(try Self.billing(tracker) == ["Hosting - 12050 EUR true", "Website - 0 - true", "Design - 6000 EUR true"])
            // The hours still earn: an hour of Hosting is 120.50 EUR.
            let hosting = try tracker.catalog.billing()[tracker.projects.resolve("Hosting").id]!
            #expect(Currency.amount(hour, rate: hosting.rate!) == 12050 && hosting.currency == "EUR")
        }
    }
}
