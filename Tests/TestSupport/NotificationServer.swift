import DBusCore
import Foundation

/// python3-dbusmock's `notification_daemon` template on a test bus: a real
/// org.freedesktop.Notifications peer whose calls the test reads (`Mock.GetCalls`) and whose
/// signals it sends (`Mock.EmitSignal`), as a user clicking an action would.
public final class NotificationServer: @unchecked Sendable {
    public struct Notification: Sendable, Equatable {
        public var appName: String
        public var replacesID: UInt32
        public var summary: String
        public var body: String
        public var actions: [String]
        public var hints: [String: DBusValue]
        /// When the server received it, seconds since the epoch.
        public var at: Double
    }

    private let process: ChildProcess
    private let address: String

    /// `capabilities`: what `GetCapabilities` answers (`actions` makes the daemon offer them).
    public init(busAddress: String, capabilities: [String] = ["body", "actions"]) throws {
        address = busAddress
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        let parameters = #"{"capabilities": "\#(capabilities.joined(separator: " "))"}"#
        process = try ChildProcess(
            "/usr/bin/timeout",
            ["120", "/usr/bin/python3", "-m", "dbusmock", "--template", "notification_daemon", "-p", parameters],
            environment: environment)
        let client = try BlockingBus(.address(busAddress))
        guard waitUntil(timeout: 10, { (try? client.nameOwner("org.freedesktop.Notifications")) != nil }) else {
            process.terminate()
            throw TestSupportError("python3-dbusmock's notification_daemon did not start (apt-get install python3-dbusmock)")
        }
    }

    deinit { process.terminate(grace: 1) }

    /// Every method call the server received, by name and arguments.
    public func calls() throws -> [(method: String, arguments: [DBusValue], at: Double)] {
        let client = try BlockingBus(.address(address))
        let reply = try client.call(
            destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
            interface: "org.freedesktop.DBus.Mock", member: "GetCalls", autoStart: false)
        return (reply.first?.array ?? []).compactMap { call in
            guard let fields = call.fields, fields.count == 3, case .uint64(let at) = fields[0],
                let method = fields[1].string
            else { return nil }
            return (method, (fields[2].array ?? []).map(\.unwrapped), Double(at))
        }
    }

    /// The `Notify` calls, in order.
    public func notifications() throws -> [Notification] {
        try calls().filter { $0.method == "Notify" }.compactMap { call in
            let a = call.arguments
            guard a.count == 8, let app = a[0].string, case .uint32(let replaces) = a[1], let summary = a[3].string,
                let body = a[4].string
            else { return nil }
            return Notification(
                appName: app, replacesID: replaces, summary: summary, body: body,
                actions: (a[5].array ?? []).compactMap(\.string), hints: a[6].vardict ?? [:], at: call.at)
        }
    }

    /// The ids the daemon closed (`CloseNotification`), in order.
    public func closed() throws -> [UInt32] {
        try calls().filter { $0.method == "CloseNotification" }.compactMap {
            if case .int32(let id) = $0.arguments.first { return UInt32(id) }
            if case .uint32(let id) = $0.arguments.first { return id }
            return nil
        }
    }

    /// Sends `ActionInvoked(id, key)` from the server, as a click on the action does.
    public func invoke(_ key: String, on id: UInt32) throws {
        let client = try BlockingBus(.address(address))
        _ = try client.call(
            destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
            interface: "org.freedesktop.DBus.Mock", member: "EmitSignal",
            [
                .string("org.freedesktop.Notifications"), .string("ActionInvoked"), .signature("us"),
                .array(.variant, [.variant(.uint32(id)), .variant(.string(key))]),
            ], autoStart: false)
    }
}
