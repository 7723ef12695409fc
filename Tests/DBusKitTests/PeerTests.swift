import Foundation
import Testing

@testable import DBusKit
import TestSupport

/// Independent peers against DBusKit on a private bus: busctl (systemd), gdbus (GLib),
/// dbus-send (the reference tools) and python3-dbus calling the Swift test service of
/// `BusTests.startService`, and DBusKit's client calling and subscribing to a python3-dbus
/// service (Tests/peers/py_service.py). Every peer runs with a bounded time.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct PeerTests {
    static let name = BusTests.name
    static let path = BusTests.path
    static let iface = BusTests.iface
    static let python = "/usr/bin/python3"
    static let peers = repositoryRoot.appendingPathComponent("Tests/peers")

    /// A private bus with the Swift test service on it.
    final class Fixture: @unchecked Sendable {
        let daemon: PrivateBus
        let service: Bus
        let state = BusTests.ServiceState()
        init() throws {
            daemon = try PrivateBus()
            service = try Bus(.address(daemon.address))
            try BusTests.startService(service, state: state)
        }
        var address: String { daemon.address }
        deinit {
            service.close()
            daemon.stop()
        }

        func run(_ tool: String, _ arguments: [String], timeout: TimeInterval = 15) throws -> ProcessResult {
            try runProcess(tool, arguments, environment: daemon.environment, timeout: timeout)
        }
        func busctl(_ arguments: [String]) throws -> ProcessResult {
            // "--" ends busctl's options, so negative numbers are arguments.
            let options = arguments.prefix { $0.hasPrefix("--") }
            return try run("/usr/bin/busctl", ["--address=\(address)"] + options + ["--"] + arguments.dropFirst(options.count))
        }
        func gdbus(_ command: String, _ arguments: [String]) throws -> ProcessResult {
            try run("/usr/bin/gdbus", [command, "--address", address] + arguments)
        }
        func dbusSend(_ arguments: [String]) throws -> ProcessResult {
            try run("/usr/bin/dbus-send", ["--bus=\(address)", "--print-reply", "--dest=\(PeerTests.name)"] + arguments)
        }
    }

    static func trimmed(_ s: String) -> String { s.trimmingCharacters(in: .whitespacesAndNewlines) }

    // MARK: - busctl

    @Test func busctlCallsWithSeveralTypes() throws {
        let f = try Fixture()
        let cases: [([String], String)] = [
            (["Echo", "v", "s", "hello"], #"v s "hello""#),
            // busctl prints non-ASCII bytes as octal escapes.
            (["Echo", "v", "s", "R&D ✓ \"q\""], #"v s "R&D \342\234\223 \"q\"""#),
            (["Echo", "v", "ai", "3", "1", "2", "3"], "v ai 3 1 2 3"),
            (["Echo", "v", "ai", "0"], "v ai 0"),
            (["Echo", "v", "ay", "3", "1", "2", "255"], "v ay 3 1 2 255"),
            (["Echo", "v", "ay", "0"], "v ay 0"),
            (["Echo", "v", "a{sv}", "1", "k", "s", "v"], #"v a{sv} 1 "k" s "v""#),
            (["Echo", "v", "(sxb)", "str", "-5", "true"], #"v (sxb) "str" -5 true"#),
            (["Echo", "v", "t", "18446744073709551615"], "v t 18446744073709551615"),
            (["Echo", "v", "o", "/a/b"], #"v o "/a/b""#),
            (["Echo", "v", "v", "d", "2.5"], "v v d 2.5"),
            (["Sum", "ax", "3", "1", "2", "-10"], "x -7"),
        ]
        for (arguments, expected) in cases {
            let r = try f.busctl(["call", Self.name, Self.path, Self.iface] + arguments)
            #expect(r.status == 0, "\(arguments): \(r.stderr)")
            #expect(Self.trimmed(r.stdout) == expected, "\(arguments)")
        }
        // JSON output gives the exact structure back.
        let json = try f.busctl(["--json=short", "call", Self.name, Self.path, Self.iface, "Echo", "v", "a{sv}", "1", "k", "ai", "2", "7", "8"])
        #expect(Self.trimmed(json.stdout) == #"{"type":"v","data":[{"type":"a{sv}","data":{"k":{"type":"ai","data":[7,8]}}}]}"#)
        #expect(f.service.isConnected)
        let state = f.state
        #expect(try f.service.sync { state.calls } == UInt32(cases.count + 1))
    }

    @Test func busctlSeesNamedErrorsAndDispatchErrors() throws {
        let f = try Fixture()
        let fail = try f.busctl(["call", Self.name, Self.path, Self.iface, "Fail", "ss", "org.example.Error.Custom", "it broke"])
        #expect(fail.status != 0)
        #expect(Self.trimmed(fail.stderr) == "Call failed: it broke")
        // Wrong arguments and unknown members get the standard error names.
        let wrong = try f.busctl(["--json=short", "call", Self.name, Self.path, Self.iface, "Sum", "s", "1"])
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("'ax'"), "\(wrong.stderr)")
        let unknown = try f.busctl(["call", Self.name, Self.path, Self.iface, "Nope"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("No method Nope"), "\(unknown.stderr)")
    }

    @Test func busctlIntrospectAndTree() throws {
        let f = try Fixture()
        let r = try f.busctl(["introspect", Self.name, Self.path])
        #expect(r.status == 0, "\(r.stderr)")
        // NAME TYPE SIGNATURE RESULT/VALUE FLAGS, one row per member.
        let rows = Dictionary(
            r.stdout.split(separator: "\n").dropFirst().map { line in
                let cells = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
                return (cells[0], Array(cells.dropFirst()))
            }, uniquingKeysWith: { a, _ in a })
        #expect(rows[Self.iface] == ["interface", "-", "-", "-"])
        #expect(rows[".Echo"] == ["method", "v", "v", "-"])
        #expect(rows[".Sum"] == ["method", "ax", "x", "-"])
        #expect(rows[".Fail"] == ["method", "ss", "-", "-"])
        #expect(rows[".Emit"] == ["method", "s", "-", "-"])
        #expect(rows[".Emitted"] == ["signal", "s", "-", "-"])
        // Property rows carry the current value, read through Properties.GetAll.
        #expect(rows[".Calls"] == ["property", "u", "0", "emits-change"])
        #expect(rows[".Label"] == ["property", "s", "\"initial\"", "emits-change", "writable"])
        #expect(rows[".Tags"] == ["property", "as", "2", "\"a\"", "\"b\"", "emits-invalidation"])
        for standard in ["org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Peer"] {
            #expect(rows[standard]?.first == "interface", "\(standard) is listed")
        }
        #expect(rows[".GetAll"] == ["method", "s", "a{sv}", "-"])
        #expect(rows[".PropertiesChanged"] == ["signal", "sa{sv}as", "-", "-"])

        let tree = try f.busctl(["--list", "tree", Self.name])
        #expect(tree.status == 0, "\(tree.stderr)")
        #expect(tree.stdout.split(separator: "\n").map(String.init) == ["/", "/org", "/org/biomatimer", "/org/biomatimer/Test"])
    }

    @Test func busctlPropertiesAndPeer() throws {
        let f = try Fixture()
        func get(_ property: String) throws -> String {
            let r = try f.busctl(["get-property", Self.name, Self.path, Self.iface, property])
            #expect(r.status == 0, "\(property): \(r.stderr)")
            return Self.trimmed(r.stdout)
        }
        #expect(try get("Label") == #"s "initial""#)
        #expect(try get("Tags") == #"as 2 "a" "b""#)
        #expect(try get("Calls") == "u 0")
        let set = try f.busctl(["set-property", Self.name, Self.path, Self.iface, "Label", "s", "from busctl ✓"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try get("Label") == #"s "from busctl \342\234\223""#)
        let state = f.state
        #expect(try f.service.sync { state.label } == "from busctl ✓")
        let readOnly = try f.busctl(["set-property", Self.name, Self.path, Self.iface, "Calls", "u", "5"])
        #expect(readOnly.status != 0)
        let wrongType = try f.busctl(["set-property", Self.name, Self.path, Self.iface, "Label", "u", "5"])
        #expect(wrongType.status != 0)
        #expect(try get("Label") == #"s "from busctl \342\234\223""#)
        // Peer is answered too.
        let ping = try f.busctl(["call", Self.name, Self.path, "org.freedesktop.DBus.Peer", "Ping"])
        #expect(ping.status == 0, "\(ping.stderr)")
    }

    // MARK: - gdbus

    @Test func gdbusCallsAndSeesErrorNames() throws {
        let f = try Fixture()
        func call(_ method: String, _ arguments: [String]) throws -> ProcessResult {
            try f.gdbus("call", ["--dest", Self.name, "--object-path", Self.path, "--method", "\(Self.iface).\(method)"] + arguments)
        }
        let cases: [(String, [String], String)] = [
            ("Echo", [#"<"hi ✓">"#], #"(<'hi ✓'>,)"#),
            ("Echo", ["<@ai [1, 2, 3]>"], "(<[1, 2, 3]>,)"),
            ("Echo", ["<@as []>"], "(<@as []>,)"),
            ("Echo", [#"<{"k": <int64 5>}>"#], "(<{'k': <int64 5>}>,)"),
            ("Echo", [#"<("s", byte 7, true)>"#], "(<('s', byte 0x07, true)>,)"),
            ("Sum", ["[1, 2, 3]"], "(int64 6,)"),
        ]
        for (method, arguments, expected) in cases {
            let r = try call(method, arguments)
            #expect(r.status == 0, "\(arguments): \(r.stderr)")
            #expect(Self.trimmed(r.stdout) == expected, "\(arguments)")
        }
        let fail = try call("Fail", ["org.example.Error.Custom", "it broke"])
        #expect(fail.status != 0)
        #expect(Self.trimmed(fail.stderr) == "Error: GDBus.Error:org.example.Error.Custom: it broke")
        let unknown = try f.gdbus("call", ["--dest", Self.name, "--object-path", "/nowhere", "--method", "\(Self.iface).Echo", "<1>"])
        #expect(unknown.stderr.contains("GDBus.Error:org.freedesktop.DBus.Error.UnknownObject:"), "\(unknown.stderr)")
        let props = try f.gdbus(
            "call", ["--dest", Self.name, "--object-path", Self.path, "--method", "org.freedesktop.DBus.Properties.Get", Self.iface, "Tags"])
        #expect(Self.trimmed(props.stdout) == "(<['a', 'b']>,)")
    }

    @Test func gdbusIntrospect() throws {
        let f = try Fixture()
        let r = try f.gdbus("introspect", ["--dest", Self.name, "--object-path", Self.path])
        #expect(r.status == 0, "\(r.stderr)")
        let text = r.stdout
        for fragment in [
            "interface \(Self.iface) {", "Echo(in  v value,", "out v value);", "Sum(in  ax values,", "out x sum);",
            "Fail(in  s name,", "in  s message);", "Emit(in  s text);", "Emitted(s text);",
            "readonly u Calls = 0;", "readwrite s Label = 'initial';", "readonly as Tags = ['a', 'b'];",
            "interface org.freedesktop.DBus.Properties {", "interface org.freedesktop.DBus.Introspectable {",
        ] {
            #expect(text.contains(fragment), "introspection shows \(fragment)")
        }
        let tree = try f.gdbus("introspect", ["--dest", Self.name, "--object-path", "/org", "--recurse", "--only-properties"])
        #expect(tree.stdout.contains("node /org/biomatimer/Test {"), "\(tree.stdout)")
    }

    /// `gdbus monitor` sees the service's signals: one emitted from a method handler
    /// (caller: gdbus) and PropertiesChanged emitted by the service's owner.
    @Test func gdbusMonitorSeesSignals() throws {
        let f = try Fixture()
        let monitor = try ChildProcess(
            "/usr/bin/timeout", ["10", "/usr/bin/gdbus", "monitor", "--address", f.address, "--dest", Self.name],
            environment: f.daemon.environment)
        defer { monitor.terminate() }
        // gdbus prints which unique name owns the destination once it is listening.
        var seen: [String] = []
        while let line = monitor.readLine() {
            seen.append(line)
            if line.contains("is owned by") { break }
        }
        #expect(seen.last?.contains("is owned by \(f.service.uniqueName)") == true, "\(seen)")
        let emit = try f.gdbus("call", ["--dest", Self.name, "--object-path", Self.path, "--method", "\(Self.iface).Emit", "via gdbus"])
        #expect(emit.status == 0, "\(emit.stderr)")
        try f.service.emitPropertiesChanged(path: Self.path, interface: Self.iface, changed: [("Label", .string("new"))], invalidated: ["Tags"])
        var signals: [String] = []
        while signals.count < 2, let line = monitor.readLine() { signals.append(line) }
        #expect(signals == [
            "\(Self.path): \(Self.iface).Emitted ('via gdbus',)",
            "\(Self.path): org.freedesktop.DBus.Properties.PropertiesChanged ('\(Self.iface)', {'Label': <'new'>}, ['Tags'])",
        ])
    }

    // MARK: - dbus-send

    @Test func dbusSendCallsAndSeesErrorNames() throws {
        let f = try Fixture()
        func lines(_ r: ProcessResult) -> [String] {
            // The first line is the header with serials and names; the rest is the body.
            Array(r.stdout.split(separator: "\n").dropFirst().map { Self.trimmed(String($0)) })
        }
        let echo = try f.dbusSend([Self.path, "\(Self.iface).Echo", "variant:string:hello ✓"])
        #expect(echo.status == 0, "\(echo.stderr)")
        #expect(lines(echo) == [#"variant       string "hello ✓""#])
        let int = try f.dbusSend([Self.path, "\(Self.iface).Echo", "variant:int32:-42"])
        #expect(lines(int) == ["variant       int32 -42"])
        let sum = try f.dbusSend([Self.path, "\(Self.iface).Sum", "array:int64:1,2,3,4"])
        #expect(lines(sum) == ["int64 10"])
        let fail = try f.dbusSend([Self.path, "\(Self.iface).Fail", "string:org.example.Error.Custom", "string:it broke"])
        #expect(fail.status != 0)
        #expect(Self.trimmed(fail.stderr) == "Error org.example.Error.Custom: it broke")
        let wrong = try f.dbusSend([Self.path, "\(Self.iface).Sum", "string:1"])
        #expect(wrong.stderr.hasPrefix("Error org.freedesktop.DBus.Error.InvalidArgs:"), "\(wrong.stderr)")
        let readOnly = try f.dbusSend([Self.path, "org.freedesktop.DBus.Properties.Set", "string:\(Self.iface)", "string:Calls", "variant:uint32:3"])
        #expect(readOnly.stderr.hasPrefix("Error org.freedesktop.DBus.Error.PropertyReadOnly:"), "\(readOnly.stderr)")
        let get = try f.dbusSend([Self.path, "org.freedesktop.DBus.Properties.Get", "string:\(Self.iface)", "string:Label"])
        #expect(lines(get) == [#"variant       string "initial""#])
    }

    // MARK: - python3-dbus

    /// A python3-dbus client calls the Swift service, checks errors by name and receives its signals.
    @Test func pythonClientCallsSwiftService() throws {
        let f = try Fixture()
        let client = try ChildProcess(
            "/usr/bin/timeout", ["30", Self.python, Self.peers.appendingPathComponent("py_client.py").path],
            environment: f.daemon.environment)
        defer { client.terminate() }
        var lines: [String] = []
        while let line = client.readLine() {
            lines.append(line)
            if line == "listening: True" {
                try f.service.emitPropertiesChanged(
                    path: Self.path, interface: Self.iface, changed: [("Label", .string("set by python"))], invalidated: ["Tags"])
            }
        }
        let status = client.wait()
        let errors = client.stderr.map { String(decoding: $0.readDataToEndOfFile(), as: UTF8.self) } ?? ""
        #expect(status == 0, "\(errors)")
        #expect(lines == [
            "echo string: 'héllo ✓'",
            "echo int16: -7",
            "echo uint64: 18446744073709551615",
            "echo double: 2.5",
            "echo ai: ('i', [1, 2, 3])",
            "echo empty as: ('s', [])",
            "echo a{sv}: ('sv', {'k': 'v'})",
            "echo (sx): ('Struct', 's', 5)",
            "echo objectpath: 'ObjectPath'",
            "sum: -7",
            "fail: 'org.example.Error.Custom|it broke'",
            "bad args: 'org.freedesktop.DBus.Error.InvalidArgs'",
            "unknown method: 'org.freedesktop.DBus.Error.UnknownMethod'",
            "get Label: 'initial'",
            "read-only: 'org.freedesktop.DBus.Error.PropertyReadOnly'",
            "listening: True",
            "signals: [('Emitted', 'from python'), ('PropertiesChanged', 'org.biomatimer.Test.Echo', [('Label', 'set by python')], ['Tags'])]",
            "get Label after Set: 'set by python'",
            "GetAll keys: ['Calls', 'Label', 'Tags']",
            "done: True",
        ])
    }

    /// Starts Tests/peers/py_service.py on the fixture's bus and waits for its "ready".
    static func startPythonService(_ daemon: PrivateBus) throws -> ChildProcess {
        let service = try ChildProcess(
            "/usr/bin/timeout", ["60", python, peers.appendingPathComponent("py_service.py").path],
            environment: daemon.environment)
        guard service.readLine() == "ready" else {
            service.terminate()
            let errors = service.stderr.map { String(decoding: $0.readDataToEndOfFile(), as: UTF8.self) } ?? ""
            throw TestSupportError("py_service.py did not start: \(errors)")
        }
        return service
    }

    static let pyName = "org.biomatimer.Test.Py"
    static let pyIface = "org.biomatimer.Test.Py"

    /// DBusKit's clients call a python3-dbus service: values round-trip through python's own
    /// marshalling, named errors keep their names, and signals arrive through a match rule.
    @Test func swiftClientCallsPythonService() async throws {
        let daemon = try PrivateBus()
        let python = try Self.startPythonService(daemon)
        defer { python.terminate() }
        let bus = try Bus(.address(daemon.address))
        defer { bus.close() }

        // Values python gives back with the same type (it keeps the D-Bus types it received).
        let values: [DBusValue] = [
            .byte(255), .boolean(true), .int16(-3), .uint16(65535), .int32(Int32.min), .uint32(UInt32.max),
            .int64(Int64.min), .uint64(UInt64.max), .double(-0.5), .string(""), .string("R&D ✓ 🚀"),
            .objectPath("/org/x"), .signature("a{sv}"), .array(.int32, []), .strings(["a", "ü"]),
            .vardict(["Name": .string("x"), "N": .int64(3), "Nested": .vardict(["Deep": .array(.byte, [.byte(1)])])]),
            .dictionary(key: .uint32, value: .string, [(.uint32(1), .string("one"))]),
            .structure([.string("s"), .int64(5), .boolean(false)]),
            .array(.structure([.string, .int32]), [.structure([.string("a"), .int32(1)])]),
        ]
        for value in values {
            let reply = try await bus.call(
                destination: Self.pyName, path: Self.path, interface: Self.pyIface, member: "Echo", [.variant(value)])
            #expect(reply == [.variant(value)], "\(value)")
        }
        #expect(try await bus.call(destination: Self.pyName, path: Self.path, interface: Self.pyIface, member: "Add", [.int64(40), .int64(2)]) == [.int64(42)])

        // Named errors arrive with their names, from the async and the blocking client.
        await #expect(throws: BusError.remote(name: "org.example.Error.Custom", message: "it broke")) {
            try await bus.call(
                destination: Self.pyName, path: Self.path, interface: Self.pyIface, member: "Fail",
                [.string("org.example.Error.Custom"), .string("it broke")])
        }
        let blocking = try BlockingBus(.address(daemon.address))
        let blockingFail = Result { () throws(BusError) in
            try blocking.call(
                destination: Self.pyName, path: Self.path, interface: Self.pyIface, member: "Fail",
                [.string("org.biomatimer.Error.Other"), .string("second ✓")])
        }
        #expect(blockingFail.errorValue == .remote(name: "org.biomatimer.Error.Other", message: "second ✓"))
        let wrongArgs = Result { () throws(BusError) in
            try blocking.call(destination: Self.pyName, path: Self.path, interface: Self.pyIface, member: "Add", [.string("x")])
        }
        if case .failure(.remote(let name, _)) = wrongArgs {
            #expect(name.hasPrefix("org.freedesktop.DBus.Python.") || name.hasPrefix("org.freedesktop.DBus.Error."), "\(name)")
        } else {
            Issue.record("python accepted wrong arguments: \(wrongArgs)")
        }

        // Signals through a match rule naming the well-known sender.
        let received = Received()
        let token = try bus.subscribe(MatchRule(sender: Self.pyName, path: Self.path, interface: Self.pyIface, member: "Pinged")) {
            received.append($0)
        }
        _ = try await bus.call(destination: Self.pyName, path: Self.path, interface: Self.pyIface, member: "Ping", [.string("héllo")])
        _ = try blocking.call(destination: Self.pyName, path: Self.path, interface: Self.pyIface, member: "Ping", [.string("")])
        #expect(received.wait(count: 2))
        let signals = received.messages
        #expect(signals.map(\.arguments) == [
            [.string("héllo"), .vardict(["Length": .int64(5)])],
            [.string(""), .vardict(["Length": .int64(0)])],
        ])
        #expect(signals.allSatisfy { $0.signature == "sa{sv}" && $0.member == "Pinged" })
        bus.unsubscribe(token)

        // The python service goes away: the owner watch says so.
        let owners = Received()
        try bus.watchNameOwner(Self.pyName) { owners.appendOwner($0) }
        #expect(owners.waitOwners(count: 1))
        #expect(owners.owners.first??.hasPrefix(":") == true)
        python.terminate()
        #expect(owners.waitOwners(count: 2))
        #expect(owners.owners.last == .some(nil))
        if case .failure(.remote(let name, _)) = Result(catching: { () throws(BusError) in
            try blocking.call(destination: Self.pyName, path: Self.path, interface: Self.pyIface, member: "Add", [.int64(1), .int64(1)], autoStart: false)
        }) {
            #expect(name == "org.freedesktop.DBus.Error.NameHasNoOwner")
        } else {
            Issue.record("a call to a vanished service did not fail with NameHasNoOwner")
        }
    }

    // MARK: - Invalid input from callers

    /// Everything a caller can hand the client API that libdbus would abort on gives a
    /// BusError instead; the connection stays usable afterwards.
    @Test func invalidInputFromCallersIsAnErrorNotACrash() async throws {
        let f = try Fixture()
        let blocking = try BlockingBus(.address(f.address))
        let bus = try Bus(.address(f.address))
        defer { bus.close() }
        let good = (destination: Self.name, path: Self.path, interface: Self.iface, member: "Echo")
        let badCalls: [(String, String, String, String, [DBusValue], BusError?)] = [
            ("not a name", good.path, good.interface, good.member, [], .invalidName(.busName, "not a name")),
            ("org.x\u{0}y", good.path, good.interface, good.member, [], .invalidName(.busName, "org.x\u{0}y")),
            ("", good.path, good.interface, good.member, [], .invalidName(.busName, "")),
            (good.destination, "relative", good.interface, good.member, [], .invalidName(.objectPath, "relative")),
            (good.destination, "/trailing/", good.interface, good.member, [], .invalidName(.objectPath, "/trailing/")),
            (good.destination, "/a\u{0}b", good.interface, good.member, [], .invalidName(.objectPath, "/a\u{0}b")),
            (good.destination, "/é", good.interface, good.member, [], .invalidName(.objectPath, "/é")),
            (good.destination, good.path, "nodots", good.member, [], .invalidName(.interfaceName, "nodots")),
            (good.destination, good.path, "a..b", good.member, [], .invalidName(.interfaceName, "a..b")),
            (good.destination, good.path, good.interface, "Echo.Twice", [], .invalidName(.memberName, "Echo.Twice")),
            (good.destination, good.path, good.interface, "", [], .invalidName(.memberName, "")),
            (good.destination, good.path, good.interface, "9Echo", [], .invalidName(.memberName, "9Echo")),
            (good.destination, good.path, good.interface, good.member, [.variant(.string("nul\u{0}"))], nil),
            (good.destination, good.path, good.interface, good.member, [.variant(.objectPath("no/slash"))], .invalidName(.objectPath, "no/slash")),
            (good.destination, good.path, good.interface, good.member, [.variant(.signature("a{vs}"))], nil),
            (good.destination, good.path, good.interface, good.member, [.variant(.array(.int32, [.string("x")]))], .typeMismatch(expected: "i", actual: "s")),
            // Arrays of numbers (bytes are copied in one call) still check every element's type.
            (good.destination, good.path, good.interface, good.member, [.array(.byte, [.byte(1), .int32(2)])], .typeMismatch(expected: "y", actual: "i")),
            (good.destination, good.path, good.interface, good.member, [.array(.int32, [.int32(1), .uint32(2)])], .typeMismatch(expected: "i", actual: "u")),
            (good.destination, good.path, good.interface, good.member, [.variant(.structure([]))], nil),
            (good.destination, good.path, good.interface, good.member, [.dictEntry(.string("k"), .int32(1))], nil),
            (good.destination, good.path, good.interface, good.member, [BusTests.deepArray(80)], nil),
        ]
        for (destination, path, interface, member, arguments, expected) in badCalls {
            let label = "\(BusError.quote(destination)) \(BusError.quote(path)) \(BusError.quote(interface)) \(BusError.quote(member)) \(arguments)"
            let viaBlocking = Result { () throws(BusError) in
                try blocking.call(destination: destination, path: path, interface: interface, member: member, arguments)
            }
            let viaBus = Result { () throws(BusError) in
                try bus.callBlocking(destination: destination, path: path, interface: interface, member: member, arguments)
            }
            var viaAsync: Result<[DBusValue], BusError> = .success([])
            do {
                viaAsync = .success(try await bus.call(destination: destination, path: path, interface: interface, member: member, arguments))
            } catch {
                viaAsync = .failure(error)
            }
            for result in [viaBlocking, viaBus, viaAsync] {
                guard case .failure(let error) = result else {
                    Issue.record("accepted: \(label)")
                    continue
                }
                if case .remote = error { Issue.record("reached the bus: \(label): \(error)") }
                if let expected { #expect(error == expected, "\(label)") }
            }
        }

        // Match rules: every field is checked before the bus sees the rule.
        let badRules: [MatchRule] = [
            MatchRule(sender: "bad sender"),
            MatchRule(sender: "org.x\u{0}"),
            MatchRule(path: "not/a/path"),
            MatchRule(path: "/x/"),
            MatchRule(interface: "nodots"),
            MatchRule(interface: "a.b'c"),
            MatchRule(member: "a.b"),
            MatchRule(member: "x',type='method_call"),
            MatchRule(arg0: "nul\u{0}"),
        ]
        for rule in badRules {
            let result = Result { () throws(BusError) in try bus.subscribe(rule) { _ in } }
            guard case .failure(let error) = result else {
                Issue.record("subscribed with \(rule)")
                continue
            }
            if case .remote = error { Issue.record("rule reached the bus: \(rule): \(error)") }
        }
        // An apostrophe in arg0 is quoted, not an injection: the rule is accepted and exact.
        let quoted = Received()
        try bus.subscribe(MatchRule(interface: Self.iface, member: "Emitted", arg0: "it's")) { quoted.append($0) }
        _ = try blocking.call(destination: Self.name, path: Self.path, interface: Self.iface, member: "Emit", [.string("its")])
        _ = try blocking.call(destination: Self.name, path: Self.path, interface: Self.iface, member: "Emit", [.string("it's")])
        #expect(quoted.wait(count: 1))
        #expect(quoted.messages.map(\.arguments) == [[.string("it's")]])

        // The other entry points taking names and paths.
        #expect(throws: BusError.invalidName(.objectPath, "x")) { try bus.emit(path: "x", interface: "a.b", member: "S") }
        #expect(throws: BusError.invalidName(.interfaceName, "x")) { try bus.emit(path: "/x", interface: "x", member: "S") }
        #expect(throws: BusError.invalidName(.memberName, "S-1")) { try bus.emit(path: "/x", interface: "a.b", member: "S-1") }
        #expect(throws: BusError.self) { try bus.emit(path: "/x", interface: "a.b", member: "S", [.string("\u{0}")]) }
        #expect(throws: BusError.self) {
            try bus.emitPropertiesChanged(path: "/x", interface: "a.b", changed: [("K", .signature("(("))])
        }
        #expect(throws: BusError.invalidName(.busName, "no")) { try bus.requestName("no") }
        #expect(throws: BusError.invalidName(.busName, ":1.1\u{0}")) { try bus.releaseName(":1.1\u{0}") }
        #expect(throws: BusError.invalidName(.busName, "a b")) { try bus.watchNameOwner("a b") { _ in } }
        #expect(throws: BusError.invalidName(.busName, "-")) { try blocking.nameOwner("-") }
        #expect(throws: BusError.invalidName(.objectPath, "")) { try bus.export(ExportedObject(path: "", interfaces: [])) }
        #expect(throws: BusError.self) {
            try BusMessage.signal(path: "/x", interface: "a.b", member: "S", arguments: [.array(.dictEntry(.variant, .int32), [])])
        }
        #expect(throws: BusError.self) { try BlockingBus(.address("")) }
        #expect(throws: BusError.self) { try Bus(.address("nonsense-without-colon")) }
        #expect(throws: BusError.self) { try Bus(.address("unix:path=/nonexistent/\u{0}")) }

        // Both connections, and the service, still work.
        #expect(try blocking.call(destination: Self.name, path: Self.path, interface: Self.iface, member: "Echo", [.variant(.string("still here"))]) == [.variant(.string("still here"))])
        #expect(try await bus.call(destination: Self.name, path: Self.path, interface: Self.iface, member: "Sum", [.array(.int64, [.int64(2)])]) == [.int64(2)])
        #expect(bus.isConnected && f.service.isConnected)
    }
}

extension Result {
    var errorValue: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}
