import Foundation
import Testing
import BiomaContract

import TestSupport

/// `biomatimer` (the C front) carries every command to the daemon's `Run` and reports a call
/// that fails on the way (lost bus, no answer, a foreign error) itself; with no bus or no
/// daemon it hands the command to `biomatimer-tool`, which runs it through BiomaContract. Both
/// read their messages and exit codes from the contract header; here every way a command can
/// fail is provoked. Where the front answers itself, it and the tool must print and exit
/// exactly alike (`same`); where it hands the command over, there is only one side, the
/// tool's, and the front's output is checked as the user sees it (`handedOver`).
@Suite(.ownThread, .timeLimit(.minutes(3)))
struct ClientFailureParityTests {
    static let front = DaemonFixture.binary
    static let tool = productsDirectory.appendingPathComponent("biomatimer-tool").path
    static let peers = repositoryRoot.appendingPathComponent("Tests/peers")

    /// Runs the front and the tool with the same arguments and environment, one after the
    /// other, and requires the same result; returns it.
    @discardableResult
    func same(_ arguments: [String], _ environment: [String: String], _ label: String) throws -> ProcessResult {
        let quick = try runProcess(Self.front, arguments, environment: environment)
        let full = try runProcess(Self.tool, arguments, environment: environment)
        #expect(quick.status == full.status, "\(label): exit \(quick.status) vs \(full.status)")
        #expect(quick.stdout == full.stdout, "\(label)")
        #expect(quick.stderr == full.stderr, "\(label): \(quick.stderr) vs \(full.stderr)")
        return quick
    }

    /// The front alone, for the failures it hands to the tool (no bus, no daemon): running
    /// the tool beside it would compare the tool with itself.
    func handedOver(_ arguments: [String], _ environment: [String: String]) throws -> ProcessResult {
        let result = try runProcess(Self.front, arguments, environment: environment)
        #expect(result.stdout == "", "\(arguments)")
        return result
    }

    @Test func theDaemonRefuses() throws {
        let f = try DaemonFixture()
        let r = try same(["project", "start", "nope"], f.environment, "refusal")
        #expect(r.status == ExitCode.refused)
        #expect(r.stderr == "biomatimer: No project named or with id 'nope'.\n")
    }

    @Test func noDaemonAndNoActivation() throws {
        let f = try DaemonFixture(activation: false)
        let r = try handedOver(["toggle"], f.environment)
        #expect(r.status == ExitCode.unavailable)
        #expect(r.stderr.hasPrefix("biomatimer: the biomatimer daemon is not running. Start it with"))
    }

    @Test func noSessionBusAddress() throws {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = nil
        env["XDG_RUNTIME_DIR"] = "/nonexistent"
        let r = try handedOver(["toggle"], env)
        #expect(r.status == ExitCode.unavailable)
        #expect(
            r.stderr == "biomatimer: cannot reach the D-Bus session bus: no session bus: DBUS_SESSION_BUS_ADDRESS is not set "
                + "and there is no $XDG_RUNTIME_DIR/bus. Is a desktop session running? (Outside one, `dbus-run-session -- $SHELL` starts a shell with a bus of its own.)\n")
    }

    @Test func nothingListensAtTheAddress() throws {
        let directory = try makeTemporaryDirectory("biomatimer-nobus")
        defer { try? FileManager.default.removeItem(at: directory) }
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(directory.path)/missing"
        let r = try handedOver(["stop"], env)
        #expect(r.status == ExitCode.unavailable)
        #expect(r.stderr.hasPrefix("biomatimer: cannot reach the D-Bus session bus: "))
        #expect(r.stderr.contains("(address unix:path=\(directory.path)/missing)"))
    }

    /// A socket that takes the connection and closes it at once: the bus handshake fails.
    @Test func theBusRefusesTheConnection() throws {
        let directory = try makeTemporaryDirectory("biomatimer-refusing")
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("socket").path
        let refuser = try ChildProcess(
            "/usr/bin/timeout",
            [
                "60", "/usr/bin/python3", "-c",
                """
                import socket, sys
                s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
                print("ready", flush=True)
                while True:
                    c, _ = s.accept(); c.close()
                """,
                socket,
            ])
        defer { refuser.terminate() }
        #expect(refuser.readLine() == "ready")
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(socket)"
        let r = try handedOver(["toggle"], env)
        #expect(r.status == ExitCode.unavailable)
        #expect(r.stderr.hasPrefix("biomatimer: cannot reach the D-Bus session bus: "))
        #expect(r.stderr.hasSuffix("(address unix:path=\(socket)). Is a desktop session running? (Outside one, `dbus-run-session -- $SHELL` starts a shell with a bus of its own.)\n"))
    }

    @Test func theBusCannotStartTheDaemon() throws {
        let bus = try PrivateBus()
        try bus.installService(name: ContractNames.busName, exec: "/bin/false")
        let r = try handedOver(["toggle"], bus.environment)
        #expect(r.status == ExitCode.unavailable)
        #expect(r.stderr.hasPrefix("biomatimer: the bus could not start the biomatimer daemon: "))
    }

    @Test func theDaemonDoesNotAnswerInTime() throws {
        let bus = try PrivateBus()
        let fake = try startFakeTimer("hang", on: bus)
        defer { fake.terminate() }
        var env = bus.environment
        env["BIOMATIMER_TIMEOUT"] = "0.3"
        let r = try same(["toggle"], env, "timeout")
        #expect(r.status == ExitCode.unavailable)
        #expect(
            r.stderr == "biomatimer: the biomatimer daemon did not answer: it stopped, or took longer than the call allows.\n")
    }

    @Test func aFailureThatIsNotTheDaemonsOwn() throws {
        let bus = try PrivateBus()
        let fake = try startFakeTimer("foreign", on: bus)
        defer { fake.terminate() }
        let r = try same(["project", "next"], bus.environment, "foreign error")
        #expect(r.status == ExitCode.refused)
        #expect(r.stderr == "biomatimer: a foreign failure\n")
    }

    /// The bus goes away while both commands wait for an answer.
    @Test func theBusGoesAwayDuringTheCall() throws {
        let bus = try PrivateBus()
        let fake = try startFakeTimer("hang", on: bus)
        defer { fake.terminate() }
        var waiting = bus.environment
        waiting["BIOMATIMER_TIMEOUT"] = "20"
        let env = waiting
        let results = Results()
        let group = DispatchGroup()
        for (index, program) in [Self.front, Self.tool].enumerated() {
            group.enter()
            Thread.detachNewThread {
                results.set(index, try? runProcess(program, ["toggle"], environment: env))
                group.leave()
            }
        }
        // Both calls are in flight once the fake daemon has received them.
        #expect(waitUntil(timeout: 10) { fake.readLine() != nil && fake.readLine() != nil })
        bus.stop()
        #expect(group.wait(timeout: .now() + 15) == .success)
        let quick = try #require(results.get(0))
        let full = try #require(results.get(1))
        #expect(quick.status == ExitCode.unavailable && full.status == ExitCode.unavailable)
        #expect(quick.stderr == full.stderr)
        #expect(quick.stderr.hasPrefix("biomatimer: lost the D-Bus session bus: "), "\(quick.stderr)")
    }

    private func startFakeTimer(_ mode: String, on bus: PrivateBus) throws -> ChildProcess {
        let fake = try ChildProcess(
            "/usr/bin/timeout", ["60", "/usr/bin/python3", Self.peers.appendingPathComponent("fake_timer.py").path, mode],
            environment: bus.environment)
        guard fake.readLine() == "ready" else {
            fake.terminate()
            throw TestSupportError("fake_timer.py did not start")
        }
        return fake
    }

    private final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Int: ProcessResult] = [:]
        func set(_ index: Int, _ value: ProcessResult?) { lock.withLock { values[index] = value } }
        func get(_ index: Int) -> ProcessResult? { lock.withLock { values[index] } }
    }
}
