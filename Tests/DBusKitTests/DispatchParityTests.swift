import Foundation
import Testing

import DBusKit
import TestSupport

/// A call to an exported object is answered the same way whether it comes over the bus or is
/// made in process (`Bus.callLocally`): one dispatcher answers both, with the same values and
/// the same error names and messages, for every branch it has.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct DispatchParityTests {
    static let name = "org.biomatimer.Test.Parity"
    static let path = "/org/biomatimer/Test/Parity"
    static let iface = "org.biomatimer.Test.Parity"
    static let properties = "org.freedesktop.DBus.Properties"

    /// The writable property's value, on the loop thread.
    final class Stored: @unchecked Sendable {
        var label = "first"
    }

    static func start(_ bus: Bus, _ stored: Stored) throws {
        try bus.export(
            ExportedObject(
                path: path,
                interfaces: [
                    DBusInterface(
                        iface,
                        methods: [
                            DBusMethod("Echo", in: [.init("text", "s")], out: [.init("text", "s")]) { call in [call.arguments[0]] },
                            DBusMethod("Wrong", out: [.init("text", "s")]) { _ in [.int32(1)] },
                            DBusMethod("Refuse") { _ in throw DBusMethodError("org.biomatimer.Test.Error.No", "refused") },
                            DBusMethod.deferred("Later", out: [.init("n", "u")]) { _, reply in reply.finish(.success([.uint32(7)])) },
                        ],
                        properties: [
                            DBusProperty("Count", "u", get: { .uint32(3) }),
                            DBusProperty(
                                "Label", "s", get: { .string(stored.label) },
                                set: { value in stored.label = value.string ?? "" }),
                        ])
                ]))
        try bus.requestName(name)
    }

    /// What a caller sees: the values, or the error's name and message.
    enum Seen: Equatable {
        case values([DBusValue])
        case error(String, String)
    }

    @Test func everyBranchIsAnsweredAlikeOverTheBusAndInProcess() throws {
        let daemon = try PrivateBus()
        let service = try Bus(.address(daemon.address))
        defer { service.close() }
        try Self.start(service, Stored())
        let client = try BlockingBus(.address(daemon.address))

        func overBus(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue]) -> Seen {
            do {
                return .values(
                    try client.call(destination: Self.name, path: path, interface: interface, member: member, arguments))
            } catch .remote(let name, let message) {
                return .error(name, message)
            } catch {
                return .error("not sent", "\(error)")
            }
        }
        func inProcess(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue]) -> Seen {
            do {
                return .values(
                    try service.callLocally(path: path, interface: interface, member: member, arguments: arguments, sender: ""))
            } catch let error as any DBusErrorConvertible {
                return .error(error.dbusErrorName, error.dbusErrorMessage)
            } catch {
                return .error("org.freedesktop.DBus.Error.Failed", "\(error)")
            }
        }

        let calls: [(path: String, interface: String, member: String, arguments: [DBusValue])] = [
            (Self.path, Self.iface, "Echo", [.string("hello")]),
            (Self.path, Self.iface, "Echo", []),
            (Self.path, Self.iface, "Echo", [.int32(1)]),
            (Self.path, Self.iface, "Missing", []),
            (Self.path, "org.biomatimer.Test.None", "Echo", [.string("x")]),
            (Self.path, Self.iface, "Wrong", []),
            (Self.path, Self.iface, "Refuse", []),
            (Self.path, Self.iface, "Later", []),
            ("/org/biomatimer/Nothing", Self.iface, "Echo", [.string("x")]),
            // An intermediate node, and the object itself.
            ("/org/biomatimer", "org.freedesktop.DBus.Introspectable", "Introspect", []),
            ("/org/biomatimer/Test", "org.freedesktop.DBus.Introspectable", "Introspect", []),
            (Self.path, "org.freedesktop.DBus.Introspectable", "Introspect", []),
            (Self.path, "org.freedesktop.DBus.Introspectable", "Introspect", [.string("x")]),
            (Self.path, Self.properties, "Get", [.string(Self.iface), .string("Count")]),
            (Self.path, Self.properties, "Get", [.string(Self.iface), .string("None")]),
            (Self.path, Self.properties, "Get", [.string("org.biomatimer.Test.None"), .string("Count")]),
            (Self.path, Self.properties, "Get", [.string(Self.iface)]),
            (Self.path, Self.properties, "GetAll", [.string(Self.iface)]),
            (Self.path, Self.properties, "GetAll", [.string("")]),
            (Self.path, Self.properties, "Set", [.string(Self.iface), .string("Count"), .variant(.uint32(1))]),
            (Self.path, Self.properties, "Set", [.string(Self.iface), .string("Label"), .variant(.int32(1))]),
            (Self.path, Self.properties, "Set", [.string(Self.iface), .string("Label"), .variant(.string("second"))]),
            (Self.path, Self.properties, "Get", [.string(Self.iface), .string("Label")]),
            (Self.path, Self.properties, "Forget", []),
            (Self.path, "org.freedesktop.DBus.Peer", "Ping", []),
            (Self.path, "org.freedesktop.DBus.Peer", "GetMachineId", []),
            (Self.path, "org.freedesktop.DBus.Peer", "Nothing", []),
        ]
        var errors = 0
        for call in calls {
            let bus = overBus(call.path, call.interface, call.member, call.arguments)
            let local = inProcess(call.path, call.interface, call.member, call.arguments)
            #expect(bus == local, "\(call.interface).\(call.member) at \(call.path)")
            if case .error = bus { errors += 1 }
        }
        // Both kinds of answer were tried: the comparison is not of two sets of timeouts.
        #expect(errors > 10 && errors < calls.count - 10)
    }
}
