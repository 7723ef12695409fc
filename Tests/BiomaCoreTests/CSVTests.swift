@testable import BiomaCore
import Foundation
import Testing

@Suite struct CSVTests {
    let tz = zone("Europe/Berlin")

    @Test func exportFormat() {
        let rows = [
            IntervalCSV.Row(
                projectName: "R&D, \"internal\"", color: "#FF0000", start: t("2024-03-31T01:30:00+01:00"),
                end: t("2024-03-31T03:15:00+02:00")),
            IntervalCSV.Row(
                projectName: nil, color: nil, start: t("2024-07-01T09:00:00.25+02:00"),
                end: t("2024-07-01T19:00:00+02:00")),
            IntervalCSV.Row(
                projectName: "=HYPERLINK(\"x\")", color: "#00FF00", start: t("2024-07-02T09:00:00+02:00"),
                end: t("2024-07-02T09:01:00+02:00")),
        ]
        let csv = IntervalCSV.encode(rows, timeZone: tz)
        let expected = [
            "project,color,start,end,duration,note,tags",
            #""R&D, ""internal""",#FF0000,2024-03-31T01:30:00+01:00,2024-03-31T03:15:00+02:00,0:45:00,,"#,
            ",,2024-07-01T09:00:00.250000+02:00,2024-07-01T19:00:00+02:00,9:59:59,,",
            #""'=HYPERLINK(""x"")",#00FF00,2024-07-02T09:00:00+02:00,2024-07-02T09:01:00+02:00,0:01:00,,"#,
        ]
        #expect(csv == expected.map { $0 + "\r\n" }.joined())    }

    @Test func neutralisationIsReversedExactly() {
        for name in ["=1+1", "+49 phone", "-minus", "@home", "'=already", "''+two", "'plain", "plain", "a=b"] {
            #expect(IntervalCSV.restored(IntervalCSV.neutralized(name)) == name)
            let first = IntervalCSV.neutralized(name).first!
            #expect(!"=+-@".contains(first))
        }
        #expect(IntervalCSV.neutralized("'plain") == "'plain")
        #expect(IntervalCSV.neutralized("-x") == "'-x")
    }

    @Test func lordHoweOffsetsAndUTCInput() {
        let rules = DayRules(timeZone: zone("Australia/Lord_Howe"))
        let instant = t("2024-10-06T03:00:00+11:00")
        #expect(IntervalCSV.formatInstant(instant, rules: rules) == "2024-10-06T03:00:00+11:00")
        #expect(IntervalCSV.formatInstant(t("2024-10-06T01:59:00+10:30"), rules: rules) == "2024-10-06T01:59:00+10:30")
        #expect(IntervalCSV.parseInstant("2024-10-05T16:00:00Z") == instant)
    }

    @Test func importNamesTheFirstBadLine() {
        // Files written before notes existed: five columns.
        let header = IntervalCSV.headerWithoutNote + "\n"
        func error(_ csv: String) -> String? {
            do {
                _ = try IntervalCSV.decode(csv)
                return nil
            } catch { return error.message }
        }
        let good = "A,#112233,2024-01-01T09:00:00+01:00,2024-01-01T10:00:00+01:00,1:00:00\n"
        #expect(error(header + good) == nil)
        #expect(error(header + good + "A,#112233,2024-01-01T11:00:00+01:00,2024-01-01T10:00:00+01:00,x\n")?.hasPrefix("CSV line 3: the end is not after the start") == true)
        #expect(error(header + good + good + "A,#12,2024-01-01T11:00:00+01:00,2024-01-01T12:00:00+01:00,x\n")?.hasPrefix("CSV line 4: Colour '#12'") == true)
        #expect(error(header + "A,#112233,yesterday,2024-01-01T10:00:00+01:00,1:00:00\n")?.hasPrefix("CSV line 2: start 'yesterday'") == true)
        #expect(error(header + "A,#112233,2024-01-01T09:00:00+01:00\n")?.hasPrefix("CSV line 2: expected 5 cells, found 3") == true)
        #expect(error("when,what\n")?.hasPrefix("CSV line 1: expected the header") == true)
        #expect(error(header + "\"A\n") != nil)
        // A quoted cell spanning lines counts its lines.
        #expect(error(header + "\"A\nB\",#112233,2024-01-01T09:00:00+01:00,2024-01-01T10:00:00+01:00,1\n,,bad,bad,\n")?.hasPrefix("CSV line 2:") == true)
        #expect(error(header + "\r\n" + good + ",,bad,2024-01-01T10:00:00+01:00,\r\n")?.hasPrefix("CSV line 4: start 'bad'") == true)
    }
}

/// `formatInstant` writes its digits byte by byte: the same text as the plain interpolation it
/// replaced, for random instants (with and without a fraction, before 1970 too) in zones with
/// negative, half-hour and quarter-hour offsets.
@Suite struct InstantTextTests {
    static func reference(_ instant: Micros, rules: DayRules) -> String {
        func pad(_ value: Int64, width: Int = 2) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
        let second = floorDiv(instant, 1_000_000)
        let fraction = instant - second * 1_000_000
        let offset = rules.offsetSeconds(atSecond: second)
        let local = second + offset
        let day = Day(ordinal: Int(floorDiv(local, 86_400)))
        let secondOfDay = local - Int64(day.ordinal) * 86_400
        var text = "\(day)T\(pad(secondOfDay / 3600)):\(pad(secondOfDay / 60 % 60)):\(pad(secondOfDay % 60))"
        if fraction != 0 { text += "." + pad(fraction, width: 6) }
        let magnitude = abs(offset)
        text += "\(offset < 0 ? "-" : "+")\(pad(magnitude / 3600)):\(pad(magnitude / 60 % 60))"
        return text
    }

    @Test(arguments: ["UTC", "America/St_Johns", "Asia/Kathmandu", "Australia/Lord_Howe", "Pacific/Kiritimati", "Europe/Berlin"])
    func theSameTextAsBefore(zone: String) {
        let rules = DayRules(timeZone: TimeZone(identifier: zone)!)
        var generator = SystemRandomNumberGenerator()
        for index in 0..<2000 {
            var instant = Int64.random(in: -2_000_000_000_000_000...4_000_000_000_000_000, using: &generator)
            if index % 2 == 0 { instant -= instant % 1_000_000 }
            #expect(IntervalCSV.formatInstant(instant, rules: rules) == Self.reference(instant, rules: rules), "\(zone) \(instant)")
        }
    }
}

/// The CSV reader reads bytes: the same records, lines and errors as the scalar-by-scalar reader
/// it replaced, for random texts of quotes, commas, CR, LF, a byte-order mark and characters of
/// one to four bytes.
@Suite struct CSVRecordsTests {
    static func reference(_ text: String) throws(TrackerError) -> [IntervalCSV.Record] {
        var records: [IntervalCSV.Record] = []
        var cells: [String] = []
        var cell = String.UnicodeScalarView()
        var line = 1
        var recordLine = 1
        var inQuotes = false
        var quotedCell = false
        var closedQuote = false
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = scalars.next()
        if pending == "\u{FEFF}" { pending = scalars.next() }
        func endRecord() {
            cells.append(String(cell))
            cell = String.UnicodeScalarView()
            if !(cells.count == 1 && cells[0].isEmpty && !quotedCell) {
                records.append(IntervalCSV.Record(line: recordLine, cells: cells))
            }
            cells = []
            quotedCell = false
            closedQuote = false
        }
        while let scalar = pending {
            pending = scalars.next()
            if inQuotes {
                if scalar == "\"" {
                    if pending == "\"" {
                        cell.append("\"")
                        pending = scalars.next()
                    } else {
                        inQuotes = false
                        closedQuote = true
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    cell.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"":
                guard cell.isEmpty, !closedQuote else {
                    throw .invalidArgument("CSV line \(line): a quote inside an unquoted cell. Nothing was imported.")
                }
                inQuotes = true
                quotedCell = true
            case ",":
                closedQuote = false
                cells.append(String(cell))
                cell = String.UnicodeScalarView()
            case "\r":
                if pending == "\n" { pending = scalars.next() }
                endRecord()
                line += 1
                recordLine = line
            case "\n":
                endRecord()
                line += 1
                recordLine = line
            default:
                guard !closedQuote else {
                    throw .invalidArgument("CSV line \(line): text after a closing quote. Nothing was imported.")
                }
                cell.append(scalar)
            }
        }
        if inQuotes {
            throw .invalidArgument("CSV line \(recordLine): a quoted cell is not closed. Nothing was imported.")
        }
        if !cell.isEmpty || !cells.isEmpty || quotedCell { endRecord() }
        return records
    }

    static let alphabet: [String] = ["a", "7", " ", ",", "\"", "\"\"", "\r", "\n", "\r\n", "é", "€", "\u{1F600}", "'", "="]

    @Test func theSameRecordsAsBefore() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<5000 {
            var text = round % 7 == 0 ? "\u{FEFF}" : ""
            for _ in 0..<Int.random(in: 0...24, using: &generator) { text += Self.alphabet.randomElement(using: &generator)! }
            let new = Result { () throws(TrackerError) in try IntervalCSV.records(of: text) }
            let old = Result { () throws(TrackerError) in try Self.reference(text) }
            switch (new, old) {
            case (.success(let a), .success(let b)):
                #expect(a.map(\.line) == b.map(\.line) && a.map(\.cells) == b.map(\.cells), "\(text.debugDescription)")
            case (.failure(let a), .failure(let b)):
                #expect(a.message == b.message, "\(text.debugDescription)")
            default:
                Issue.record("\(text.debugDescription): \(new) against \(old)")
            }
        }
    }
}
