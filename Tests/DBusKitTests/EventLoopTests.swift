import CSystem
import DBusKit
import Foundation
import Testing

import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// One event loop for everything a process waits on: two bus connections (two private buses,
/// as the daemon has the session bus and the system bus), a descriptor watch and deadlines,
/// all served by the same thread, one handler at a time; a connection closed or lost leaves the
/// loop and the others go on.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct EventLoopTests {
    /// Which threads ran the handlers.
    final class Threads: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [String: pthread_t] = [:]
        func note(_ what: String) { lock.withLock { seen[what] = pthread_self() } }
        var all: [String: pthread_t] { lock.withLock { seen } }
    }

    @Test func twoBusesADescriptorAndDeadlinesShareOneThread() throws {
        let first = try PrivateBus()
        let second = try PrivateBus()
        let loop = try EventLoop()
        defer { loop.stop() }
        let session = try Bus(.address(first.address), loop: loop)
        let system = try Bus(.address(second.address), loop: loop)
        #expect(session.loop === loop && system.loop === loop)
        let threads = Threads()
        let done = Received()

        // A service on each connection.
        for (bus, label) in [(session, "session"), (system, "system")] {
            let state = BusTests.ServiceState()
            state.label = label
            try BusTests.startService(bus, state: state)
            try bus.sync { () throws(BusError) in
                threads.note("\(label) export")
            }
        }
        // A pipe watched on the loop.
        var ends: [Int32] = [0, 0]
        #expect(csystem_pipe_cloexec(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        let readEnd = ends[0]
        loop.watch(fd: readEnd) { events in
            var byte: UInt8 = 0
            _ = read(readEnd, &byte, 1)
            threads.note("pipe")
            done.count()
        }
        // A deadline 50 ms on.
        let deadlines = try loop.sync { () throws(BusError) in
            let d = try Deadlines(loop: loop)
            let h = d.add { _ in
                threads.note("deadline")
                done.count()
            }
            d.schedule(h, at: Deadlines.now() + 50_000)
            return d
        }
        var byte: UInt8 = 1
        #expect(write(ends[1], &byte, 1) == 1)

        // Calls to both services, from outside, answered by the one loop.
        for address in [first.address, second.address] {
            let client = try BlockingBus(.address(address))
            let echoed = try client.call(
                destination: BusTests.name, path: BusTests.path, interface: BusTests.iface, member: "Echo", [.variant(.int32(7))])
            #expect(echoed == [.variant(.int32(7))])
        }
        // A signal from one connection's bus reaches a subscription on the same loop.
        try session.subscribe(MatchRule(sender: BusTests.name, interface: BusTests.iface, member: "Emitted")) { _ in
            threads.note("signal")
            done.count()
        }
        _ = try BlockingBus(.address(first.address)).call(
            destination: BusTests.name, path: BusTests.path, interface: BusTests.iface, member: "Emit", [.string("x")])
        #expect(done.wait(count: 3, timeout: 5))
        let seen = threads.all
        #expect(Set(seen.keys) == ["session export", "system export", "pipe", "deadline", "signal"])
        let loopThread = try #require(seen["pipe"])
        #expect(seen.values.allSatisfy { pthread_equal($0, loopThread) != 0 }, "handlers ran on more than one thread")
        #expect(pthread_equal(loopThread, pthread_self()) == 0)

        // One connection closed: it leaves the loop; the other still answers.
        system.close()
        #expect(!system.isConnected)
        let still = try BlockingBus(.address(first.address)).call(
            destination: BusTests.name, path: BusTests.path, interface: BusTests.iface, member: "Echo", [.variant(.string("on"))])
        #expect(still == [.variant(.string("on"))])
        // The other one's bus goes away: its connection is lost, the loop goes on.
        let lost = Received()
        session.onDisconnect { _ in lost.count() }
        first.stop()
        #expect(lost.wait(count: 1, timeout: 5), "the lost connection was not noticed")
        #expect(try loop.sync { () throws(BusError) in 42 } == 42)
        withExtendedLifetime(deadlines) {}
    }

    /// Serving calls writes no wake-up: libdbus asks for one from inside the loop's own calls
    /// (each message it reads), where the loop will look again anyway. Work the loop thread
    /// queues for itself (`later`, `stop`) still runs at the next turn with nothing else
    /// happening, because that turn polls without waiting.
    @Test func theLoopThreadWakesItselfWithoutWritingAndRunsWhatItQueues() throws {
        let bus = try PrivateBus()
        let loop = try EventLoop()
        let service = try Bus(.address(bus.address), loop: loop)
        try BusTests.startService(service)
        // The loop thread's write(2) calls (the eventfd's; sending on a socket is not one).
        let task = try loop.sync { () throws(BusError) in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
        }
        func writes() throws -> Int {
            let io = try String(contentsOfFile: "/proc/\(task)/io", encoding: .utf8)
            let line = try #require(io.split(separator: "\n").first { $0.hasPrefix("syscw:") })
            return try #require(Int(line.dropFirst("syscw:".count).trimmingCharacters(in: CharacterSet.whitespaces)))
        }
        let client = try BlockingBus(.address(bus.address))
        func echo(_ n: Int32) throws {
            let reply = try client.call(
                destination: BusTests.name, path: BusTests.path, interface: BusTests.iface, member: "Echo", [.variant(.int32(n))])
            #expect(reply == [.variant(.int32(n))])
        }
        try echo(0)
        let before = try writes()
        for n in 1...50 { try echo(Int32(n)) }
        let written = try writes() - before
        #expect(written < 5, "the loop thread wrote \(written) times for 50 calls")

        // Queued from the loop thread, once and from inside queued work: each runs.
        let ran = Received()
        loop.perform { loop.later { ran.count() } }
        #expect(ran.wait(count: 1, timeout: 5), "later from the loop thread did not run")
        loop.perform { loop.later { loop.later { ran.count() } } }
        #expect(ran.wait(count: 2, timeout: 5), "later from queued work did not run")
        // A stop asked for on the loop thread ends it.
        loop.perform { loop.stop() }
        let stopped = Received()
        Thread.detachNewThread {
            loop.wait()
            stopped.count()
        }
        #expect(stopped.wait(count: 1, timeout: 5), "stop from the loop thread did not end the loop")
        #expect(!service.isConnected)
    }
}
