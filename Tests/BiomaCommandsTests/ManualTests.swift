import ArgumentParser
import BiomaCommands
import BiomaWidgets
import CContract
import Foundation
import Testing

/// The manual page as `install` writes it: man(7) that mandoc and groff read without a
/// warning, a manual's sections and none of the help screens' repetitions, and what it lists
/// held to the command tree, the template fields, the contract's exit codes and the settings
/// README.md documents.
@Suite struct ManualTests {
    static let page = Manual.page(version: Biomatimer.configuration.version, date: "2026-01-01")
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A section's source, from its `.SH` to the next, its lines joined by spaces (a filled line
    /// may break anywhere).
    static func section(_ name: String) -> String {
        guard let start = page.range(of: "\n.SH \(name)\n") else { return "" }
        let rest = page[start.upperBound...]
        let end = rest.range(of: "\n.SH ")?.lowerBound ?? rest.endIndex
        return rest[..<end].replacingOccurrences(of: "\n", with: " ")
    }

    /// Runs a program on the page in a file; its exit status, standard output and error.
    static func read(with program: String, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        #expect(FileManager.default.isExecutableFile(atPath: program), "\(program) is not installed (make deps)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("biomatimer-manual-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("biomatimer.1")
        try Data(page.utf8).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments + [file.path]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    @Test func mandocAndGroffFindNothingToSay() throws {
        let mandoc = try Self.read(with: "/usr/bin/mandoc", ["-T", "lint", "-W", "style"])
        #expect(mandoc.status == 0 && mandoc.out.isEmpty && mandoc.err.isEmpty, "\(mandoc.out)\(mandoc.err)")
        let groff = try Self.read(with: "/usr/bin/groff", ["-ww", "-man", "-Tutf8", "-P-cbou"])
        #expect(groff.status == 0 && groff.err.isEmpty, "\(groff.err)")
        #expect(groff.out.contains("biomatimer project start"))
        // Every character is ASCII: the rest are escapes, which both read.
        let ascii = Self.page.unicodeScalars.allSatisfy { $0.isASCII }
        #expect(ascii)
    }

    @Test func aManualsSectionsAndNoHelpScreens() {
        let headings = Self.page.split(separator: "\n").filter { $0.hasPrefix(".SH ") }.map { String($0.dropFirst(4)) }
        #expect(
            headings == [
                "NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "TEMPLATE FIELDS", "EXIT STATUS", "ENVIRONMENT", "FILES",
                "EXAMPLES", "SEE ALSO",
            ], "\(headings)")
        #expect(Self.page.hasPrefix(".TH BIOMATIMER 1 2026-01-01 \"biomatimer \(Biomatimer.configuration.version)\""))
        #expect(Self.page.contains("\n.SH NAME\nbiomatimer \\- a work timer"))
        #expect(!Self.page.contains("OVERVIEW:") && !Self.page.contains("USAGE:") && !Self.page.contains("OPTIONS:"))
        let joined = Self.page.replacingOccurrences(of: "\n", with: " ")
        #expect(joined.components(separatedBy: "Show the version").count - 1 <= 1)
        #expect(joined.components(separatedBy: "Show help information").count - 1 <= 1)
        // No command's synopsis repeats --help or --version.
        for flag in ["[\\fB\\-h\\fR", "[\\fB\\-\\-help\\fR]", "[\\fB\\-\\-version\\fR]"] {
            #expect(!Self.page.contains(flag), "\(flag)")
        }
    }

    /// Every command shown by `--help` has its entry (its names in bold), a family its heading.
    @Test func everyCommandIsInCommands() {
        let commands = Self.section("COMMANDS")
        func walk(_ command: any ParsableCommand.Type, _ names: [String]) {
            for sub in command.configuration.subcommands where sub.configuration.shouldDisplay {
                let path = names + [sub._commandName]
                if names.count == 1 && !sub.configuration.subcommands.isEmpty {
                    // A family: its own heading.
                    #expect(commands.contains(".SS \"\(sub._commandName)\" "), "\(path)")
                } else {
                    #expect(commands.contains("\\fB" + path.joined(separator: " ").replacingOccurrences(of: "-", with: "\\-") + "\\fR"), "\(path)")
                }
                walk(sub, path)
            }
        }
        walk(Biomatimer.self, ["biomatimer"])
        // A synopsis and a sentence: `project start` takes a PROJECT and runs it.
        #expect(commands.contains("\\fBbiomatimer project start\\fR \\fIPROJECT\\fR [\\fITAGS\\fR\\ ...] .RS Run a project (starting work if needed)."))
        #expect(commands.contains("[\\fB\\-o\\fR|\\fB\\-\\-output\\fR\\ \\fIOUTPUT\\fR]"))
    }

    @Test func templateFieldsExitStatusAndFiles() throws {
        let fields = Self.section("TEMPLATE FIELDS")
        for field in TemplateField.allCases { #expect(fields.contains(".TP \\fB{\(field.rawValue)}\\fR "), "{\(field.rawValue)}") }
        for format in WidgetFormats.names { #expect(fields.contains("\\fB\(format)\\fR"), "\(format)") }

        let exit = Self.section("EXIT STATUS")
        for code in [BIOMATIMER_EXIT_DONE, BIOMATIMER_EXIT_REFUSED, BIOMATIMER_EXIT_USAGE, BIOMATIMER_EXIT_UNAVAILABLE] {
            #expect(exit.contains(".TP .B \(code) "), "\(code)")
        }
        #expect(exit.contains("usage") && exit.contains("No session bus, no daemon"))

        // Every key of README.md's settings block, and the three places.
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        let settings = try #require(
            blocks.first { block in
                let lines = block.split(separator: "\n").filter { !$0.isEmpty }
                return lines.count > 5 && lines.allSatisfy { $0.range(of: #"^[a-z_]+ = "#, options: .regularExpression) != nil }
            }, "README.md has no block of settings")
        let keys = settings.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(keys.contains("day_start") && keys.contains("sync_dir"), "\(keys)")
        let files = Self.section("FILES")
        for key in keys { #expect(files.contains(key), "FILES does not name \(key)") }
        for place in ["$XDG_CONFIG_HOME/biomatimer/config", "$XDG_CONFIG_HOME/biomatimer/hooks/", "$XDG_DATA_HOME/biomatimer/", "biomatimer.sqlite", "backups/"] {
            #expect(files.contains(place), "\(place)")
        }
    }

    /// Each example is a command line the tree parses.
    @Test func theExamplesParse() throws {
        let source = Self.page.components(separatedBy: "\n.SH EXAMPLES\n").last?.components(separatedBy: "\n.SH ").first ?? ""
        let lines = source.components(separatedBy: ".nf\n").dropFirst().compactMap { $0.components(separatedBy: "\n.fi").first }
        #expect(lines.count >= 8)
        for line in lines {
            var text = line
            for (escape, character) in [("\\fB", ""), ("\\fR", ""), ("\\fI", ""), ("\\&", ""), ("\\-", "-"), ("\\(aq", "'"), ("\\e", "\\")] {
                text = text.replacingOccurrences(of: escape, with: character)
            }
            let words = Self.shellWords(text)
            let arguments = Array(words[((words.lastIndex(of: "biomatimer") ?? -1) + 1)...])
            #expect(words.contains("biomatimer") && !arguments.isEmpty, "\(text)")
            #expect(throws: Never.self, "\(text)") { _ = try Biomatimer.parseAsRoot(arguments) }
        }
    }

    /// Words as sh splits them (quotes, no expansions).
    static func shellWords(_ line: String) -> [String] {
        var words: [String] = []
        var word: String?
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { word = (word ?? "") + String(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                word = word ?? ""
            } else if character == " " {
                if let done = word { words.append(done) }
                word = nil
            } else {
                word = (word ?? "") + String(character)
            }
        }
        if let word { words.append(word) }
        return words
    }
}
