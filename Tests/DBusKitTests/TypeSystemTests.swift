import CDBus
import Testing

@testable import DBusKit

/// Signatures and validation, checked against libdbus's own validator where it has one.
struct TypeSystemTests {
    static let validSignatures = [
        "", "y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g", "h", "v", "ai", "as", "a{sv}", "a{oa{sa{sv}}}",
        "(i)", "(ss)", "((i)(s))", "a(sss)", "aa{sv}", "sa{sv}as", "a{ys}", "av",
        String(repeating: "a", count: 32) + "i",
        String(repeating: "(", count: 32) + "i" + String(repeating: ")", count: 32),
    ]
    static let invalidSignatures = [
        "a", "(", ")", "()", "{sv}", "a{vs}", "a{s}", "a{svs}", "(i", "i)", "z", "a{(i)s}", "ae", "r", "e", "{",
        String(repeating: "a", count: 33) + "i",
        String(repeating: "(", count: 33) + "i" + String(repeating: ")", count: 33),
        String(repeating: "i", count: 256), "s\u{0}s", "é",
    ]

    @Test(arguments: validSignatures)
    func validSignatureParsesAndRoundTrips(_ text: String) throws {
        let types = try DBusType.parse(text)
        #expect(DBusType.signature(of: types) == text)
        #expect(text.withCString { dbus_signature_validate($0, nil) } != 0)
    }

    @Test(arguments: invalidSignatures)
    func invalidSignatureIsRejected(_ text: String) {
        #expect(throws: BusError.self) { try DBusType.parse(text) }
        if !text.utf8.contains(0) {
            #expect(text.withCString { dbus_signature_validate($0, nil) } == 0, "libdbus agrees \(text) is invalid")
        }
    }

    @Test func parsedStructure() throws {
        #expect(try DBusType.parse("a{sv}") == [.array(.dictEntry(.string, .variant))])
        #expect(try DBusType.parse("sa{sv}as") == [.string, .array(.dictEntry(.string, .variant)), .array(.string)])
        #expect(try DBusType.parse("a(sss)") == [.array(.structure([.string, .string, .string]))])
    }

    @Test(arguments: ["/", "/org/biomatimer/Timer1", "/a_b/c9"])
    func validPaths(_ path: String) throws {
        try Validate.name(.objectPath, path)
    }

    @Test(arguments: ["", "org", "/org/", "//", "/a//b", "/a-b", "/a\u{0}b", "/é"])
    func invalidPaths(_ path: String) {
        #expect(throws: BusError.invalidName(.objectPath, path)) { try Validate.name(.objectPath, path) }
    }

    @Test func names() throws {
        try Validate.name(.busName, "org.biomatimer.Timer1")
        try Validate.name(.busName, ":1.42")
        try Validate.name(.interfaceName, "org.freedesktop.DBus.Properties")
        try Validate.name(.memberName, "GetAll")
        try Validate.name(.errorName, "org.biomatimer.Timer1.Error.NoSuchProject")
        for bad in ["", "org", "org..x", ".org.x", "org.x.", "1org.x", "org.x\u{0}y", String(repeating: "a.", count: 200) + "b"] {
            #expect(throws: BusError.self) { try Validate.name(.busName, bad) }
            #expect(throws: BusError.self) { try Validate.name(.interfaceName, bad) }
            #expect(throws: BusError.self) { try Validate.name(.errorName, bad) }
        }
        for bad in ["", "Get.All", "1Get", "Get-All", "Get\u{0}"] {
            #expect(throws: BusError.self) { try Validate.name(.memberName, bad) }
        }
    }

    @Test func strings() throws {
        try Validate.string("")
        try Validate.string("R&D <b>\"x\"</b> ✓ 🚀")
        #expect(throws: BusError.self) { try Validate.string("a\u{0}b") }
    }

    @Test func messagesRefuseInvalidInputBeforeLibdbusSeesIt() {
        // Each of these would abort the process inside libdbus if it got that far.
        #expect(throws: BusError.self) {
            try BusMessage.methodCall(destination: "no", path: "/a", interface: "a.b", member: "M")
        }
        #expect(throws: BusError.self) {
            try BusMessage.methodCall(destination: "a.b", path: "not/a/path", interface: "a.b", member: "M")
        }
        #expect(throws: BusError.self) {
            try BusMessage.methodCall(destination: "a.b", path: "/a", interface: "nodots", member: "M")
        }
        #expect(throws: BusError.self) {
            try BusMessage.methodCall(destination: "a.b", path: "/a", interface: "a.b", member: "M.x")
        }
        let badArguments: [DBusValue] = [
            .string("nul\u{0}inside"),
            .objectPath("relative/path"),
            .signature("a{vs}"),
            .array(.int32, [.string("not an int")]),
            .array(.dictEntry(.variant, .string), []),
            .dictEntry(.string("k"), .string("v")),
            .structure([]),
            .variant(.array(.string, [.string("ok"), .string("bad\u{0}")])),
            .vardict(["Name": .string("x\u{0}")]),
            nested(depth: 70),
        ]
        for bad in badArguments {
            #expect(throws: BusError.self, "\(bad)") {
                try BusMessage.methodCall(destination: "a.b", path: "/a", interface: "a.b", member: "M", arguments: [bad])
            }
        }
    }

    @Test func errorRepliesAreAlwaysBuildable() throws {
        let call = try BusMessage.methodCall(destination: "a.b", path: "/a", interface: "a.b", member: "M")
        #expect(call.errorReply(name: "a.b.C", message: "unsent") == nil, "no reply to a message never sent")
        dbus_message_set_serial(call.raw, 7)  // as if received
        let reply = try #require(call.errorReply(name: "not a name", message: "with \u{0} NUL"))
        #expect(reply.errorName == "org.freedesktop.DBus.Error.Failed")
        #expect(reply.arguments.first?.string == "with \u{FFFD} NUL")
    }

    @Test func messageArgumentsRoundTripWithoutABus() throws {
        let values: [DBusValue] = [
            .byte(255), .boolean(true), .int16(-32768), .uint16(65535), .int32(Int32.min), .uint32(UInt32.max),
            .int64(Int64.min), .uint64(UInt64.max), .double(-0.5), .string("✓"), .objectPath("/x/y"),
            .signature("a{sv}"), .array(.string, []), .vardict(["A": .int64(1), "B": .strings(["x"])]),
            .structure([.int32(1), .structure([.string("in")])]), .variant(.variant(.byte(1))),
        ]
        let message = try BusMessage.methodCall(destination: "a.b", path: "/a", interface: "a.b", member: "M", arguments: values)
        #expect(message.arguments == values)
        #expect(message.signature == values.map(\.signature).joined())
    }

    func nested(depth: Int) -> DBusValue {
        var value: DBusValue = .int32(1)
        for _ in 0..<depth { value = .variant(value) }
        return value
    }
}
