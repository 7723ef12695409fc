import Foundation
import Testing

@testable import DBusKit
import TestSupport

/// A deferred method (`DBusMethod.deferred`) is answered when its work ends, at a later turn of
/// the loop; calls that come meanwhile are answered first. Its reply is checked against the
/// method's output types, and a reply dropped unanswered answers an error instead of leaving
/// the caller waiting.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct DeferredReplyTests {
    static let name = "org.biomatimer.Test.Deferred"
    static let path = "/org/biomatimer/Test"
    static let iface = "org.biomatimer.Test.Later"

    /// Replies kept on the loop thread until the test lets them go.
    final class Held: @unchecked Sendable {
        var replies: [PendingReply] = []
    }

    static func start(_ bus: Bus, held: Held) throws {
        try bus.export(
            ExportedObject(
                path: path,
                interfaces: [
                    DBusInterface(
                        iface,
                        methods: [
                            DBusMethod.deferred("Later", in: [.init("text", "s")], out: [.init("text", "s")]) { _, reply in
                                held.replies.append(reply)
                            },
                            DBusMethod("Now", out: [.init("text", "s")]) { _ in [.string("now")] },
                        ])
                ]))
        try bus.requestName(name)
    }

    func call(_ client: BlockingBus, _ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try client.call(destination: Self.name, path: Self.path, interface: Self.iface, member: member, arguments)
    }

    @Test func aDeferredReplyComesLaterAndOthersAreAnsweredMeanwhile() throws {
        let daemon = try PrivateBus()
        let service = try Bus(.address(daemon.address))
        defer { service.close() }
        let held = Held()
        try Self.start(service, held: held)
        // The deferred call, from a thread of its own: it waits for its answer.
        let answer = Self.callLater(on: daemon)
        #expect(waitUntil { (try? service.sync { () throws(BusError) in held.replies.count }) == 1 })
        // Meanwhile another call is answered at once.
        let client = try BlockingBus(.address(daemon.address))
        #expect(try call(client, "Now") == [.string("now")])
        #expect(answer.value == nil)
        // Answered with the wrong types: an internal error, not a malformed reply.
        try service.sync { () throws(BusError) in held.replies[0].finish(.success([.int32(1)])) }
        #expect(waitUntil { answer.value != nil })
        #expect(answer.errorText?.contains("produced 'i' instead of 's'") == true, "\(String(describing: answer.value))")
    }

    @Test func aDroppedReplyAnswersAnError() throws {
        let daemon = try PrivateBus()
        let service = try Bus(.address(daemon.address))
        defer { service.close() }
        let held = Held()
        try Self.start(service, held: held)
        let answer = Self.callLater(on: daemon)
        #expect(waitUntil { (try? service.sync { () throws(BusError) in held.replies.count }) == 1 })
        try service.sync { () throws(BusError) in held.replies.removeAll() }
        #expect(waitUntil { answer.value != nil })
        #expect(answer.errorText?.contains("was never answered") == true, "\(String(describing: answer.value))")
    }

    /// Calls `Later` from a thread of its own, which waits for the answer.
    static func callLater(on daemon: PrivateBus) -> Answer {
        let answer = Answer()
        Thread.detachNewThread {
            do {
                let client = try BlockingBus(.address(daemon.address))
                answer.set(.success(try client.call(destination: name, path: path, interface: iface, member: "Later", [.string("x")])))
            } catch {
                answer.set(.failure(error))
            }
        }
        return answer
    }

    final class Answer: @unchecked Sendable {
        private let lock = NSLock()
        private var result: Result<[DBusValue], any Error>?
        func set(_ value: Result<[DBusValue], any Error>) { lock.withLock { result = value } }
        var value: Result<[DBusValue], any Error>? { lock.withLock { result } }
        var errorText: String? {
            guard case .failure(let error)? = value else { return nil }
            return "\(error)"
        }
    }
}
