import ArgumentParser
import BiomaSystem
import BiomaText
import BiomaWidgets
import CContract
import DBusCore
import BiomaContract

/// `report --chart` and `report --svg FILE`: the daemon draws the picture of the day
/// (ReportText with `Chart` or `Svg`), which is printed, or written to the file atomically.
extension ReportCommand {
    func validateChart() throws {
        if [json, chart, svg != nil].filter({ $0 }).count > 1 {
            throw ValidationError("--json, --chart and --svg are alternatives: use one.")
        }
        if let svg {
            if svg.isEmpty { throw ValidationError("--svg needs a file name (or - for standard output).") }
            if period != .day { throw ValidationError("--svg draws one day: use --date D, without --\(period.rawValue).") }
        }
    }

    func runChart() throws {
        let options: [(String, Bool)] = svg != nil ? [("Svg", true)] : [("Chart", true), ("Color", terminalStyle().color)]
        let text =
            try callDaemon(
                BIOMATIMER_TIMER1_REPORT_TEXT,
                [
                    .string(period.rawValue), .string(date ?? ""),
                    .vardict(ordered: options.map { ($0.0, .boolean($0.1)) }),
                ]
            ).first?.string ?? ""
        guard let svg, svg != "-" else {
            writeStandardOutput(text)
            return
        }
        try CommandContext.current.files.write(Array(text.utf8), to: svg)
    }
}
