import BiomaCore
import BiomaStore
import DBusKit
import Foundation
import Testing

import TestSupport

@testable import BiomaDaemon

/// The target's wake-up in process, on a private bus with an injected clock (in 2027, so the
/// real timer never fires during the test): scheduled at the instant the target will be
/// reached while work runs, moved by every change, none while stopped or once announced; the
/// day runs past midnight with a 04:00 day start, on the night before a DST change.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct TargetDeadlineTests {
    static func at(_ text: String) -> Micros { t(text) }

    @Test func theDeadlineFollowsEveryChangeAndTheNoticeComesOnce() throws {
        let bus = try PrivateBus()
        let data = try makeTemporaryDirectory("biomatimer-target")
        defer { try? FileManager.default.removeItem(at: data) }
        let server = try NotificationServer(busAddress: bus.address)
        let rules = DayRules(timeZone: zone("Europe/Berlin"), dayStartMinutes: 240)
        let clock = ManualClock(Self.at("2027-03-27T23:00:00+01:00"))
        let tracker = try Tracker(dataDirectory: data, rules: rules, now: clock.now(), bootID: "test-boot")
        let service = try Bus(.address(bus.address))
        defer { service.close() }
        let parts = DaemonParts(
            tracker: tracker, bus: service, clock: clock, data: data,
            settings: .inProcess {
                $0.notifications = true
                $0.targets = WorkTargets(everyDay: hour)
            })
        let (timer, object, notifier) = (parts.timer, parts.object, parts.notifier)
        try object.export(on: service)
        try service.requestName(ContractNames.busName)
        let deadlines = try service.sync { () throws(BusError) in
            try notifier.start()
            let deadlines = try Deadlines(loop: service.loop)
            object.attach(deadlines)
            return deadlines
        }
        func due() throws -> Micros? { try service.sync { timer.dailyTargets.due.flatMap { deadlines.instant(of: $0) } } }
        let client = try BlockingBus(.address(bus.address))
        func call(_ member: String, at instant: String) throws {
            clock.set(Self.at(instant))
            _ = try client.call(destination: ContractNames.busName, path: ContractNames.objectPath, interface: ContractNames.interface, member: member)
        }

        #expect(try due() == nil, "nothing runs")
        try call("Start", at: "2027-03-27T23:00:00+01:00")
        #expect(try due() == Self.at("2027-03-28T00:00:00+01:00"))
        try call("Stop", at: "2027-03-27T23:30:00+01:00")
        #expect(try due() == nil, "stopped")
        try call("Start", at: "2027-03-27T23:40:00+01:00")
        #expect(try due() == Self.at("2027-03-28T00:10:00+01:00"))
        clock.set(Self.at("2027-03-27T23:52:00+01:00"))
        let p = try client.call(
            destination: ContractNames.busName, path: ContractNames.objectPath, interface: "org.freedesktop.DBus.Properties",
            member: "GetAll", [.string(ContractNames.interface)]
        ).first?.vardict ?? [:]
        #expect(p["DailyTarget"] == .int64(hour) && p["TargetProgress"] == .double(0.7) && p["Balance"] == .int64(-18 * minute))
        #expect(try server.notifications().isEmpty)

        // Past midnight, still the same day (it starts at 04:00): the wake-up's publication
        // announces it, once, and nothing is scheduled any more.
        clock.set(Self.at("2027-03-28T00:10:00+01:00"))
        try service.sync { () throws(BusError) in timer.checkDayBoundary() }
        #expect(waitUntil(timeout: notificationWait) { (try? server.notifications().count) == 1 })
        #expect(try server.notifications().first?.summary == "Daily target reached")
        #expect(try tracker.daemonState.targetAnnouncedDay() == Day("2027-03-27"))
        #expect(try due() == nil)
        try call("Stop", at: "2027-03-28T00:20:00+01:00")
        try call("Start", at: "2027-03-28T00:30:00+01:00")
        #expect(try due() == nil, "announced today already")
        // The next day (from 04:00, after the change to summer time): a new target, a new wake-up.
        clock.set(Self.at("2027-03-28T04:00:00+02:00"))
        try service.sync { () throws(BusError) in timer.checkDayBoundary() }
        #expect(try due() == Self.at("2027-03-28T05:00:00+02:00"))
        #expect(try server.notifications().count == 1)
    }
}
