import BiomaDaemon
import DBusKit
import Foundation
import TestSupport

/// A private bus with biomatimer's activation file in it, pointing at the built binary and a
/// fresh data folder: the first call from any client starts the daemon, as after
/// `biomatimer install`.
final class DaemonFixture: @unchecked Sendable {
    let bus: PrivateBus
    let dataDirectory: URL
    static let binary = productsDirectory.appendingPathComponent("biomatimer").path

    /// With `movableClock`, the daemon the bus starts runs under libfaketime on `clock`, which
    /// starts at noon today and which `moveClock(by:)` moves.
    let clock: MovableClock?

    init(activation: Bool = true, extraDaemonArguments: String = "", movableClock: Bool = false, maxMessageSize: Int? = nil) throws {
        bus = try PrivateBus(maxMessageSize: maxMessageSize)
        dataDirectory = try makeTemporaryDirectory("biomatimer-data")
        clock = movableClock ? try MovableClock(file: bus.directory.appendingPathComponent("faketime")) : nil
        var exec = "\(Self.binary) daemon --data-dir \(dataDirectory.path) \(extraDaemonArguments)"
        if let clock {
            // The crash watch's close check is preloaded after libfaketime (this LD_PRELOAD
            // replaces the one the watch sets).
            let preload = ([libfaketime] + (CrashWatch.closeCheck.map { [$0] } ?? [])).joined(separator: ":")
            exec = "/usr/bin/env LD_PRELOAD=\(preload) FAKETIME_TIMESTAMP_FILE=\(clock.file.path) FAKETIME_NO_CACHE=1 "
                + "DONT_FAKE_MONOTONIC=1 " + exec
        }
        if activation {
            try bus.installService(name: ContractNames.busName, exec: exec.trimmingCharacters(in: .whitespaces))
        }
    }

    /// `environment` with the movable clock of the daemon, for a client that must share it.
    var clockEnvironment: [String: String] { clock?.environment(environment) ?? environment }

    /// Moves the daemon's clock to `seconds` after where it started (a fixture with
    /// `movableClock`).
    func moveClock(by seconds: Int) throws {
        guard let clock else { throw TestSupportError("this fixture's daemon has the real clock") }
        try clock.set(ahead: seconds)
    }

    /// What the daemon's clock reads now (µs since the epoch): the movable clock, else the real one.
    var daemonNow: Int64 { clock?.now ?? Int64(Date().timeIntervalSince1970 * 1_000_000) }

    deinit {
        // Stop the daemon the bus started (it exits when its bus goes), then the bus.
        if let pid = try? daemonPID() {
            kill(pid, SIGTERM)
            // Gone before the bus is: a crash on the way out is in the bus's crash log then.
            let end = Date().addingTimeInterval(5)
            while kill(pid, 0) == 0, Date() < end { usleep(10_000) }
        }
        bus.stop()
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    var environment: [String: String] { bus.environment }

    /// Starts `biomatimer daemon` on this bus and this data folder (not by activation), its
    /// clock started at `instant` (`2026-11-22 23:59:58`, through libfaketime) when given.
    func startDaemon(at instant: String? = nil, environment: [String: String]) throws -> ChildProcess {
        try ChildProcess(
            Self.binary, ["daemon", "--data-dir", dataDirectory.path],
            environment: instant.map { fakeTime(environment, at: $0) } ?? environment)
    }

    /// Runs `biomatimer ARGS` against this bus; its exit code is the caller's to check (a setup
    /// step uses `cliOK`).
    func cli(_ arguments: [String], input: String? = nil, environment: [String: String]? = nil) throws -> ProcessResult {
        try runProcess(Self.binary, arguments, environment: environment ?? self.environment, input: input)
    }

    /// Runs `biomatimer ARGS` as a setup step: anything but exit 0 throws, with its stderr.
    @discardableResult
    func cliOK(_ arguments: [String], input: String? = nil, environment: [String: String]? = nil) throws -> ProcessResult {
        try cli(arguments, input: input, environment: environment).requireSuccess("biomatimer \(arguments.joined(separator: " "))")
    }

    /// Runs `busctl --address=… ARGS`.
    @discardableResult
    func busctl(_ arguments: [String]) throws -> ProcessResult {
        try runProcess("/usr/bin/busctl", ["--address=\(bus.address)"] + arguments)
    }

    /// `busctl call` on the timer object.
    @discardableResult
    func call(_ member: String, _ signatureAndArguments: [String] = []) throws -> ProcessResult {
        try busctl(["call", ContractNames.busName, ContractNames.objectPath, ContractNames.interface, member] + signatureAndArguments)
    }

    /// Every property through DBusKit's blocking client.
    func properties() throws -> [String: DBusValue] {
        let client = try BlockingBus(.address(bus.address))
        return try client.call(
            destination: ContractNames.busName, path: ContractNames.objectPath, interface: "org.freedesktop.DBus.Properties",
            member: "GetAll", [.string(ContractNames.interface)]
        ).first?.vardict ?? [:]
    }

    func method(_ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        let client = try BlockingBus(.address(bus.address))
        return try client.call(
            destination: ContractNames.busName, path: ContractNames.objectPath, interface: ContractNames.interface, member: member,
            arguments)
    }

    /// The pid of the process owning the timer's name.
    func daemonPID() throws -> pid_t? { try Self.daemonPID(onBus: bus.address) }

    /// The pid of the process owning the timer's name on the bus at `address`.
    static func daemonPID(onBus address: String) throws -> pid_t? {
        let client = try BlockingBus(.address(address))
        guard let owner = try client.nameOwner(ContractNames.busName) else { return nil }
        let reply = try client.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetConnectionUnixProcessID", [.string(owner)])
        return reply.first?.int64.map { pid_t($0) }
    }

    /// The state that matters for "nothing changed": everything but the clock, plus the store's
    /// whole history as CSV.
    func durableState() throws -> String {
        var p = try properties()
        for key in ["UpdatedAt", "SessionTime", "DailyTotal", "ProjectSessionTime", "ProjectDailyTotal"] { p[key] = nil }
        let csv = try method("ExportCSV", [.string(""), .string("")]).first?.string ?? ""
        let projects = try method("ListProjects").first?.array?.compactMap(\.vardict).map { d in
            ["Id", "Name", "Color", "Position", "Running"].map { "\(d[$0]?.description ?? "-")" }.joined(separator: "|")
        }
        return "\(p.sorted { $0.key < $1.key })\n\(projects ?? [])\n\(csv)"
    }
}

/// python3-dbus watching PropertiesChanged (Tests/peers/monitor_properties.py).
final class PropertiesMonitor: @unchecked Sendable {
    let process: ChildProcess
    private let lock = NSCondition()
    private var lines: [[String: Any]] = []

    init(environment: [String: String]) throws {
        process = try ChildProcess(
            "/usr/bin/python3", [repositoryRoot.appendingPathComponent("Tests/peers/monitor_properties.py").path],
            environment: environment)
        guard process.readLine() == "ready" else { throw TestSupportError("the python monitor did not start") }
        Thread.detachNewThread { [self] in
            while let line = process.readLine() {
                guard let data = line.data(using: .utf8),
                    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
                else { continue }
                lock.lock()
                lines.append(object)
                lock.broadcast()
                lock.unlock()
            }
        }
    }

    deinit { process.terminate(grace: 1) }

    /// The signals seen so far (the `changed` maps).
    var signals: [[String: Any]] {
        lock.lock()
        defer { lock.unlock() }
        return lines.compactMap { $0["changed"] as? [String: Any] }
    }

    /// Waits until at least `count` signals arrived; then waits `settle` more seconds so an
    /// extra (wrong) signal would be seen too.
    func waitFor(_ count: Int, timeout: TimeInterval = 10, settle: TimeInterval = 0.3) -> [[String: Any]] {
        let end = Date().addingTimeInterval(timeout)
        lock.lock()
        while lines.count < count && lock.wait(until: end) {}
        lock.unlock()
        Thread.sleep(forTimeInterval: settle)
        return signals
    }
}
