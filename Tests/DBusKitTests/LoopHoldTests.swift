import Foundation
import Testing

@testable import DBusKit
import TestSupport

/// A held loop (`EventLoop.hold`, while bulk work owns a store on another thread) answers what
/// only reads and keeps everything else — calls, work handed over, watches — in order, for
/// its release; a call made in process (`Bus.callLocally`) follows the same rule.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct LoopHoldTests {
    static let name = "org.biomatimer.Test.Hold"
    static let path = "/org/biomatimer/Test"
    static let iface = "org.biomatimer.Test.Hold"

    /// What the service did, in order (on the loop thread).
    final class Journal: @unchecked Sendable {
        var entries: [String] = []
    }

    static func start(_ bus: Bus, _ journal: Journal) throws {
        try bus.export(
            ExportedObject(
                path: path,
                interfaces: [
                    DBusInterface(
                        iface,
                        methods: [
                            DBusMethod("Write", in: [.init("text", "s")]) { call in
                                journal.entries.append("write \(call.arguments[0].string!)")
                                return []
                            },
                            DBusMethod("Read", out: [.init("count", "u")]) { _ in
                                journal.entries.append("read")
                                return [.uint32(UInt32(journal.entries.count))]
                            }.reading(),
                        ],
                        properties: [DBusProperty("Count", "u", get: { .uint32(UInt32(journal.entries.count)) })])
                ]))
        try bus.requestName(name)
    }

    /// A call from a thread of its own; its answer once it has come.
    final class Call: @unchecked Sendable {
        private let lock = NSLock()
        private var result: Result<[DBusValue], BusError>?
        init(_ address: String, _ member: String, _ arguments: [DBusValue] = []) {
            Thread { [self] in
                let answer = Result { () throws(BusError) in
                    try BlockingBus(.address(address)).call(
                        destination: LoopHoldTests.name, path: LoopHoldTests.path, interface: LoopHoldTests.iface, member: member,
                        arguments)
                }
                lock.withLock { result = answer }
            }.start()
        }
        var answered: Bool { lock.withLock { result != nil } }
    }

    /// Runs `body` on the loop thread, held or not (`sync` waits for a held loop's release).
    static func onLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () -> T) -> T {
        let done = NSCondition()
        nonisolated(unsafe) var result: T?
        loop.perform(whileHeld: true) {
            let value = body()
            done.withLock {
                result = value
                done.signal()
            }
        }
        return done.withLock {
            while result == nil { done.wait() }
            return result!
        }
    }

    @Test func readsAreAnsweredAndTheRestRunsInOrderAtTheRelease() throws {
        let daemon = try PrivateBus()
        let service = try Bus(.address(daemon.address))
        defer { service.close() }
        let journal = Journal()
        try Self.start(service, journal)
        let loop = service.loop
        Self.onLoop(loop) { loop.hold() }

        // Kept: two writes over the bus, one in process from another thread, and work handed
        // over; a watch's readiness waits too.
        let first = Call(daemon.address, "Write", [.string("one")])
        #expect(waitUntil { Self.onLoop(loop) { service.kept.count } == 1 })
        let second = Call(daemon.address, "Write", [.string("two")])
        #expect(waitUntil { Self.onLoop(loop) { service.kept.count } == 2 })
        loop.perform { journal.entries.append("work") }
        let local = Thread {
            _ = try? service.callLocally(path: Self.path, interface: Self.iface, member: "Write", arguments: [.string("local")], sender: "")
        }
        local.start()
        var pipe: [Int32] = [-1, -1]
        #expect(Glibc.pipe(&pipe) == 0)
        let (readEnd, writeEnd) = (pipe[0], pipe[1])
        defer { for fd in [readEnd, writeEnd] { Glibc.close(fd) } }
        let watch = loop.watch(fd: readEnd) { _ in
            var byte: UInt8 = 0
            _ = Glibc.read(readEnd, &byte, 1)
            journal.entries.append("watch")
        }
        defer { loop.unwatch(watch) }
        _ = Glibc.write(writeEnd, "x", 1)

        // Answered meanwhile: a read method, a property read, and a read in process.
        let client = try BlockingBus(.address(daemon.address))
        #expect(
            try client.call(destination: Self.name, path: Self.path, interface: Self.iface, member: "Read") == [.uint32(1)])
        #expect(
            try client.call(
                destination: Self.name, path: Self.path, interface: "org.freedesktop.DBus.Properties", member: "Get",
                [.string(Self.iface), .string("Count")]) == [.variant(.uint32(1))])
        let count = try service.callLocally(
            path: Self.path, interface: "org.freedesktop.DBus.Properties", member: "Get", arguments: [.string(Self.iface), .string("Count")],
            sender: "")
        #expect(count == [.variant(.uint32(1))])
        Thread.sleep(forTimeInterval: 0.2)
        #expect(!first.answered && !second.answered)
        #expect(Self.onLoop(loop) { journal.entries } == ["read"])

        Self.onLoop(loop) { loop.release() }
        #expect(waitUntil { first.answered && second.answered })
        #expect(waitUntil { (try? service.sync { () throws(BusError) in journal.entries.count }) == 6 })
        let entries = try service.sync { () throws(BusError) in journal.entries }
        // The bus's calls in the order they came, then the work in the order it came (the
        // in-process write was handed over after the work); the watch at the next turn.
        #expect(Array(entries.prefix(3)) == ["read", "write one", "write two"])
        #expect(Set(entries.dropFirst(3)) == ["work", "write local", "watch"])
        #expect(entries.firstIndex(of: "work")! < entries.firstIndex(of: "write local")!)
    }

    @Test func aLocalCallIsCheckedAsOneOverTheBus() throws {
        let daemon = try PrivateBus()
        let service = try Bus(.address(daemon.address))
        defer { service.close() }
        try Self.start(service, Journal())
        func fails(_ member: String, _ arguments: [DBusValue], _ text: String) {
            do {
                _ = try service.callLocally(path: Self.path, interface: Self.iface, member: member, arguments: arguments, sender: "")
                Issue.record("\(member) was accepted")
            } catch {
                let message = (error as? DBusMethodError)?.dbusErrorMessage ?? "\(error)"
                #expect(message.contains(text), "\(message)")
            }
        }
        fails("Write", [.int32(1)], "takes arguments of type 's', not 'i'")
        fails("Nothing", [], "No method Nothing")
        fails("Write", [.string("a\u{0}b")], "NUL")
        #expect(try service.callLocally(path: Self.path, interface: Self.iface, member: "Read", arguments: [], sender: "") == [.uint32(1)])
    }

    /// Once the loop has stopped (the daemon exiting), a call made in process from another
    /// thread runs nowhere: it is refused, and its handler never runs beside the tear-down.
    @Test func aLocalCallAfterTheLoopStoppedIsRefused() throws {
        let daemon = try PrivateBus()
        let service = try Bus(.address(daemon.address))
        let journal = Journal()
        try Self.start(service, journal)
        service.close()
        let refused = NSCondition()
        nonisolated(unsafe) var failure: String?
        Thread {
            let text: String
            do {
                _ = try service.callLocally(path: Self.path, interface: Self.iface, member: "Write", arguments: [.string("late")], sender: "")
                text = "accepted"
            } catch {
                text = "\(error)"
            }
            refused.withLock {
                failure = text
                refused.signal()
            }
        }.start()
        let text = refused.withLock {
            while failure == nil { refused.wait() }
            return failure!
        }
        #expect(text.contains("stopping"), "\(text)")
        #expect(journal.entries.isEmpty)
    }
}
