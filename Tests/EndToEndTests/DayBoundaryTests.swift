import BiomaCore
import BiomaDaemon
import BiomaStore
import DBusKit
import Foundation
import Testing

import TestSupport

/// The service in-process on a real private bus with an injected clock: the day boundary
/// publishes the new day and restarts the daily total, once, however it is noticed.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct DayBoundaryTests {
    @Test func dayBoundaryIsPublishedOnceWithTheNewDay() throws {
        let bus = try PrivateBus()
        let data = try makeTemporaryDirectory("biomatimer-day")
        defer { try? FileManager.default.removeItem(at: data) }
        let rules = DayRules(timeZone: TimeZone(identifier: "Europe/Berlin")!, dayStartMinutes: 0)
        let day = Day("2026-03-28")!
        let midnight = rules.start(of: day.adding(days: 1))  // the night before the spring change
        let clock = ManualClock(midnight - 10 * 1_000_000)
        let tracker = try Tracker(dataDirectory: data, rules: rules, now: clock.now(), bootID: "test-boot")
        let service = try Bus(.address(bus.address))
        defer { service.close() }
        let parts = DaemonParts(tracker: tracker, bus: service, clock: clock, data: data)
        let timer = parts.timer
        try parts.object.export(on: service)
        try service.requestName(ContractNames.busName)

        let listener = try Bus(.address(bus.address))
        defer { listener.close() }
        let seen = SignalLog()
        try listener.subscribe(
            MatchRule(path: ContractNames.objectPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
        ) { if $0.arguments[0].string == ContractNames.interface { seen.add($0.arguments[1].vardict ?? [:]) } }

        let client = try BlockingBus(.address(bus.address))
        func call(_ member: String) throws {
            _ = try client.call(destination: ContractNames.busName, path: ContractNames.objectPath, interface: ContractNames.interface, member: member)
        }
        try call("Start")
        #expect(seen.wait(count: 1))
        #expect(seen.all.last?["Day"] == nil)

        // Ten seconds later it is the next day; the day timer (or a clock jump) fires.
        clock.set(midnight + 5 * 1_000_000)
        try service.sync { () throws(BusError) in timer.checkDayBoundary() }
        #expect(seen.wait(count: 2))
        let boundary = try #require(seen.all.last)
        #expect(boundary["Day"] == .string("2026-03-29"))
        #expect(boundary["DailyTotal"] == .int64(5 * 1_000_000), "the daily total restarts at the boundary")
        #expect(boundary["SessionTime"] == .int64(15 * 1_000_000), "the session runs across midnight")
        #expect(boundary["UpdatedAt"] == .int64(midnight + 5 * 1_000_000))

        // Noticing it again (a second timer, a resume) publishes nothing new.
        try service.sync { () throws(BusError) in timer.checkDayBoundary() }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(seen.all.count == 2)

        // Reports split the interval at midnight: 10 s on the 28th, 5 s on the 29th.
        // Read on the loop thread, the tracker's one thread.
        let report = try service.sync { () throws(BusError) in
            Result { try tracker.history.report(from: day, to: day.adding(days: 1), at: clock.now()) }
        }.get()
        #expect(report.days.map(\.workTotal) == [10 * 1_000_000, 5 * 1_000_000])
    }
}

final class SignalLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var entries: [[String: DBusValue]] = []
    func add(_ entry: [String: DBusValue]) {
        condition.lock()
        entries.append(entry)
        condition.broadcast()
        condition.unlock()
    }
    var all: [[String: DBusValue]] {
        condition.lock()
        defer { condition.unlock() }
        return entries
    }
    func wait(count: Int, timeout: TimeInterval = 5) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while entries.count < count { if !condition.wait(until: end) { return entries.count >= count } }
        return true
    }
}
