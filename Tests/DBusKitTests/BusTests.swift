import CSystem
import Foundation
import Testing

@testable import DBusKit
import TestSupport

/// A Swift service on a real private bus, exercised by DBusKit's own client and by
/// independent clients (busctl, gdbus, dbus-send), and a python3-dbus service called by DBusKit.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct BusTests {
    static let name = "org.biomatimer.Test.Swift"
    static let path = "/org/biomatimer/Test"
    static let iface = "org.biomatimer.Test.Echo"

    /// State touched only on the service bus's loop thread.
    final class ServiceState: @unchecked Sendable {
        var label = "initial"
        var calls: UInt32 = 0
    }

    static func startService(_ bus: Bus, state: ServiceState = ServiceState()) throws {
        let interface = DBusInterface(
            iface,
            methods: [
                DBusMethod("Echo", in: [.init("value", "v")], out: [.init("value", "v")]) { call in
                    state.calls += 1
                    return [call.arguments[0]]
                },
                DBusMethod("Sum", in: [.init("values", "ax")], out: [.init("sum", "x")]) { call in
                    state.calls += 1
                    return [.int64(call.arguments[0].array!.reduce(0) { $0 + $1.int64! })]
                },
                DBusMethod("Fail", in: [.init("name", "s"), .init("message", "s")]) { call in
                    throw DBusMethodError(call.arguments[0].string!, call.arguments[1].string!)
                },
                DBusMethod("Emit", in: [.init("text", "s")]) { call in
                    try bus.emit(path: path, interface: iface, member: "Emitted", [call.arguments[0]])
                    return []
                },
            ],
            properties: [
                DBusProperty("Calls", "u") { .uint32(state.calls) },
                DBusProperty("Label", "s", get: { .string(state.label) }, set: { state.label = $0.string! }),
                DBusProperty("Tags", "as", changeSignal: .invalidates) { .strings(["a", "b"]) },
            ],
            signals: [DBusSignal("Emitted", [.init("text", "s")])])
        try bus.export(ExportedObject(path: path, interfaces: [interface]))
        try bus.requestName(name)
    }

    static let roundTripValues: [DBusValue] = [
        .byte(0), .byte(255), .boolean(true), .boolean(false), .int16(Int16.min), .uint16(UInt16.max),
        .int32(Int32.min), .uint32(UInt32.max), .int64(Int64.min), .int64(Int64.max), .uint64(UInt64.max),
        .double(3.25), .double(-Double.infinity), .string(""), .string("R&D <b>\"x\"</b> ✓ 🚀 \u{7}"),
        .objectPath("/"), .objectPath("/org/biomatimer/Timer1"), .signature(""), .signature("a{sv}(ii)"),
        .array(.int32, []), .array(.array(.dictEntry(.string, .variant)), []), .array(.structure([.string, .int64]), []),
        .strings(["a", "", "ü"]), .array(.int64, [.int64(1), .int64(-2)]),
        .array(.array(.string), [.strings([]), .strings(["x"])]),
        .vardict([:]), .vardict(["Name": .string("x"), "Nested": .vardict(["Deep": .array(.byte, [.byte(1)])])]),
        .dictionary(key: .uint32, value: .string, [(.uint32(1), .string("one")), (.uint32(2), .string("two"))]),
        .dictionary(key: .objectPath, value: .array(.dictEntry(.string, .variant)), [(.objectPath("/a"), .vardict(["k": .boolean(true)]))]),
        .structure([.int32(1)]), .structure([.string("s"), .structure([.double(1.5), .array(.variant, [])])]),
        .variant(.variant(.string("twice"))),
        deepArray(30),
    ]

    static func deepArray(_ depth: Int) -> DBusValue {
        var value: DBusValue = .array(.int32, [.int32(7)])
        for _ in 1..<depth { value = .array(value.type, [value]) }
        return value
    }

    @Test func everyTypeRoundTripsThroughTheBus() async throws {
        let daemon = try PrivateBus()
        let service = try Bus(.address(daemon.address))
        defer { service.close() }
        try Self.startService(service)
        let client = try Bus(.address(daemon.address))
        defer { client.close() }
        for value in Self.roundTripValues {
            let reply = try await client.call(
                destination: Self.name, path: Self.path, interface: Self.iface, member: "Echo", [.variant(value)])
            #expect(reply == [.variant(value)], "\(value)")
        }
        // The blocking client, as a short-lived command uses it, sees the same.
        let blocking = try BlockingBus(.address(daemon.address))
        for value in Self.roundTripValues {
            let reply = try blocking.call(
                destination: Self.name, path: Self.path, interface: Self.iface, member: "Echo", [.variant(value)])
            #expect(reply == [.variant(value)], "\(value)")
        }
    }

    @Test func fileDescriptorsPass() async throws {
        let daemon = try PrivateBus()
        let service = try Bus(.address(daemon.address))
        defer { service.close() }
        try Self.startService(service)
        let client = try BlockingBus(.address(daemon.address))
        var fds: [Int32] = [0, 0]
        #expect(csystem_pipe_cloexec(&fds) == 0)
        defer {
            Glibc.close(fds[0])
            Glibc.close(fds[1])
        }
        let reply = try client.call(
            destination: Self.name, path: Self.path, interface: Self.iface, member: "Echo", [.variant(.unixFD(fds[1]))])
        guard case .variant(.unixFD(let received))? = reply.first else {
            Issue.record("expected a handle, got \(reply)")
            return
        }
        defer { Glibc.close(received) }
        var a = stat()
        var b = stat()
        fstat(fds[1], &a)
        fstat(received, &b)
        #expect(a.st_ino == b.st_ino, "the descriptor that came back is the same pipe")
    }

    /// Decoding a received descriptor dups it: calls that cannot take one are refused before
    /// decoding, so a peer sending descriptors cannot drain the service's.
    @Test func unexpectedFileDescriptorsAreRefusedWithoutLeaking() throws {
        let daemon = try PrivateBus()
        let service = try Bus(.address(daemon.address))
        defer { service.close() }
        try Self.startService(service)
        let client = try BlockingBus(.address(daemon.address))
        func openDescriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }
        let before = openDescriptors()
        let rounds = 300
        for _ in 0..<rounds {
            for (interface, member, args) in [
                ("org.freedesktop.DBus.Properties", "Get", [DBusValue.string(Self.iface), .string("Label"), .unixFD(0)]),
                (Self.iface, "Fail", [.string("a.b.C"), .string("x"), .unixFD(0)]),
            ] {
                let result = Result { () throws(BusError) in
                    try client.call(destination: Self.name, path: Self.path, interface: interface, member: member, args)
                }
                guard case .failure(.remote(let name, _)) = result else {
                    Issue.record("\(member) with a descriptor: \(result)")
                    continue
                }
                #expect(name == "org.freedesktop.DBus.Error.InvalidArgs")
            }
        }
        // Other tests open and close descriptors in this process meanwhile, so allow for them;
        // a leak would be one descriptor per Get, `rounds` in all.
        #expect(openDescriptors() < before + rounds / 3, "descriptors leaked: \(before) → \(openDescriptors())")
    }

    @Test func namedErrorsAndDispatchErrors() async throws {
        let daemon = try PrivateBus()
        let service = try Bus(.address(daemon.address))
        defer { service.close() }
        try Self.startService(service)
        let client = try Bus(.address(daemon.address))
        defer { client.close() }

        await #expect(throws: BusError.remote(name: "org.example.Error.Custom", message: "it broke")) {
            try await client.call(
                destination: Self.name, path: Self.path, interface: Self.iface, member: "Fail",
                [.string("org.example.Error.Custom"), .string("it broke")])
        }
        // A handler that throws an invalid error name still answers, as Failed.
        await #expect(throws: BusError.remote(name: "org.freedesktop.DBus.Error.Failed", message: "x")) {
            try await client.call(
                destination: Self.name, path: Self.path, interface: Self.iface, member: "Fail",
                [.string("not a name"), .string("x")])
        }
        if let (name, message) = await remoteError({ () async throws(BusError) in try await client.call(destination: Self.name, path: Self.path, interface: Self.iface, member: "Sum", [.string("1")]) }) {
            #expect(name == "org.freedesktop.DBus.Error.InvalidArgs")
            #expect(message.contains("'ax'"))
        } else {
            Issue.record("wrong argument type accepted")
        }
        if let (name, _) = await remoteError({ () async throws(BusError) in try await client.call(destination: Self.name, path: Self.path, interface: Self.iface, member: "Nope") }) {
            #expect(name == "org.freedesktop.DBus.Error.UnknownMethod")
        } else {
            Issue.record("unknown method accepted")
        }
        if let (name, _) = await remoteError({ () async throws(BusError) in try await client.call(destination: Self.name, path: "/elsewhere", interface: Self.iface, member: "Echo") }) {
            #expect(name == "org.freedesktop.DBus.Error.UnknownObject")
        } else {
            Issue.record("unknown object accepted")
        }
        // Invalid input from the caller is an error here, never an abort in libdbus.
        await #expect(throws: BusError.invalidName(.busName, "bad name")) {
            try await client.call(destination: "bad name", path: "/", interface: "a.b", member: "M")
        }
        await #expect(throws: BusError.self) {
            try await client.call(destination: Self.name, path: Self.path, interface: Self.iface, member: "Echo", [.variant(.string("a\u{0}"))])
        }
    }

    @Test func propertiesGetSetGetAllAndChangeSignal() async throws {
        let daemon = try PrivateBus()
        let service = try Bus(.address(daemon.address))
        defer { service.close() }
        try Self.startService(service)
        let client = try Bus(.address(daemon.address))
        defer { client.close() }
        let props = "org.freedesktop.DBus.Properties"

        let label = try await client.call(destination: Self.name, path: Self.path, interface: props, member: "Get", [.string(Self.iface), .string("Label")])
        #expect(label == [.variant(.string("initial"))])
        _ = try await client.call(
            destination: Self.name, path: Self.path, interface: props, member: "Set", [.string(Self.iface), .string("Label"), .variant(.string("new"))])
        let all = try await client.call(destination: Self.name, path: Self.path, interface: props, member: "GetAll", [.string(Self.iface)])
        #expect(all.first?.vardict?["Label"] == .string("new"))
        #expect(all.first?.vardict?["Tags"] == .strings(["a", "b"]))
        if let (name, _) = await remoteError({ () async throws(BusError) in try await client.call(
                destination: Self.name, path: Self.path, interface: props, member: "Set", [.string(Self.iface), .string("Calls"), .variant(.uint32(1))]) }) {
            #expect(name == "org.freedesktop.DBus.Error.PropertyReadOnly")
        } else {
            Issue.record("read-only property was set")
        }
        if let (name, _) = await remoteError({ () async throws(BusError) in try await client.call(destination: Self.name, path: Self.path, interface: props, member: "Get", [.string(Self.iface), .string("Nope")]) }) {
            #expect(name == "org.freedesktop.DBus.Error.UnknownProperty")
        } else {
            Issue.record("unknown property read")
        }

        let received = Received()
        try client.subscribe(MatchRule(path: Self.path, interface: props, member: "PropertiesChanged")) { message in
            received.append(message)
        }
        try service.emitPropertiesChanged(path: Self.path, interface: Self.iface, changed: [("Label", .string("new"))], invalidated: ["Tags"])
        #expect(received.wait(count: 1))
        let message = try #require(received.messages.first)
        #expect(message.signature == "sa{sv}as")
        #expect(message.arguments == [.string(Self.iface), .vardict(["Label": .string("new")]), .strings(["Tags"])])
    }

    /// The loop sleeps in poll() with no timeout; a signal emitted from another thread must
    /// still leave at once, through the wake-up descriptor.
    @Test func workFromOtherThreadsWakesTheLoop() async throws {
        let daemon = try PrivateBus()
        let service = try Bus(.address(daemon.address))
        defer { service.close() }
        try Self.startService(service)
        let listener = try Bus(.address(daemon.address))
        defer { listener.close() }
        let received = Received()
        try listener.subscribe(MatchRule(interface: Self.iface, member: "Emitted")) { received.append($0) }
        try await Task.sleep(for: .milliseconds(200))  // let both loops go idle
        let sender = Thread {
            try? service.emit(path: Self.path, interface: Self.iface, member: "Emitted", [.string("from a thread")])
        }
        sender.start()
        #expect(received.wait(count: 1, timeout: 5))
        #expect(received.messages.first?.arguments == [.string("from a thread")])
    }

    @Test func singleInstanceNameOwnership() async throws {
        let daemon = try PrivateBus()
        let first = try Bus(.address(daemon.address))
        defer { first.close() }
        let lost = Received()
        try first.requestName("org.biomatimer.Test.Single", onLost: { lost.count() })
        let second = try Bus(.address(daemon.address))
        defer { second.close() }
        let refusal = Result { () throws(BusError) in try second.requestName("org.biomatimer.Test.Single") }
        if case .failure(.nameTaken(let name, let owner)) = refusal {
            #expect(name == "org.biomatimer.Test.Single")
            #expect(owner.hasPrefix(first.uniqueName))
            #expect(owner.contains("pid \(getpid())"))
        } else {
            Issue.record("a second owner was not refused by name: \(refusal)")
        }
        try second.requestName("org.biomatimer.Test.Single", replace: true)
        #expect(lost.wait(count: 1))
        let blocking = try BlockingBus(.address(daemon.address))
        #expect(try blocking.nameOwner("org.biomatimer.Test.Single") == second.uniqueName)
        #expect(try blocking.nameOwner("org.biomatimer.Test.Nobody") == nil)
    }

    @Test func nameOwnerTracking() async throws {
        let daemon = try PrivateBus()
        let watcher = try Bus(.address(daemon.address))
        defer { watcher.close() }
        let owners = Received()
        try watcher.watchNameOwner("org.biomatimer.Test.Tracked") { owners.appendOwner($0) }
        #expect(owners.waitOwners(count: 1))
        let service = try Bus(.address(daemon.address))
        try service.requestName("org.biomatimer.Test.Tracked")
        #expect(owners.waitOwners(count: 2))
        service.close()
        #expect(owners.waitOwners(count: 3))
        #expect(owners.owners == [nil, service.uniqueName, nil])
    }

    @Test func callToSilentServiceTimesOut() async throws {
        let daemon = try PrivateBus()
        // Owns a name and never reads its socket: calls to it go unanswered.
        let silent = try BlockingBus(.address(daemon.address))
        _ = try silent.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "RequestName", [.string("org.biomatimer.Test.Silent"), .uint32(4)])
        let client = try Bus(.address(daemon.address))
        defer { client.close() }
        await #expect(throws: BusError.self) {
            try await client.call(
                destination: "org.biomatimer.Test.Silent", path: "/", interface: "a.b", member: "M",
                timeout: CallTimeout(milliseconds: 200))
        }
        do {
            _ = try await client.call(
                destination: "org.biomatimer.Test.Silent", path: "/", interface: "a.b", member: "M",
                timeout: CallTimeout(milliseconds: 200))
        } catch {
            guard case .timeout = error else {
                Issue.record("expected a timeout, got \(error)")
                return
            }
        }
        let blocking = try BlockingBus(.address(daemon.address))
        #expect(throws: BusError.self) {
            try blocking.call(
                destination: "org.biomatimer.Test.Silent", path: "/", interface: "a.b", member: "M",
                timeout: CallTimeout(milliseconds: 200))
        }
    }

    @Test func lostBusIsReportedNotFatal() async throws {
        let daemon = try PrivateBus()
        let bus = try Bus(.address(daemon.address))
        let reasons = Received()
        bus.onDisconnect { _ in reasons.count() }
        daemon.stop()
        #expect(reasons.wait(count: 1))
        #expect(!bus.isConnected)
        await #expect(throws: BusError.self) {
            try await bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetId")
        }
        bus.close()
    }

    @Test func noBusGivesAClearError() {
        #expect(throws: BusError.self) { try BusAddress.session.resolve(environment: [:]) }
        do {
            _ = try BusAddress.session.resolve(environment: [:])
        } catch {
            #expect(error.description.contains("DBUS_SESSION_BUS_ADDRESS"))
        }
        #expect(throws: BusError.self) { try BlockingBus(.address("unix:path=/nonexistent/bus")) }
    }
}

/// The name and message of the D-Bus error a call fails with; nil if it succeeds or fails otherwise.
func remoteError(_ body: () async throws(BusError) -> [DBusValue]) async -> (String, String)? {
    do {
        _ = try await body()
        return nil
    } catch {
        if case .remote(let name, let message) = error { return (name, message) }
        return nil
    }
}

/// Collects what handlers on loop threads deliver, for the test thread to wait on.
final class Received: @unchecked Sendable {
    private let condition = NSCondition()
    private var _messages: [BusMessage] = []
    private var _owners: [String?] = []
    private var _count = 0

    func append(_ message: BusMessage) {
        condition.lock()
        _messages.append(message)
        _count += 1
        condition.broadcast()
        condition.unlock()
    }
    func appendOwner(_ owner: String?) {
        condition.lock()
        _owners.append(owner)
        condition.broadcast()
        condition.unlock()
    }
    func count() {
        condition.lock()
        _count += 1
        condition.broadcast()
        condition.unlock()
    }
    var messages: [BusMessage] {
        condition.lock()
        defer { condition.unlock() }
        return _messages
    }
    var owners: [String?] {
        condition.lock()
        defer { condition.unlock() }
        return _owners
    }
    func wait(count: Int, timeout: TimeInterval = 10) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while _count < count { if !condition.wait(until: end) { return _count >= count } }
        return true
    }
    func waitOwners(count: Int, timeout: TimeInterval = 10) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while _owners.count < count { if !condition.wait(until: end) { return _owners.count >= count } }
        return true
    }
}
