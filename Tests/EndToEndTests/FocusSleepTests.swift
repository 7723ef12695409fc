import BiomaCore
import BiomaDaemon
import BiomaStore
import DBusKit
import Foundation
import Testing

import TestSupport

/// A sleep pauses a running focus phase at the instant the machine slept; a break runs on in
/// wall time. In-process, with injected clocks: the wall clock and the suspend gap.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct FocusSleepTests {
    struct Daemon {
        let bus: PrivateBus
        let service: Bus
        let tracker: Tracker
        let timer: WorkService
        let clock: ManualClock
        let suspend: FakeSuspend

        init(at t0: Micros, data: URL) throws {
            bus = try PrivateBus()
            clock = ManualClock(t0)
            suspend = FakeSuspend()
            tracker = try Tracker(dataDirectory: data, rules: berlin, now: t0, bootID: "b")
            let service = try Bus(.address(bus.address))
            self.service = service
            let parts = DaemonParts(tracker: tracker, bus: service, clock: clock, data: data, suspendClock: suspend)
            timer = parts.timer
            let object = parts.object
            try object.export(on: service)
            try service.requestName(ContractNames.busName)
            try service.sync { () throws(BusError) in object.attach(try Deadlines(bus: service)) }
        }

        func call(_ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
            try BlockingBus(.address(bus.address)).call(
                destination: ContractNames.busName, path: ContractNames.objectPath, interface: ContractNames.focusInterface,
                member: member, arguments)
        }

        /// The focus timer as the store has it, read on the loop thread (the tracker's one
        /// thread, where the service and its deadlines use it).
        func focus() throws -> FocusTimer? {
            let tracker = self.tracker
            return try service.sync { () throws(BusError) in tracker.focus.timer }
        }

        /// The daemon looks at the clocks (as when it wakes after a resume).
        func look() throws {
            let timer = self.timer
            try service.sync { () throws(BusError) in timer.away.checkSuspend() }
        }
    }

    @Test func aRunningFocusPhasePausesWhereTheSleepBegan() throws {
        let data = try makeTemporaryDirectory("biomatimer-focus-sleep")
        defer { try? FileManager.default.removeItem(at: data) }
        let t0 = t("2026-11-23T17:00:00+01:00")
        let d = try Daemon(at: t0, data: data)
        defer { d.service.close() }
        _ = try d.call("StartCountdown", [.int64(25 * minute), .vardict([:])])
        // Five minutes in, the lid closes for an hour.
        d.clock.set(t0 + 5 * minute)
        d.suspend.sleep(hour)
        d.clock.set(t0 + 65 * minute)
        try d.look()
        let focus = try #require(try d.focus())
        #expect(focus.state == .paused)
        #expect(focus.remaining(at: d.clock.now()) == 20 * minute, "paused at the sleep's start")
    }

    @Test func aBreakRunsOnInWallTimeThroughASleep() throws {
        let data = try makeTemporaryDirectory("biomatimer-focus-sleep")
        defer { try? FileManager.default.removeItem(at: data) }
        let t0 = t("2026-11-23T17:00:00+01:00")
        let d = try Daemon(at: t0, data: data)
        defer { d.service.close() }
        _ = try d.call("StartPomodoro", [.vardict(["Work": .int64(minute), "ShortBreak": .int64(10 * minute)])])
        d.clock.set(t0 + 30 * microsPerSecond)
        _ = try d.call("Skip")  // onto the break
        let onBreak = try #require(try d.focus())
        #expect(onBreak.phase == .shortBreak && onBreak.state == .running)
        let endsAt = try #require(onBreak.endsAt)
        d.clock.set(t0 + 3 * minute)
        d.suspend.sleep(2 * minute)
        d.clock.set(t0 + 5 * minute)
        try d.look()
        let after = try #require(try d.focus())
        #expect(after.state == .running && after.endsAt == endsAt, "a break is not paused by a sleep")
    }
}
