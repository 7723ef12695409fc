import ArgumentParser
import BiomaText
import DBusCore
import CSystem
import BiomaContract

/// `report --html FILE|-` and `report --pdf FILE|-`: the timesheet to hand over, for the
/// period or `--from/--to`, filtered by `--client`, `--project`, `--tag`.
struct TimesheetOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp("Write the timesheet as one self-contained HTML page to <file> (- for standard output).", valueName: "file"),
        completion: .file())
    var html: String?
    @Option(
        help: ArgumentHelp("Write the timesheet as a PDF (A4 or --paper letter) to <file>, drawn by rsvg-convert.", valueName: "file"),
        completion: .file())
    var pdf: String?
    @Option(help: "The PDF's paper: a4 (the default) or letter.") var paper: String?
    @Option(help: "Only this client's projects (the totals grouped, or the timesheet).") var client: String?
    @Option(help: "Only this project (the totals grouped, or the timesheet).", completion: .projects) var project: String?
    @Option(help: "Only intervals with this tag (the totals grouped, or the timesheet).") var tag: String?
    @Option(help: "First day (today, yesterday, a weekday, YYYY-MM-DD), with --to, instead of the period.") var from: String?
    @Option(help: "Last day, as --from (with --from).") var to: String?
    @Option(help: "Group the totals by client, project, tag or day (hours, rounded hours, amount).") var by: Grouping?

    enum Grouping: String, ExpressibleByArgument, CaseIterable {
        case client, project, tag, day
    }

    var isEmpty: Bool { html == nil && pdf == nil }
    /// Filtered or grouped: the grouped table (or its JSON) instead of the report's. A range
    /// alone (`--from/--to`) is the report's own table, as a week's.
    var grouped: Bool { isEmpty && (by != nil || [client, project, tag].contains { $0 != nil }) }
    var target: String? { html ?? pdf }

    func validate() throws {
        if html != nil && pdf != nil { throw ValidationError("--html and --pdf are alternatives: use one.") }
        if let target, target.isEmpty { throw ValidationError("--\(html != nil ? "html" : "pdf") needs a file name (or - for standard output).") }
        if by != nil && !isEmpty { throw ValidationError("--by is for the table or --json, not --html or --pdf.") }
        if paper != nil && pdf == nil { throw ValidationError("--paper goes with --pdf.") }
        if let paper, !["a4", "letter"].contains(paper.lowercased()) {
            throw ValidationError("--paper \(paper) is not a paper size: use a4 or letter.")
        }
        if let tag, let problem = TagText.problem(tag) { throw ValidationError(problem) }
        let (from, to) = (try dayOption(from, "--from"), try dayOption(to, "--to"))
        if (from == nil) != (to == nil) { throw ValidationError("--from and --to go together.") }
        if let from, let to, to < from { throw ValidationError("The period ends (\(to)) before it starts (\(from)).") }
    }

    /// The `ReportText` options.
    var options: [(String, DBusValue)] {
        var options: [(String, DBusValue)] = isEmpty ? [] : [(html != nil ? "Html" : "PdfPages", .boolean(true))]
        if let by { options.append(("By", .string(by.rawValue))) }
        if let paper { options.append(("Paper", .string(paper.lowercased()))) }
        if let client { options.append(("Client", .string(client))) }
        if let project { options.append(("Project", .string(project))) }
        if let tag { options.append(("Tag", .string(TagText.word(tag)))) }
        if let from = try? dayOption(from, "--from"), let to = try? dayOption(to, "--to") {
            options += [("From", .string(from)), ("To", .string(to))]
        }
        return options
    }
}

extension ReportCommand {
    func runTimesheet() throws {
        try writeTimesheet()
        // The page or the pages and the PDF were held by this thread (the daemon's, when the
        // front runs the command): the memory they took is given back once they are gone.
        malloc_trim(0)
    }

    private func writeTimesheet() throws {
        if sheet.pdf == "-" && CommandContext.current.stdoutTTY {
            throw ClientFailure(
                exitCode: ExitCode.refused, "standard output is a terminal: give --pdf a file name, or redirect it (> timesheet.pdf).")
        }
        let text =
            try callDaemon(
                "ReportText", [.string(period.rawValue), .string(date ?? ""), .vardict(ordered: sheet.options + extras.options)]
            ).first?.string ?? ""
        var bytes = Array(text.utf8)
        if sheet.pdf != nil {
            do {
                bytes = try PDFDrawing.draw(pages: text.split(separator: "\u{0C}").map(String.init))
            } catch let failure as PDFDrawing.Failure {
                throw ClientFailure(exitCode: ExitCode.refused, failure.description)
            }
        }
        guard let target = sheet.target else { return writeStandardOutput(text) }
        try CommandContext.current.files.write(bytes, to: target)
    }
}
