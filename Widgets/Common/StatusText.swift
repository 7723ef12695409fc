// What `biomatimer status` prints: the published state as plain lines, a bar format or a
// template. It needs nothing but the published state, so it lives with the bars.

import BiomaText
import BiomaContract

/// What `biomatimer status` prints.
public enum StatusText {
    /// `format` nil: the plain lines, `0:05:30 (2:45:15)` and, with a project,
    /// `Client A 0:02:15 (1:30:45)`, and with a focus timer
    /// `Focus: Work 2/4, 12:34 left · Deep work`, with a target today
    /// `Target: 6:12 of 8:00 (77 %), balance -1:48`, and a line `Warning: FILE:LINE: …` per line
    /// of the settings file the daemon could not use; else the bar format or template it names
    /// (`json` for `--json`). Every line ends with a newline.
    public static func render(_ state: WidgetState, now: Int64, format: String?, ascii: Bool) throws(WidgetFormatError)
        -> String
    {
        if let format {
            return try WidgetFormats.renderer(for: format, options: RenderOptions(ascii: ascii)).render(state, now: now) + "\n"
        }
        let live = state.advanced(to: now)
        var out = "\(DurationFormat.hms(live.sessionTime)) (\(DurationFormat.hms(live.dailyTotal)))\n"
        if live.hasProject {
            out += "\(TextEscaping.singleLine(live.activeProjectName)) \(DurationFormat.hms(live.projectSessionTime)) "
            out += "(\(DurationFormat.hms(live.projectDailyTotal)))\n"
        }
        let display = WidgetDisplay(state, now: now, options: RenderOptions(ascii: ascii, maxNameWidth: nil))
        if let percent = display.targetPercent {
            out += "Target: \(display.targetWorked) of \(display.target) (\(percent) %), balance \(display.balance)\n"
        }
        let focus = display.focus
        if focus.active { out += focus.sentence + "\n" }
        for problem in display.configProblems { out += "Warning: \(problem)\n" }
        return out
    }
}
