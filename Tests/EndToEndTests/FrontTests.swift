import BiomaCore
import Foundation
import Testing

import TestSupport

/// The front carries the command line to the daemon (`Run`): files are the caller's (opened by
/// the front, passed as descriptors), questions are asked on the caller's terminal, colour,
/// width and time zone are the caller's, and the shells complete through it.
@Suite(.ownThreadLong, .timeLimit(.minutes(3)))
struct FrontTests {
    static let tool = productsDirectory.appendingPathComponent("biomatimer-tool").path

    /// `biomatimer ARGS` run by /bin/sh in `directory`, so relative paths are the caller's.
    func cli(
        in directory: URL, _ arguments: [String], _ f: DaemonFixture, input: String? = nil, environment: [String: String]? = nil
    ) throws -> ProcessResult {
        let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        return try runProcess(
            "/bin/sh", ["-c", "cd '\(directory.path)' && exec '\(DaemonFixture.binary)' \(quoted)"],
            environment: environment ?? f.environment, input: input, timeout: 240)
    }

    /// Ten years of work, 40 intervals a day (146 000), through standard input in one go.
    @Test func importsTenYearsFromStandardInput() throws {
        let f = try DaemonFixture()
        let utc = DayRules(timeZone: TimeZone(identifier: "UTC")!)
        let first = Int64(1_420_070_400) * 1_000_000  // 2015-01-01T00:00Z
        var csv = "project,color,start,end,duration\r\n"
        csv.reserveCapacity(146_000 * 80)
        for day in Int64(0)..<3650 {
            for slot in Int64(0)..<40 {
                let start = first + (day * 86_400 + slot * 1800) * 1_000_000
                let end = start + 900 * 1_000_000
                csv += "\(slot % 2 == 0 ? "Client A" : "Internal"),#007AFF,\(IntervalCSV.formatInstant(start, rules: utc)),"
                csv += "\(IntervalCSV.formatInstant(end, rules: utc)),0:15:00\r\n"
            }
        }
        let directory = try makeTemporaryDirectory("biomatimer-caller")
        defer { try? FileManager.default.removeItem(at: directory) }
        // A debug build on a busy machine takes a while to store it all.
        var patient = f.environment
        patient["BIOMATIMER_TIMEOUT"] = "230"
        let r = try cli(in: directory, ["import", "-"], f, input: csv, environment: patient)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "Imported 146000 intervals.\n")
        // A leap year: 366 days of 40 × 15 minutes.
        let year = try f.cli(["report", "--year", "--date", "2020-06-01", "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(year.stdout.utf8)) as? [String: Any])
        #expect(report["work_total"] as? Int == 366 * 40 * 900 * 1_000_000, "\(year.stdout.prefix(300))")
    }

    /// `export -o FILE` and `report --svg FILE` write where the caller is; `--svg -` to its
    /// standard output. A file that cannot be opened is named, exit 1, and nothing is written.
    @Test func filesAreTheCallers() throws {
        let f = try DaemonFixture()
        try f.cliOK(["project", "add", "Client A"])
        try f.cliOK(["add", "09:00-10:00", "--date", "2026-01-07", "--project", "Client A"])
        let directory = try makeTemporaryDirectory("biomatimer-caller")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("sub"), withIntermediateDirectories: true)

        var r = try cli(in: directory, ["export", "-o", "sub/out.csv"], f)
        #expect(r.status == 0 && r.stdout == "" && r.stderr == "", "\(r.stderr)")
        let written = try String(contentsOf: directory.appendingPathComponent("sub/out.csv"), encoding: .utf8)
        #expect(written == (try f.cli(["export"])).stdout)
        #expect(written.contains("Client A"))
        let mode = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("sub/out.csv").path)[.posixPermissions]
        #expect(mode as? Int == 0o644)

        r = try cli(in: directory.appendingPathComponent("sub"), ["report", "--svg", "day.svg", "--date", "2026-01-07"], f)
        #expect(r.status == 0, "\(r.stderr)")
        let svg = try String(contentsOf: directory.appendingPathComponent("sub/day.svg"), encoding: .utf8)
        #expect(svg.hasPrefix("<?xml") && svg.contains("</svg>"))
        // Only the two files: no temporary file is left beside them.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("sub").path).sorted() == ["day.svg", "out.csv"])

        r = try cli(in: directory, ["report", "--svg", "-", "--date", "2026-01-07"], f)
        #expect(r.status == 0)
        #expect(r.stdout == svg)

        // Missing files: today's messages, exit 1, nothing written anywhere.
        r = try cli(in: directory, ["import", "missing.csv"], f)
        #expect(r.status == 1)
        #expect(r.stderr == "biomatimer: cannot read missing.csv: No such file or directory.\n")
        r = try cli(in: directory, ["export", "-o", "nowhere/out.csv"], f)
        #expect(r.status == 1)
        #expect(r.stderr == "biomatimer: cannot write nowhere/out.csv: No such file or directory\n")
        r = try cli(in: directory, ["report", "--svg", "nowhere/day.svg"], f)
        #expect(r.status == 1)
        #expect(r.stderr == "biomatimer: cannot write nowhere/day.svg: No such file or directory\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["sub"])
        // A directory where a file is read: the read fails, the message names it.
        r = try cli(in: directory, ["import", "sub"], f)
        #expect(r.status == 1)
        #expect(r.stderr == "biomatimer: cannot read sub: Is a directory.\n")
        // The tool, as the caller itself, says the same.
        let tool = try runProcess(
            "/bin/sh", ["-c", "cd '\(directory.path)' && exec '\(Self.tool)' import missing.csv"], environment: f.environment)
        #expect(tool.status == 1 && tool.stderr == "biomatimer: cannot read missing.csv: No such file or directory.\n")
    }

    /// A usage error is the misused command's usage line and exit 2, byte for byte what the
    /// tool prints (which parses it without asking the daemon).
    @Test func usageErrorsAreTheCommandsOwn() throws {
        let f = try DaemonFixture()
        for arguments in [
            ["add", "09:00"], ["edit", "x"], ["task", "add"], ["focus", "countdown", "forever"], ["report", "--day", "--week"],
            ["project", "bogus"], ["away", "lock", "--since", "nope"], ["export", "--from", "someday"],
            ["focus", "countdown", "-5m"], ["client", "add", "ACME", "--rate", "-5", "--currency", "EUR"], ["project", "add", "X", "--color", "red"],
        ] {
            let front = try f.cli(arguments)
            let tool = try runProcess(Self.tool, arguments, environment: f.environment)
            #expect(front.status == 2, "\(arguments): \(front.stderr)")
            #expect(front.stdout == "" && front.stderr == tool.stderr && tool.status == 2, "\(arguments): \(front.stderr)")
            #expect(front.stderr.contains("Usage: biomatimer \(arguments[0])"), "\(arguments): \(front.stderr)")
        }
        // Help follows the caller's width.
        var narrow = f.environment
        narrow["COLUMNS"] = "50"
        let help = try f.cli(["report", "--help"], environment: narrow)
        #expect(help.status == 0)
        #expect(help.stdout == (try runProcess(Self.tool, ["report", "--help"], environment: narrow)).stdout)
        #expect(help.stdout != (try f.cli(["report", "--help"])).stdout, "wrapped at 50 columns, not 80")
    }

    /// Questions are asked on the caller's terminal (a real pty through `script`), and the
    /// answer decides; colour follows the caller's terminal and NO_COLOR.
    @Test func questionsAndColourOnTheCallersTerminal() throws {
        let f = try DaemonFixture()
        try f.cliOK(["project", "add", "Client A", "--color", "#FF8800"])
        try f.cliOK(["add", "09:00-10:00", "--date", "2026-01-07"])
        var env = f.environment
        env["TERM"] = "xterm-256color"
        env["NO_COLOR"] = nil
        var r = try runProcess(
            "/usr/bin/script", ["-qec", "\(DaemonFixture.binary) reset-history", "/dev/null"], environment: env, input: "no\n")
        #expect(r.stdout.contains("Delete ALL recorded time? [y/N]"), "\(r.stdout)")
        #expect(r.stdout.contains("biomatimer: Nothing was changed."), "\(r.stdout)")
        #expect(try f.cli(["log", "--json", "--date", "2026-01-07"]).stdout != "[]\n")
        r = try runProcess(
            "/usr/bin/script", ["-qec", "\(DaemonFixture.binary) reset-history; echo exit=$?", "/dev/null"], environment: env,
            input: "y\n")
        #expect(r.stdout.contains("exit=0"), "\(r.stdout)")
        #expect(try f.cli(["log", "--json", "--date", "2026-01-07"]).stdout == "[]\n")

        r = try runProcess("/usr/bin/script", ["-qec", "\(DaemonFixture.binary) project list", "/dev/null"], environment: env)
        #expect(r.stdout.contains("\u{1B}[38;2;255;136;0m●\u{1B}[0m"), "\(r.stdout)")
        #expect(!(try f.cli(["project", "list"])).stdout.contains("\u{1B}["), "no colour when piped")
        env["NO_COLOR"] = "1"
        r = try runProcess("/usr/bin/script", ["-qec", "\(DaemonFixture.binary) project list", "/dev/null"], environment: env)
        #expect(r.stdout.contains("Client A") && !r.stdout.contains("\u{1B}[38;2;"), "\(r.stdout)")
    }

    /// The daemon keeps a parsed line for the next time it comes (bars and keybindings send
    /// the same few): it is checked again for each caller, and the help, version and errors of
    /// a line the named command would parse alone are still the whole tree's.
    @Test func aLineRunAgainIsCheckedForItsCaller() throws {
        let f = try DaemonFixture()
        try f.cliOK(["add", "09:00-10:00", "--date", "2026-01-07"])
        var env = f.environment
        env["TERM"] = "xterm-256color"
        let asked = try runProcess(
            "/usr/bin/script", ["-qec", "\(DaemonFixture.binary) reset-history", "/dev/null"], environment: env, input: "no\n")
        #expect(asked.stdout.contains("Delete ALL recorded time? [y/N]"), "\(asked.stdout)")
        // The same line from a pipe: no terminal to ask on, a usage error, nothing deleted.
        let piped = try f.cli(["reset-history"], input: "y\n")
        let tool = try runProcess(Self.tool, ["reset-history"], environment: f.environment, input: "y\n")
        #expect(piped.status == 2 && tool.status == 2, "\(piped.stderr)")
        #expect(piped.stderr == tool.stderr && piped.stderr.contains("pass --yes"), "\(piped.stderr)")
        #expect(try f.cli(["log", "--json", "--date", "2026-01-07"]).stdout != "[]\n")

        // One line in two zones: each run reads its times in its caller's.
        var tokyo = f.environment
        tokyo["TZ"] = "Asia/Tokyo"
        var berlin = f.environment
        berlin["TZ"] = "Europe/Berlin"
        let line = ["add", "18:00-19:00", "--date", "2026-01-09"]
        #expect(try f.cli(line, environment: tokyo).status == 0)
        #expect(try f.cli(line, environment: berlin).status == 0)
        let r = try f.cli(["log", "--date", "2026-01-09", "--json"], environment: berlin)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        // 2026-01-09T09:00Z and 2026-01-09T17:00Z.
        #expect(rows.compactMap { $0["start"] as? Int } == [1_767_949_200_000_000, 1_767_978_000_000_000], "\(r.stdout)")

        for arguments in [["project", "list"], ["project", "list", "--help"], ["toggle", "--version"], ["log", "-h"], ["project", "list"]] {
            let front = try f.cli(arguments)
            let tool = try runProcess(Self.tool, arguments, environment: f.environment)
            #expect(front.status == tool.status && front.stdout == tool.stdout && front.stderr == tool.stderr, "\(arguments)")
        }
    }

    /// `status` shows a running focus timer, as the bars do.
    @Test func statusShowsTheFocusTimer() throws {
        let f = try DaemonFixture()
        #expect(try f.cli(["focus", "countdown", "4m", "--label", "Tea"]).status == 0)
        try f.cliOK(["focus", "pause"])
        let r = try f.cli(["status"])
        #expect(r.status == 0)
        #expect(r.stdout == "0:00:00 (0:00:00)\nFocus paused: Countdown, 4:00 left · Tea\n", "\(r.stdout)")
        #expect(try f.cli(["status", "--format", "{focus_label} {focus_state}"]).stdout == "Tea paused\n")
    }

    /// Times the user types are read in the caller's TZ, by the daemon.
    @Test func timesAreReadInTheCallersZone() throws {
        let f = try DaemonFixture()
        var tokyo = f.environment
        tokyo["TZ"] = "Asia/Tokyo"
        var berlin = f.environment
        berlin["TZ"] = "Europe/Berlin"
        #expect(try f.cli(["add", "18:00-19:00", "--date", "2026-01-07"], environment: tokyo).status == 0)
        #expect(try f.cli(["add", "18:00-19:00", "--date", "2026-01-08"], environment: berlin).status == 0)
        let r = try f.cli(["log", "--week", "--date", "2026-01-07", "--json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        // 2026-01-07T09:00Z and 2026-01-08T17:00Z.
        #expect(rows.compactMap { $0["start"] as? Int } == [1_767_776_400_000_000, 1_767_891_600_000_000], "\(r.stdout)")
        // Shown in the caller's zone too.
        #expect(try f.cli(["log", "--date", "2026-01-08"], environment: berlin).stdout.contains("2026-01-08 18:00"))
    }

    /// The completion scripts the front prints, loaded by Debian's bash, zsh and fish, complete
    /// subcommands, options and the projects' names (which the daemon answers).
    @Test func theShellsComplete() throws {
        let f = try DaemonFixture()
        try f.cliOK(["project", "add", "Client A"])
        try f.cliOK(["project", "add", "Internal"])
        let directory = try makeTemporaryDirectory("biomatimer-completion")
        defer { try? FileManager.default.removeItem(at: directory) }
        for shell in ["bash", "zsh", "fish"] {
            let script = try f.cli(["--generate-completion-script", shell])
            #expect(script.status == 0)
            let name = shell == "zsh" ? "_biomatimer" : "biomatimer.\(shell)"
            try script.stdout.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        var env = f.environment
        env["PATH"] = "\(productsDirectory.path):/usr/bin:/bin"
        env["FPATH_DIR"] = directory.path
        let bash = """
            source /usr/share/bash-completion/bash_completion 2>/dev/null
            source '\(directory.path)/biomatimer.bash'
            c() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
                COMPREPLY=(); _biomatimer biomatimer "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                printf '%s|' "${COMPREPLY[@]}"; echo; }
            c biomatimer pro; c biomatimer report --w; c biomatimer project start I; c biomatimer project start ''
            c biomatimer hooks run on-f
            """
        let lines = try runProcess("/usr/bin/bash", ["-c", bash], environment: env).stdout.split(separator: "\n").map(String.init)
        #expect(lines == ["project|", "--week|", "Internal|", "Client A|Internal|", "on-focus-start|on-focus-stop|"], "\(lines)")

        func zsh(_ line: String) throws -> [String] {
            let harness = repositoryRoot.appendingPathComponent("Tests/harness/zsh-complete.zsh").path
            return try runProcess("/usr/bin/zsh", ["-f", harness, line], environment: env).stdout
                .split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        }
        #expect(try zsh("biomatimer pro") == ["project"])
        #expect(try zsh("biomatimer report --w") == ["--week"])
        #expect(try zsh("biomatimer project start ") == ["Client\\ A", "Internal"])
        let events = try zsh("biomatimer hooks run on-b")
        #expect(events == ["on-budget", "on-back"], "\(events)")

        func fish(_ line: String) throws -> [String] {
            try runProcess(
                "/usr/bin/fish", ["--no-config", "--interactive", "-c", "source '\(directory.path)/biomatimer.fish'; complete -C '\(line)'"],
                environment: env
            ).stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        #expect(try fish("biomatimer pro") == ["project"])
        #expect(try fish("biomatimer report --w") == ["--week"])
        #expect(try fish("biomatimer project start ") == ["Client A", "Internal"])
        #expect(try fish("biomatimer add --project I") == ["Internal"])
        #expect(try fish("biomatimer hooks run on-t") == ["on-target-reached", "on-task-due"])
    }
}
