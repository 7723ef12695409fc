import BiomaDaemon
import Foundation
import TestSupport

#if canImport(FoundationXML)
    import FoundationXML
#endif

// What the bar tests share: the expected lines, readers for what bars print, the watch
// against a fixture, and a session run as an unprivileged user (for sway and waybar).

/// A project name that is markup, a format string and an escape in every bar's syntax.
let hostileName = ##"R&D <b>"x"</b> %{F#f00} #[fg=red]"##

/// `biomatimer watch ARGS` against a fixture's bus.
func watch(_ f: DaemonFixture, _ arguments: [String], environment: [String: String]? = nil, pipeInput: Bool = false) throws
    -> WatchProcess
{
    try WatchProcess(DaemonFixture.binary, ["watch"] + arguments, environment: environment ?? f.environment, pipeInput: pipeInput)
}

// MARK: - Expected waybar lines

/// The watch's waybar lines, with every `H:MM:SS` written `T`.
enum Waybar {
    static let idle =
        #"{"text":"○ 0:00:00 (0:00:00)","alt":"idle","tooltip":"Work: 0:00:00 session, 0:00:00 today\nNo project running","class":["idle"],"percentage":0}"#
    static let running =
        #"{"text":"▶ T (T)","alt":"running","tooltip":"Work: T session, T today\nNo project running","class":["running"],"percentage":0}"#
    static let paused =
        #"{"text":"‖ T (T)","alt":"paused","tooltip":"Work: T session, T today\nNo project running","class":["paused"],"percentage":0}"#
    static let offline =
        #"{"text":"⊘ offline","alt":"offline","tooltip":"biomatimer: the daemon is not running","class":["offline"],"percentage":0}"#
    /// A running project (its percentage written `P`).
    static func project(_ name: String, _ color: String, tooltipName: String? = nil) -> String {
        #"{"text":"● T (T) · <span foreground=\"\#(color)\">\#(name)</span>","alt":"running","tooltip":"Work: T session, T today\n\#(tooltipName ?? name): T session, T today","class":["running","project"],"percentage":P}"#
    }
}

/// Every `H:MM:SS` as `T`, and a waybar percentage as `P` (after checking it is 0–100).
func normalized(_ line: String) -> String {
    var text = line.replacing(#/\d+:\d\d:\d\d/#, with: "T")
    if text.contains(#""class":["running","project"]"#) {
        text = text.replacing(#/"percentage":(100|[1-9]?\d)}$/#, with: #""percentage":P}"#)
    }
    return text
}

/// The first `H:MM:SS` in a line, in seconds.
func seconds(_ line: String) -> Int? {
    guard let match = line.firstMatch(of: #/(\d+):(\d\d):(\d\d)/#),
        let h = Int(match.1), let m = Int(match.2), let s = Int(match.3)
    else { return nil }
    return h * 3600 + m * 60 + s
}

func jsonObject(_ line: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
}

/// The blocks of one i3bar status line as i3blocks writes it (`[[]`, then `,[…]` lines).
func statusLineBlocks(_ line: String) -> [[String: Any]]? {
    var text = Substring(line)
    if text.hasPrefix(",") { text = text.dropFirst() }
    guard text.hasPrefix("[{") else { return nil }
    return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]]
}

/// Pango markup read as GMarkup reads it (XML without a root): the text a person sees and
/// the elements with their attributes.
struct Markup {
    var text: String
    var elements: [String]

    init?(_ markup: String) {
        let reader = MarkupReader()
        let parser = XMLParser(data: Data("<markup>\(markup)</markup>".utf8))
        parser.delegate = reader
        guard parser.parse() else { return nil }
        text = reader.text
        elements = reader.elements.filter { $0 != "markup" }
    }
}

final class MarkupReader: NSObject, XMLParserDelegate {
    var text = ""
    var elements: [String] = []
    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        elements.append(([elementName] + attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " "))
    }
    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
}

/// A bus, the daemon it activates and the CLI, all as one unprivileged user: `biomatest`
/// when the tests run as root (sway refuses root, and a bus admits only its own uid),
/// otherwise the current user. Uses `setpriv` to switch.
final class UserSession: @unchecked Sendable {
    static let userName = "biomatest"
    /// The user to run as, nil when that is the current one.
    let user: String?
    let address: String
    private let directory: URL
    private let bus: ChildProcess
    private let prefix: [String]
    private let environment: [String: String]

    init() throws {
        var env = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        if getuid() == 0 {
            if getpwnam(Self.userName) == nil {
                let made = try runProcess("/usr/sbin/useradd", ["-m", "-s", "/bin/sh", Self.userName])
                guard made.status == 0 else { throw TestSupportError("useradd \(Self.userName): \(made.stderr)") }
            }
            guard let entry = getpwnam(Self.userName) else { throw TestSupportError("no user \(Self.userName)") }
            let uid = entry.pointee.pw_uid, gid = entry.pointee.pw_gid
            user = Self.userName
            env["HOME"] = String(cString: entry.pointee.pw_dir)
            prefix = ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups"]
            directory = try makeTemporaryDirectory("biomatimer-usersession")
            chmod(directory.path, 0o755)
            for sub in ["socket", "services", "data"] {
                try FileManager.default.createDirectory(
                    at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
                chown(directory.appendingPathComponent(sub).path, uid, gid)
            }
        } else {
            user = nil
            env["HOME"] = ProcessInfo.processInfo.environment["HOME"] ?? "/tmp"
            prefix = []
            directory = try makeTemporaryDirectory("biomatimer-usersession")
            for sub in ["socket", "services", "data"] {
                try FileManager.default.createDirectory(
                    at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
            }
        }
        // The binary must be usable by that user (a build folder under a private home is not).
        let check = try runProcess(
            (prefix + ["/usr/bin/test"])[0], Array((prefix + ["/usr/bin/test", "-x", DaemonFixture.binary]).dropFirst()))
        guard check.status == 0 else {
            throw TestSupportError("\(DaemonFixture.binary) is not executable by \(user ?? "this user"): \(check.stderr)")
        }
        let template = try String(
            contentsOf: repositoryRoot.appendingPathComponent("dbus/private-bus.conf.in"), encoding: .utf8)
        let config = directory.appendingPathComponent("bus.conf")
        try template.replacingOccurrences(of: "@LISTEN_DIR@", with: directory.appendingPathComponent("socket").path)
            .replacingOccurrences(of: "@SERVICE_DIR@", with: directory.appendingPathComponent("services").path)
            .write(to: config, atomically: true, encoding: .utf8)
        try "[D-BUS Service]\nName=\(ContractNames.busName)\nExec=\(DaemonFixture.binary) daemon --data-dir \(directory.appendingPathComponent("data").path)\n"
            .write(
                to: directory.appendingPathComponent("services/\(ContractNames.busName).service"), atomically: true,
                encoding: .utf8)
        chmod(config.path, 0o644)
        chmod(directory.appendingPathComponent("services/\(ContractNames.busName).service").path, 0o644)
        let command = ["/usr/bin/dbus-daemon", "--config-file=\(config.path)", "--nofork", "--nopidfile", "--print-address=1"]
        bus = try ChildProcess((prefix + command)[0], Array((prefix + command).dropFirst()), environment: env)
        guard let line = bus.readLine(), !line.isEmpty else {
            bus.terminate()
            throw TestSupportError("dbus-daemon as \(user ?? "this user") did not start")
        }
        address = line.trimmingCharacters(in: .whitespacesAndNewlines)
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        environment = env
    }

    /// `biomatimer ARGS` as the session's user.
    @discardableResult
    func cli(_ arguments: [String]) throws -> ProcessResult {
        let command = prefix + [DaemonFixture.binary] + arguments
        return try runProcess(command[0], Array(command.dropFirst()), environment: environment, timeout: 10)
    }

    /// Starts `biomatimer ARGS` as the session's user and leaves it running.
    func spawn(_ arguments: [String], environment extra: [String: String] = [:]) throws -> ChildProcess {
        let command = prefix + [DaemonFixture.binary] + arguments
        return try ChildProcess(command[0], Array(command.dropFirst()), environment: environment.merging(extra) { $1 })
    }

    /// Stops the bus (the daemon it started exits with it) and removes the folder.
    func stop() {
        bus.terminate(grace: 2)
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Tests/peers/png_pixels.py with `--count` (run by /usr/bin/python3) counts the pixels of a
/// PNG's rows TOP..<TOP+ROWS within 8 per channel of each given colour: arguments
/// `pngColourCounter + [file, top, rows, colour…]`.
let pngColourCounter = [repositoryRoot.appendingPathComponent("Tests/peers/png_pixels.py").path, "--count"]
