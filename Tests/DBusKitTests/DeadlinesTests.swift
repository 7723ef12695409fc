import DBusKit
import Foundation
import Testing

import TestSupport

/// Deadlines in the bus loop: absolute wall-clock instants in one timerfd; each handler runs
/// on the loop thread when its instant comes, on time, and nothing runs while none is due.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct DeadlinesTests {
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [(String, Deadlines.Reason, Int64)] = []
        func add(_ name: String, _ reason: Deadlines.Reason) {
            lock.withLock { entries.append((name, reason, Deadlines.now())) }
        }
        var all: [(String, Deadlines.Reason, Int64)] { lock.withLock { entries } }
    }

    @Test func deadlinesFireOnTimeInOrderAndOnce() async throws {
        let bus = try PrivateBus()
        let loop = try Bus(.address(bus.address))
        defer { loop.close() }
        let log = Log()
        let start = Deadlines.now()
        let deadlines = try loop.sync { () throws(BusError) in
            let d = try Deadlines(bus: loop)
            let late = d.add { log.add("late", $0) }
            let early = d.add { log.add("early", $0) }
            let never = d.add { log.add("never", $0) }
            d.schedule(late, at: start + 300_000)
            d.schedule(early, at: start + 150_000)
            d.schedule(never, at: start + 200_000)
            d.schedule(never, at: nil)  // cancelled
            return d
        }
        #expect(waitUntil(timeout: 5) { log.all.count >= 2 })
        try await Task.sleep(for: .seconds(0.3))
        let seen = log.all
        #expect(seen.map(\.0) == ["early", "late"])
        #expect(seen.allSatisfy { $0.1 == .due })
        // On time: not before the instant, and soon after it (a quarter of a second, for a
        // loaded machine; `make bench` measures the lateness itself).
        for (name, _, at) in seen {
            let due = start + (name == "early" ? 150_000 : 300_000)
            #expect(at >= due && at - due < 250_000, "\(name) fired \(at - due) µs after its instant")
        }
        withExtendedLifetime(deadlines) {}
    }

    @Test func aPastInstantIsDueAtOnceAndAHandlerMayScheduleAgain() async throws {
        let bus = try PrivateBus()
        let loop = try Bus(.address(bus.address))
        defer { loop.close() }
        let log = Log()
        let deadlines = try loop.sync { () throws(BusError) in try Deadlines(bus: loop) }
        try loop.sync { () throws(BusError) in
            // A handler that re-schedules itself three times, 20 ms apart (a heartbeat's shape).
            final class Counter: @unchecked Sendable {
                var n = 0
                var handle: Deadlines.Handle?
            }
            let counter = Counter()
            counter.handle = deadlines.add { [deadlines] reason in
                log.add("beat", reason)
                counter.n += 1
                if counter.n < 3, let handle = counter.handle { deadlines.schedule(handle, at: Deadlines.now() + 20_000) }
            }
            deadlines.schedule(counter.handle!, at: Deadlines.now() - 1_000_000)  // already past
        }
        #expect(waitUntil(timeout: 5) { log.all.count >= 3 })
        try await Task.sleep(for: .seconds(0.2))
        #expect(log.all.count == 3)
    }

    /// Monotonic deadlines: a span from now on the loop's one `Deadlines` (the same object for
    /// every caller of `deadlines()`), due once after its span, beside a wall-clock deadline far
    /// off that does not fire; removed, one never fires.
    @Test func monotonicDeadlinesFireAfterTheirSpan() async throws {
        let bus = try PrivateBus()
        let loop = try Bus(.address(bus.address))
        defer { loop.close() }
        let log = Log()
        let start = Deadlines.now()
        let same = try loop.sync { () throws(BusError) in
            let d = try loop.loop.deadlines()
            let span = d.add(.monotonic) { log.add("span", $0) }
            let removed = d.add(.monotonic) { log.add("removed", $0) }
            let wall = d.add { log.add("wall", $0) }
            d.schedule(span, after: 100_000)
            d.schedule(removed, after: 50_000)
            d.remove(removed)
            d.schedule(wall, at: Deadlines.now() + 3_600_000_000)
            return try loop.loop.deadlines() === d
        }
        #expect(same)
        #expect(waitUntil(timeout: 5) { !log.all.isEmpty })
        try await Task.sleep(for: .seconds(0.3))
        #expect(log.all.map(\.0) == ["span"] && log.all.allSatisfy { $0.1 == .due })
        #expect((log.all.first?.2 ?? 0) - start >= 100_000, "due before its span")
    }

    /// While nothing is scheduled the loop thread does not wake: no context switches in a
    /// quiet second, then one deadline, then quiet again.
    @Test func nothingScheduledMeansNoWakeUps() async throws {
        let bus = try PrivateBus()
        let loop = try Bus(.address(bus.address))
        defer { loop.close() }
        let log = Log()
        let deadlines = try loop.sync { () throws(BusError) in try Deadlines(bus: loop) }
        let handle = try loop.sync { () throws(BusError) in deadlines.add { log.add("once", $0) } }
        // The loop thread's id, read on that thread (/proc/thread-self is the reading thread).
        let tid = try loop.sync { () throws(BusError) in
            Int32((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))?.split(separator: "/").last ?? "") ?? 0
        }
        try await Task.sleep(for: .seconds(0.2))
        let before = try #require(threadContextSwitches(tid), "no /proc entry for the loop thread \(tid)")
        try await Task.sleep(for: .seconds(1))
        #expect(threadContextSwitches(tid) == before, "the loop woke with nothing scheduled")
        try loop.sync { () throws(BusError) in deadlines.schedule(handle, at: Deadlines.now() + 100_000) }
        #expect(waitUntil(timeout: 5) { log.all.count == 1 })
        try await Task.sleep(for: .seconds(0.1))
        let after = try #require(threadContextSwitches(tid))
        try await Task.sleep(for: .seconds(1))
        #expect(threadContextSwitches(tid) == after, "the loop woke after its only deadline")
    }

    /// Voluntary plus involuntary context switches of one thread of this process.
    private func threadContextSwitches(_ tid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/task/\(tid)/status", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").filter { $0.contains("ctxt_switches") }
            .compactMap { Int($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) }.reduce(0, +)
    }
}
