import Foundation
import DBusKit
import Testing

import TestSupport

/// One table per interface: the types come from the Swift values, and introspection, Get,
/// GetAll, the PropertiesChanged diff and client decoding all read the same table.
@Suite(.ownThread) struct PropertyTableTests {
    struct Sample: Equatable, Sendable {
        var on = false
        var at: Int64 = 0
        var count: UInt32 = 0
        var name = ""
        var tags: [String] = []
    }

    static let table = PropertyTable<Sample>(
        interface: "org.example.Sample1",
        [
            .init("On", \.on), .init("At", \.at, alwaysSent: true), .init("Count", \.count), .init("Name", \.name),
            .init("Tags", \.tags),
        ])

    @Test func typesFollowTheSwiftValues() {
        #expect(Self.table.columns.map(\.type.signature) == ["b", "x", "u", "s", "as"])
        #expect(Self.table.names == ["On", "At", "Count", "Name", "Tags"])
        let xml = Introspection.xml(DBusInterface(Self.table, state: { Sample() }))
        #expect(xml.contains(#"<property name="Tags" type="as" access="read"/>"#))
        #expect(xml.contains(#"<property name="At" type="x" access="read"/>"#))
    }

    @Test func changesCarryWhatChangedPlusTheAlwaysSentValues() throws {
        var before = Sample()
        before.at = 5
        var after = before
        #expect(Self.table.changes(from: before, to: after) == nil)  // nothing changed: no signal
        after.name = "x"
        let changes = try #require(Self.table.changes(from: before, to: after))
        #expect(changes.map(\.0) == ["At", "Name"])
        #expect(changes.map(\.1) == [.int64(5), .string("x")])
    }

    @Test func decodingIsTheInverseOfEncodingAndIgnoresWrongTypes() {
        var sample = Sample()
        sample.on = true
        sample.at = 42
        sample.count = 7
        sample.name = "Ä"
        sample.tags = ["a", ""]
        #expect(Self.table.decode(Self.table.values(of: sample), over: Sample()) == sample)
        // A value of another type, or an unknown name, changes nothing.
        var state = sample
        Self.table.apply(["On": .string("yes"), "Count": .int64(9), "Bogus": .boolean(true)], to: &state)
        #expect(state == sample)
        Self.table.apply(["Count": .uint32(9)], to: &state)
        #expect(state.count == 9)
    }

    /// The served interface answers Get and GetAll from the table over a real bus.
    @Test func servedPropertiesComeFromTheTable() throws {
        let bus = try PrivateBus()
        let service = try Bus(.address(bus.address))
        defer { service.close() }
        let state = SampleBox()
        try service.export(
            ExportedObject(path: "/org/example/Sample1", interfaces: [DBusInterface(Self.table, state: { state.value })]))
        try service.requestName("org.example.Sample1")
        let client = try BlockingBus(.address(bus.address))
        let all = try client.call(
            destination: "org.example.Sample1", path: "/org/example/Sample1", interface: "org.freedesktop.DBus.Properties",
            member: "GetAll", [.string("org.example.Sample1")]
        ).first?.vardict
        #expect(all?["Name"] == .string("boxed"))
        #expect(all?["Tags"] == .strings(["t"]))
        let one = try client.call(
            destination: "org.example.Sample1", path: "/org/example/Sample1", interface: "org.freedesktop.DBus.Properties",
            member: "Get", [.string("org.example.Sample1"), .string("Count")])
        #expect(one.first == .variant(.uint32(3)))
    }

    final class SampleBox: Sendable {
        let value: Sample = {
            var s = Sample()
            s.name = "boxed"
            s.count = 3
            s.tags = ["t"]
            return s
        }()
    }

    /// A change that cannot be sent is reported, never dropped in silence: the signal's path
    /// here is not an object path, so the message cannot be built.
    @Test func aSignalThatCannotBeSentIsReported() throws {
        let daemon = try PrivateBus()
        let bus = try Bus(.address(daemon.address))
        defer { bus.close() }
        let reports = Reports()
        bus.report = { reports.add($0) }
        var after = Sample()
        after.count = 2
        #expect(bus.emitChanges(Self.table, path: "not/a/path", from: Sample(), to: after) == false)
        #expect(reports.all.count == 1)
        #expect(reports.all.first?.hasPrefix("cannot send PropertiesChanged for org.example.Sample1 on not/a/path: ") == true, "\(reports.all)")
        #expect(bus.emitChanges(Self.table, path: "/org/example/Sample1", from: Sample(), to: after))
        #expect(reports.all.count == 1)
    }

    /// A signature that does not parse is read as a variant only until export, which refuses
    /// the interface with the parse error: no call ever meets the stand-in type.
    @Test func aBadSignatureIsRefusedAtExport() throws {
        let daemon = try PrivateBus()
        let bus = try Bus(.address(daemon.address))
        defer { bus.close() }
        for interface in [
            DBusInterface("org.example.Bad1", methods: [DBusMethod("M", in: [.init("x", "a{")]) { _ in [] }]),
            DBusInterface("org.example.Bad1", properties: [DBusProperty("P", "zz") { .string("") }]),
            DBusInterface("org.example.Bad1", signals: [DBusSignal("S", [.init("x", "(i")])]),
        ] {
            #expect(throws: BusError.self) { try bus.export(ExportedObject(path: "/org/example/Bad1", interfaces: [interface])) }
        }
    }

    final class Reports: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func add(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }
}
