import BiomaDaemon
import DBusKit
import Foundation
import Testing

import TestSupport

/// One publication step per change: a focus command sends one Focus1 `PropertiesChanged` and
/// at most one Timer1, counted by `dbus-monitor` on the private bus.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct FocusPublicationTests {
    /// `dbus-monitor` watching `PropertiesChanged` and the test's markers.
    final class Monitor {
        static let markerInterface = "org.biomatimer.Test"
        let child: ChildProcess
        let lines: LineReader
        let address: String
        private var sent = 0

        init(_ f: DaemonFixture) throws {
            address = f.bus.address
            child = try ChildProcess(
                "/usr/bin/dbus-monitor",
                [
                    "--address", address,
                    "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'",
                    "type='signal',interface='\(Self.markerInterface)'",
                ])
            lines = LineReader(child)
            // The monitor sees a marker once it is in place: send until one comes back.
            var ready = false
            for _ in 0..<40 where !ready {
                let name = try mark()
                ready = lines.next(timeout: 0.25) { $0.contains("member=\(name)") } != nil
            }
            try #require(ready, "dbus-monitor never saw a marker")
        }

        deinit { child.terminate(grace: 2) }

        /// Sends a marker signal; the bus routes it after everything sent before it.
        @discardableResult
        func mark() throws -> String {
            sent += 1
            let name = "Marker\(sent)"
            let r = try runProcess(
                "/usr/bin/dbus-send", ["--bus=\(address)", "--type=signal", "/org/biomatimer/Test", "\(Self.markerInterface).\(name)"])
            try #require(r.status == 0, "dbus-send: \(r.stderr)")
            return name
        }

        /// The interfaces of the `PropertiesChanged` signals seen up to a new marker.
        func changedInterfaces() throws -> [String] {
            let name = try mark()
            var interfaces: [String] = []
            var afterHeader = false
            while let line = lines.next(timeout: 10) {
                if line.text.contains("member=\(name)") { return interfaces }
                if line.text.hasPrefix("signal ") {
                    afterHeader = line.text.contains("member=PropertiesChanged")
                } else if afterHeader {
                    // The first argument, the interface: `   string "org.biomatimer.Focus1"`.
                    let text = line.text.trimmingCharacters(in: .whitespaces)
                    interfaces.append(text.replacingOccurrences(of: "string ", with: "").trimmingCharacters(in: ["\""]))
                    afterHeader = false
                }
            }
            throw TestSupportError("dbus-monitor ended before the marker \(name)")
        }
    }

    @Test func focusToggleAndSkipEachSendOneFocusSignalAndAtMostOneTimerSignal() throws {
        let f = try DaemonFixture()
        try f.requireCLI(["project", "add", "Writing"])
        try f.requireCLI(["focus", "pomodoro", "--project", "writing"])
        let monitor = try Monitor(f)
        let focus = ContractNames.focusInterface
        let timer = ContractNames.interface

        try f.requireCLI(["focus", "toggle"])
        let toggled = try monitor.changedInterfaces()
        #expect(toggled.filter { $0 == focus }.count == 1, "focus toggle: \(toggled)")
        #expect(toggled.filter { $0 == timer }.count <= 1, "focus toggle: \(toggled)")
        // The work timer followed the pause in the same step.
        #expect(try f.properties()["Running"] == .boolean(false))

        try f.requireCLI(["focus", "skip"])
        let skipped = try monitor.changedInterfaces()
        #expect(skipped.filter { $0 == focus }.count == 1, "focus skip: \(skipped)")
        #expect(skipped.filter { $0 == timer }.count <= 1, "focus skip: \(skipped)")
        #expect(skipped.allSatisfy { $0 == focus || $0 == timer || $0 == ContractNames.tasksInterface }, "\(skipped)")
    }
}

extension DaemonFixture {
    /// Runs a setup command, which must succeed.
    fileprivate func requireCLI(_ arguments: [String]) throws {
        let r = try cli(arguments)
        try #require(r.status == 0, "biomatimer \(arguments.joined(separator: " ")): \(r.stderr)")
    }
}
