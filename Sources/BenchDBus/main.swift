// BenchDBus: in-process D-Bus round trips through DBusKit against a plain C libdbus loop
// (CBaseline) doing the same calls, built and measured in the same run, on a private
// dbus-daemon this program starts and stops.
//
//   swift run -c release BenchDBus [--calls N] [--rounds R]
//
// Every configuration calls Echo(s)->s with the same string; the service side answers on its
// own thread. Rounds are interleaved (each round runs every configuration, in a rotating order)
// so drift in the machine's load hits all of them alike.

import CBaseline
import DBusKit
import Foundation

// MARK: - Options

var totalCalls = 20_000
var rounds = 5
var warmup = 2_000
do {
    var args = CommandLine.arguments.dropFirst()
    while let arg = args.popFirst() {
        switch arg {
        case "--calls": totalCalls = args.popFirst().flatMap(Int.init) ?? totalCalls
        case "--rounds": rounds = args.popFirst().flatMap(Int.init) ?? rounds
        case "--warmup": warmup = args.popFirst().flatMap(Int.init) ?? warmup
        default:
            FileHandle.standardError.write(Data("usage: BenchDBus [--calls N] [--rounds R] [--warmup W]\n".utf8))
            exit(2)
        }
    }
    rounds = max(1, rounds)
    totalCalls = max(rounds, totalCalls)
}
let perRound = totalCalls / rounds
nonisolated(unsafe) var daemonPID: pid_t = 0

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("BenchDBus: \(message)\n".utf8))
    if daemonPID > 0 { kill(daemonPID, SIGTERM) }
    exit(1)
}

// MARK: - A private dbus-daemon

/// Starts dbus-daemon from the repository's dbus/private-bus.conf.in with posix_spawn.
final class Daemon {
    let pid: pid_t
    let address: String
    let directory: String

    init() {
        var template = Array((NSTemporaryDirectory() + "/biomatimer-bench-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { fail("mkdtemp failed") }
        directory = String(cString: made)
        let listen = directory + "/socket"
        let services = directory + "/services"
        mkdir(listen, 0o700)
        mkdir(services, 0o700)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        guard
            let config = try? String(
                contentsOf: root.appendingPathComponent("dbus/private-bus.conf.in"), encoding: .utf8)
        else { fail("cannot read dbus/private-bus.conf.in under \(root.path)") }
        let configFile = directory + "/bus.conf"
        do {
            try config.replacingOccurrences(of: "@LISTEN_DIR@", with: listen)
                .replacingOccurrences(of: "@SERVICE_DIR@", with: services)
                .write(toFile: configFile, atomically: true, encoding: .utf8)
        } catch { fail("cannot write \(configFile): \(error)") }

        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { fail("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // Its only chatter is about the fd limit it may not raise; a failure shows as no address.
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ["/usr/bin/dbus-daemon", "--config-file=\(configFile)", "--nofork", "--nopidfile", "--print-address=1"]
        var cArgv = argv.map { strdup($0) } + [nil]
        var child: pid_t = 0
        let rc = posix_spawn(&child, argv[0], &actions, nil, &cArgv, environ)
        posix_spawn_file_actions_destroy(&actions)
        cArgv.forEach { free($0) }
        close(fds[1])
        guard rc == 0 else { fail("cannot start /usr/bin/dbus-daemon: \(String(cString: strerror(rc)))") }
        pid = child
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(fds[0], &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        close(fds[0])
        address = String(decoding: line, as: UTF8.self)
        guard !address.isEmpty else { fail("dbus-daemon printed no address") }
    }

    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        try? FileManager.default.removeItem(atPath: directory)
    }
}

// MARK: - Measuring

struct Stats {
    var samples: [UInt64] = []  // nanoseconds per call
    var elapsed: UInt64 = 0  // nanoseconds for all calls, loop overhead included

    mutating func add(_ round: [UInt64], elapsed roundElapsed: UInt64) {
        samples += round
        elapsed += roundElapsed
    }
    var sorted: [UInt64] { samples.sorted() }
    var medianMicros: Double { Double(sorted[samples.count / 2]) / 1000 }
    var p99Micros: Double { Double(sorted[min(samples.count - 1, samples.count * 99 / 100)]) / 1000 }
    var callsPerSecond: Double { Double(samples.count) / (Double(elapsed) / 1e9) }
}

nonisolated let text = "biomatimer bench ✓"
nonisolated let cName = "org.biomatimer.Bench.C"
nonisolated let swiftName = "org.biomatimer.Bench.Swift"
nonisolated let path = BASELINE_PATH
nonisolated let iface = BASELINE_INTERFACE

let daemon = Daemon()
daemonPID = daemon.pid  // for `fail`: the daemon must not outlive this process

// Services: the C loop and a DBusKit Bus exporting the same method.
guard let cService = baseline_service_start(daemon.address, cName) else { fail("the C service did not start") }
let swiftService: Bus
do {
    swiftService = try Bus(.address(daemon.address))
    let echo = DBusInterface(
        iface, methods: [DBusMethod("Echo", in: [.init("text", "s")], out: [.init("text", "s")]) { [$0.arguments[0]] }])
    try swiftService.export(ExportedObject(path: path, interfaces: [echo]))
    try swiftService.requestName(swiftName)
} catch { fail("the Swift service did not start: \(error)") }

/// The clients, and one loop of calls per configuration.
final class Clients {
    let c: OpaquePointer
    let blocking: BlockingBus
    let bus: Bus

    init(address: String) {
        guard let c = baseline_client_open(address) else { fail("the C client did not connect") }
        self.c = c
        do {
            blocking = try BlockingBus(.address(address))
            bus = try Bus(.address(address))
        } catch { fail("the Swift clients did not connect: \(error)") }
    }

    func close() {
        bus.close()
        blocking.close()
        baseline_client_close(c)
    }

    func runC(_ destination: String, _ count: Int) -> ([UInt64], UInt64) {
        var nanos = [UInt64](repeating: 0, count: count)
        let start = baseline_now_ns()
        guard baseline_client_run(c, destination, text, Int32(count), &nanos) == 0 else { fail("C calls failed") }
        return (nanos, baseline_now_ns() - start)
    }

    func runBlocking(_ destination: String, _ count: Int) -> ([UInt64], UInt64) {
        var nanos = [UInt64](repeating: 0, count: count)
        let start = baseline_now_ns()
        for i in 0..<count {
            let t0 = baseline_now_ns()
            do {
                let reply = try blocking.call(destination: destination, path: path, interface: iface, member: "Echo", [.string(text)])
                guard reply.first?.string == text else { fail("wrong reply \(reply)") }
            } catch { fail("BlockingBus call failed: \(error)") }
            nanos[i] = baseline_now_ns() - t0
        }
        return (nanos, baseline_now_ns() - start)
    }

    func runAsync(_ destination: String, _ count: Int) async -> ([UInt64], UInt64) {
        var nanos = [UInt64](repeating: 0, count: count)
        let start = baseline_now_ns()
        for i in 0..<count {
            let t0 = baseline_now_ns()
            do {
                let reply = try await bus.call(destination: destination, path: path, interface: iface, member: "Echo", [.string(text)])
                guard reply.first?.string == text else { fail("wrong reply \(reply)") }
            } catch { fail("Bus.call failed: \(error)") }
            nanos[i] = baseline_now_ns() - t0
        }
        return (nanos, baseline_now_ns() - start)
    }

    func run(_ config: Config, _ count: Int) async -> ([UInt64], UInt64) {
        switch config {
        case .cToC: return runC(cName, count)
        case .swiftToSwift: return runBlocking(swiftName, count)
        case .asyncToSwift: return await runAsync(swiftName, count)
        case .swiftToC: return runBlocking(cName, count)
        case .cToSwift: return runC(swiftName, count)
        }
    }
}

enum Config: Int, CaseIterable {
    case cToC, swiftToSwift, asyncToSwift, swiftToC, cToSwift

    var label: String {
        switch self {
        case .cToC: return "C client → C service (baseline)"
        case .swiftToSwift: return "BlockingBus → Bus service (Swift)"
        case .asyncToSwift: return "async Bus.call → Bus service"
        case .swiftToC: return "BlockingBus → C service"
        case .cToSwift: return "C client → Bus service"
        }
    }
}

let clients = Clients(address: daemon.address)
for config in Config.allCases { _ = await clients.run(config, warmup) }

var stats = [Config: Stats]()
for round in 0..<rounds {
    let order = Config.allCases.count
    for k in 0..<order {
        let config = Config(rawValue: (k + round) % order)!
        let (samples, elapsed) = await clients.run(config, perRound)
        stats[config, default: Stats()].add(samples, elapsed: elapsed)
    }
}

// MARK: - Report

func pad(_ s: String, _ width: Int, left: Bool = false) -> String {
    let n = s.count
    guard n < width else { return s }
    let fill = String(repeating: " ", count: width - n)
    return left ? s + fill : fill + s
}
func fmt(_ v: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", v) }

print("D-Bus round trip, Echo(s)->s, private dbus-daemon; \(perRound * rounds) calls per configuration")
print("in \(rounds) interleaved rounds of \(perRound), after \(warmup) warm-up calls each\n")
print(pad("configuration", 36, left: true) + pad("median µs", 11) + pad("p99 µs", 10) + pad("calls/s", 10))
for config in Config.allCases {
    let s = stats[config]!
    print(
        pad(config.label, 36, left: true) + pad(fmt(s.medianMicros, 1), 11) + pad(fmt(s.p99Micros, 1), 10)
            + pad(fmt(s.callsPerSecond, 0), 10))
}
let c = stats[.cToC]!
let swift = stats[.swiftToSwift]!
let asyncStats = stats[.asyncToSwift]!
print("")
print("Swift/C, BlockingBus → Bus service vs the C loop (goal ≤ 1.20 round trip):")
print(
    "  median \(fmt(swift.medianMicros / c.medianMicros, 2))×   p99 \(fmt(swift.p99Micros / c.p99Micros, 2))×"
        + "   calls/s \(fmt(swift.callsPerSecond / c.callsPerSecond, 2))×")
print("async Bus.call → Bus service vs the C loop (for information):")
print(
    "  median \(fmt(asyncStats.medianMicros / c.medianMicros, 2))×   p99 \(fmt(asyncStats.p99Micros / c.p99Micros, 2))×"
        + "   calls/s \(fmt(asyncStats.callsPerSecond / c.callsPerSecond, 2))×")

clients.close()
swiftService.close()
baseline_service_stop(cService)
daemon.stop()
