import BiomaCore
import Foundation
import PropertyBased
import Testing

/// Rounding, notes and the calendar's text over random inputs.
@Suite struct GoalsProperties {
    static let roundings: [Rounding] = Rounding.steps.flatMap { minutes in
        Rounding.Mode.allCases.flatMap { mode in Rounding.Per.allCases.map { Rounding(minutes: minutes, mode: mode, per: $0) } }
    }

    @Test func roundedDurationsStayWithinAStep() async {
        await propertyCheck(
            count: 500, input: Gen.int(in: 0...(Self.roundings.count - 1)), Gen.int(in: 0...(48 * 3600 * 1000))
        ) { index, millis in
            let rounding = Self.roundings[index]
            let duration = Micros(millis) * 1000
            let rounded = rounding.rounded(duration)
            #expect(rounded % rounding.step == 0)
            switch rounding.mode {
            case .up: #expect(rounded >= duration && rounded - duration < rounding.step)
            case .nearest: #expect(abs(rounded - duration) * 2 <= rounding.step)
            }
        }
    }

    /// The exact totals agree with the report's, per interval and per day, in any zone.
    @Test func exactTotalsAgreeWithTheReport() async {
        let zones = [
            DayRules(timeZone: zone("Europe/Berlin")), DayRules(timeZone: zone("Europe/Berlin"), dayStartMinutes: 240),
            DayRules(timeZone: zone("Australia/Lord_Howe")),
        ]
        let origin = t("2024-03-29T00:00:00Z")
        await propertyCheck(
            count: 200, input: Gen.int(in: 0...(zones.count * Self.roundings.count - 1)),
            Gen.int(in: 0...(6 * 24 * 60)).array(of: 0...30)
        ) { index, minutes in
            let rules = zones[index % zones.count]
            let rounding = Self.roundings[index / zones.count]
            let cuts = minutes.sorted().map { origin + Micros($0) * minute }
            var intervals: [Interval] = []
            for pair in stride(from: 0, to: cuts.count - 1, by: 2) where cuts[pair] < cuts[pair + 1] {
                intervals.append(Interval(start: cuts[pair], end: cuts[pair + 1], projectID: pair % 4 == 0 ? "a" : nil))
            }
            let from = rules.day(containing: origin).adding(days: 1)
            let to = from.adding(days: 3)
            let report = Report(
                from: from, to: to, boundaries: rules.boundaries(from: from, to: to), intervals: intervals, projects: [])
            let totals = RoundedTotals(intervals: intervals, from: from, to: to, rules: rules, rounding: rounding)
            #expect(totals.exactTotal == report.workTotal)
            #expect(totals.total(of: nil).exact == report.noProjectTotal)
            if rounding.mode == .up { #expect(totals.roundedTotal >= totals.exactTotal) }
            if rounding.per == .day {
                for line in totals.lines { #expect(from <= line.day && line.day <= to) }
            }
        }
    }

    static let pieces: [String] = [
        "a", "Z", " ", ",", ";", "\"", "'", "=", "-", "@", "\\", "é", "€", "👩‍💻", "\u{301}", "\n", "\r", "\t", "\u{7}",
        "\u{2028}", "x,y",
    ]

    /// A note is valid or refused; a valid note survives CSV export and import, and the
    /// calendar's escaped, folded line keeps it.
    @Test func validNotesSurviveExportAndImport() async {
        await propertyCheck(
            count: 400, input: Gen.int(in: 0...(Self.pieces.count - 1)).array(of: 0...520)
        ) { indices in
            let raw = indices.map { Self.pieces[$0] }.joined()
            let note: String?
            do {
                note = try IntervalNote.validated(raw)
            } catch {
                #expect(raw.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{2028}" } || raw.count > 500)
                return
            }
            #expect(note.map { try? IntervalNote.validated($0) } ?? nil == note)
            let row = IntervalCSV.Row(projectName: nil, color: nil, start: 0, end: microsPerSecond, note: note)
            let csv = IntervalCSV.encode([row], timeZone: zone("UTC"))
            #expect((try? IntervalCSV.decode(csv))?.first?.note == note)
            guard let note else { return }
            let line = ICalendar.fold("DESCRIPTION:" + ICalendar.escape(note))
            #expect(line.utf8.split(separator: 10).allSatisfy { $0.count <= 76 })
            // Unfolded and unescaped scalar by scalar (a note may start with a combining mark,
            // which joins the colon into one character).
            var unescaped = String.UnicodeScalarView()
            var escaping = false
            let unfolded = line.replacingOccurrences(of: "\r\n ", with: "").unicodeScalars
            for scalar in unfolded.dropFirst("DESCRIPTION:".unicodeScalars.count) {
                if escaping {
                    unescaped.append(scalar == "n" ? "\n" : scalar)
                    escaping = false
                } else if scalar == "\\" {
                    escaping = true
                } else {
                    unescaped.append(scalar)
                }
            }
            #expect(String(unescaped) == note)
        }
    }
}
