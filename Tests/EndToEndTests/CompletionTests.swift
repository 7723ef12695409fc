import Foundation
import Testing

import TestSupport

/// What Debian's bash, zsh and fish complete with the scripts the front prints, in a folder
/// holding a file and a folder: file names where a command takes a file (`import`, `export
/// -o`, `report --html`/`--pdf`), folders for `sync enable`, the bars' formats, and names and
/// ids the daemon answers through the front (`---completion`) — and nothing, at once and
/// silently, when no daemon answers.
@Suite(.ownThreadLong, .timeLimit(.minutes(3)))
struct CompletionTests {
    /// The scripts in a folder, a caller's folder with `week.csv` and `timesheets/` in it, and
    /// the three shells run there with the built front first on `PATH`.
    struct Shells {
        let scripts: URL
        let here: URL
        let environment: [String: String]

        init(_ f: DaemonFixture) throws {
            scripts = try makeTemporaryDirectory("biomatimer-completion")
            here = try makeTemporaryDirectory("biomatimer-caller")
            try Data("project,color,start,end,duration\r\n".utf8).write(to: here.appendingPathComponent("week.csv"))
            try FileManager.default.createDirectory(at: here.appendingPathComponent("timesheets"), withIntermediateDirectories: false)
            for shell in ["bash", "zsh", "fish"] {
                let script = try runProcess(DaemonFixture.binary, ["--generate-completion-script", shell], environment: f.environment)
                #expect(script.status == 0, "\(script.stderr)")
                let name = shell == "zsh" ? "_biomatimer" : "biomatimer.\(shell)"
                try script.stdout.write(to: scripts.appendingPathComponent(name), atomically: true, encoding: .utf8)
            }
            var env = f.environment
            env["PATH"] = "\(productsDirectory.path):/usr/bin:/bin"
            env["FPATH_DIR"] = scripts.path
            env["HOME"] = here.path
            environment = env
        }

        func remove() {
            try? FileManager.default.removeItem(at: scripts)
            try? FileManager.default.removeItem(at: here)
        }

        /// bash's COMPREPLY for each line's last word, one `|`-joined line each, and stderr.
        func bash(_ lines: [[String]]) throws -> (replies: [String], stderr: String) {
            let calls = lines.map { words in "c " + words.map { "'\($0)'" }.joined(separator: " ") }.joined(separator: "\n")
            let script = """
                cd '\(here.path)'
                source /usr/share/bash-completion/bash_completion 2>/dev/null
                source '\(scripts.path)/biomatimer.bash'
                c() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
                    COMPREPLY=(); _biomatimer biomatimer "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                    printf '%s|' "${COMPREPLY[@]}"; echo; }
                \(calls)
                """
            let r = try runProcess("/usr/bin/bash", ["-c", script], environment: environment)
            return (r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init), r.stderr)
        }

        /// What zsh completes for `line`, one match a line.
        func zsh(_ line: String) throws -> [String] {
            let harness = repositoryRoot.appendingPathComponent("Tests/harness/zsh-complete.zsh").path
            let r = try runProcess("/bin/sh", ["-c", "cd \"$1\" && exec /usr/bin/zsh -f \"$2\" \"$3\"", "sh", here.path, harness, line], environment: environment)
            return r.stdout.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        }

        /// What fish completes for `line`, without descriptions.
        func fish(_ line: String) throws -> [String] {
            let command = "cd '\(here.path)'; source '\(scripts.path)/biomatimer.fish'; complete -C '\(line)'"
            return try runProcess("/usr/bin/fish", ["--no-config", "--interactive", "-c", command], environment: environment).stdout
                .split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
    }

    /// A file, a folder or a format where one is taken, in the three shells.
    @Test func filesFoldersAndFormats() throws {
        let f = try DaemonFixture()
        let shells = try Shells(f)
        defer { shells.remove() }

        let bash = try shells.bash([
            ["biomatimer", "import", ""], ["biomatimer", "import", "--format", "csv", "we"], ["biomatimer", "export", "-o", ""],
            ["biomatimer", "export", "--output", "w"], ["biomatimer", "report", "--week", "--html", "w"],
            ["biomatimer", "report", "--pdf", ""], ["biomatimer", "sync", "enable", ""], ["biomatimer", "watch", "--format", ""],
            ["biomatimer", "status", "--format", "wa"],
        ])
        #expect(
            bash.replies == [
                "timesheets|week.csv|", "week.csv|", "timesheets|week.csv|", "week.csv|", "week.csv|", "timesheets|week.csv|",
                "timesheets|", "island|waybar|i3blocks|polybar|tmux|json|", "waybar|",
            ], "\(bash)")

        for (line, expected) in [
            ("biomatimer import ", ["timesheets", "week.csv"]), ("biomatimer export -o w", ["week.csv"]),
            ("biomatimer report --pdf w", ["week.csv"]), ("biomatimer watch --format wa", ["waybar"]),
        ] {
            let zsh = try shells.zsh(line)
            #expect(zsh == expected, "zsh: \(line)")
        }
        // Folders first (the harness's compadd adds nothing, so `_files -/` goes on to offer
        // every file after them).
        #expect(try shells.zsh("biomatimer sync enable ").first == "timesheets")
        for (line, expected) in [
            ("biomatimer import ", ["timesheets/", "week.csv"]), ("biomatimer export -o w", ["week.csv"]),
            ("biomatimer report --html w", ["week.csv"]), ("biomatimer sync enable ", ["timesheets/"]),
            ("biomatimer watch --format wa", ["waybar"]),
        ] {
            let fish = try shells.fish(line)
            #expect(fish == expected, "fish: \(line)")
        }
    }

    /// Names and ids the daemon knows, asked through the front: projects, open tasks, presets.
    @Test func namesAndIdsFromTheDaemon() throws {
        let f = try DaemonFixture()
        try f.cliOK(["project", "add", "Client A"])
        try f.cliOK(["project", "add", "Internal"])
        try f.cliOK(["task", "add", "Call the bank"])
        try f.cliOK(["focus", "preset", "add", "Tea", "countdown", "--duration", "4m"])
        let shells = try Shells(f)
        defer { shells.remove() }

        let bash = try shells.bash([
            ["biomatimer", "project", "start", ""], ["biomatimer", "project", "delete", "I"], ["biomatimer", "start", "C"],
            ["biomatimer", "task", "done", ""], ["biomatimer", "task", "snooze", "t"], ["biomatimer", "focus", "start", ""],
        ])
        #expect(bash.replies == ["Client A|Internal|", "Internal|", "Client A|", "t1|", "t1|", "Tea|"], "\(bash)")
        #expect(bash.stderr == "")

        #expect(try shells.zsh("biomatimer project start ") == ["Client\\ A", "Internal"])
        #expect(try shells.zsh("biomatimer task done ") == ["t1"])
        #expect(try shells.zsh("biomatimer focus start ") == ["Tea"])
        #expect(try shells.fish("biomatimer project start ") == ["Client A", "Internal"])
        #expect(try shells.fish("biomatimer task done ") == ["t1"])
        #expect(try shells.fish("biomatimer project edit I") == ["Internal"])
    }

    /// A daemon that does not answer (stopped), or none at all: the shell gets nothing, within
    /// the completion's short wait, and no message on the terminal.
    @Test func noAnswerCompletesNothingAtOnce() throws {
        let f = try DaemonFixture()
        try f.cliOK(["task", "add", "Call the bank"])
        let shells = try Shells(f)
        defer { shells.remove() }
        let pid = try #require(try f.daemonPID())
        kill(pid, SIGSTOP)
        defer { kill(pid, SIGCONT) }
        var start = Date()
        let stopped = try shells.bash([["biomatimer", "task", "done", ""]])
        #expect(stopped.replies == ["|"] && stopped.stderr == "", "\(stopped)")
        #expect(Date().timeIntervalSince(start) < 5, "a stopped daemon held the shell \(Date().timeIntervalSince(start)) s")
        kill(pid, SIGCONT)

        let none = try DaemonFixture(activation: false)
        let alone = try Shells(none)
        defer { alone.remove() }
        start = Date()
        let absent = try alone.bash([["biomatimer", "project", "start", ""], ["biomatimer", "task", "done", ""]])
        #expect(absent.replies == ["|", "|"] && absent.stderr == "", "\(absent)")
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(try alone.fish("biomatimer task done ") == [])
    }
}
