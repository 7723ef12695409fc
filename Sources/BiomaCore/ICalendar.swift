/// Recorded intervals as an iCalendar file (RFC 5545), so that a calendar shows the week: one
/// VEVENT per interval with a UID that stays the same across exports, SUMMARY the project
/// ("Work" without one), DESCRIPTION the note, DTSTART/DTEND/DTSTAMP in UTC; TEXT values
/// escaped, content lines folded at 75 octets (never inside a UTF-8 sequence), CRLF line ends.
public enum ICalendar {
    public static let productID = "-//biomatimer//biomatimer//EN"
    /// The SUMMARY of work without a project.
    public static let workSummary = "Work"

    public struct Event: Sendable, Equatable {
        public var uid: String
        public var start: Micros
        public var end: Micros
        public var summary: String
        public var description: String?
        /// The interval's tags, as CATEGORIES.
        public var categories: [String] = []

        public init(uid: String, start: Micros, end: Micros, summary: String, description: String?) {
            (self.uid, self.start, self.end, self.summary) = (uid, start, end, summary)
            self.description = description
        }

        /// A closed interval (the running one closed at now) as an event. The UID comes from
        /// the interval's row id and its start: it stays while the interval keeps them (a new
        /// project, note or end updates the same event), and a row id the store hands out again
        /// after a delete cannot collide with an old event.
        public init(row: IntervalRow, end: Micros, projectName: String?) {
            self.init(
                uid: ICalendar.uid(id: row.id, start: row.start), start: row.start, end: end,
                summary: projectName ?? ICalendar.workSummary, description: row.note)
            categories = Tags.parse(row.tags)
        }
    }

    /// The events of recorded rows in start order: the running one closed at `now` (left out
    /// when it started at or after now), SUMMARY the project's name (`projectName` of its id).
    public static func events(rows: [IntervalRow], projectName: (String) -> String?, now: Micros) -> [Event] {
        rows.sorted { ($0.start, $0.id) < ($1.start, $1.id) }.compactMap { row in
            let end = row.end ?? now
            guard end > row.start else { return nil }
            return Event(row: row, end: end, projectName: row.projectID.flatMap(projectName))
        }
    }

    /// `42-1732611600000000@biomatimer`.
    public static func uid(id: Int64, start: Micros) -> String { "\(id)-\(start)@biomatimer" }

    /// The calendar; `stamp` is the export's instant (DTSTAMP). Events in the order given.
    public static func encode(_ events: [Event], stamp: Micros, name: String? = nil) -> String {
        var out = ""
        func line(_ text: String) { out += fold(text) + "\r\n" }
        line("BEGIN:VCALENDAR")
        line("VERSION:2.0")
        line("PRODID:\(productID)")
        line("CALSCALE:GREGORIAN")
        if let name { line("X-WR-CALNAME:\(escape(name))") }
        let dtstamp = utc(stamp)
        for event in events {
            line("BEGIN:VEVENT")
            line("UID:\(escape(event.uid))")
            line("DTSTAMP:\(dtstamp)")
            // Whole seconds (the format has no fraction): the start rounded down, the end up,
            // so every event keeps a length.
            line("DTSTART:\(utc(event.start))")
            line("DTEND:\(utc(max(ceilSecond(event.end), floorDiv(event.start, microsPerSecond) * microsPerSecond + microsPerSecond)))")
            line("SUMMARY:\(escape(event.summary))")
            if let description = event.description, !description.isEmpty {
                line("DESCRIPTION:\(escape(description))")
            }
            if !event.categories.isEmpty { line("CATEGORIES:\(event.categories.map(escape).joined(separator: ","))") }
            line("END:VEVENT")
        }
        line("END:VCALENDAR")
        return out
    }

    static func ceilSecond(_ instant: Micros) -> Micros {
        -floorDiv(-instant, microsPerSecond) * microsPerSecond
    }

    /// `20261126T090000Z` (rounded down to the second).
    public static func utc(_ instant: Micros) -> String {
        let seconds = floorDiv(instant, microsPerSecond)
        let day = Day(ordinal: Int(floorDiv(seconds, 86_400)))
        let s = seconds - Int64(day.ordinal) * 86_400
        let date = day.description.replacingOccurrences(of: "-", with: "")
        return "\(date)T\(IntervalCSV.pad(s / 3600))\(IntervalCSV.pad(s / 60 % 60))\(IntervalCSV.pad(s % 60))Z"
    }

    /// TEXT escaping (RFC 5545 3.3.11): backslash, semicolon, comma, and line breaks as `\n`;
    /// other control characters, which TEXT cannot hold, are dropped.
    public static func escape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        var pending = scalars.next()
        while let scalar = pending {
            pending = scalars.next()
            switch scalar {
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            case ";": out.append(contentsOf: "\\;".unicodeScalars)
            case ",": out.append(contentsOf: "\\,".unicodeScalars)
            case "\r":
                if pending == "\n" { pending = scalars.next() }
                out.append(contentsOf: "\\n".unicodeScalars)
            case "\n", "\u{2028}", "\u{2029}": out.append(contentsOf: "\\n".unicodeScalars)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    if scalar == "\t" { out.append(" ") }
                    continue
                }
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Folds a content line (RFC 5545 3.1): no line longer than 75 octets, continuation lines
    /// starting with one space (which counts). Breaks fall between characters, so a reader
    /// that shows folded lines keeps emoji whole; a character longer than a line (a long
    /// combining sequence) is broken between its Unicode scalars, never inside a UTF-8 sequence.
    public static func fold(_ line: String) -> String {
        guard line.utf8.count > 75 else { return line }
        var out = String.UnicodeScalarView()
        var octets = 0
        var limit = 75
        func add(_ scalars: some Sequence<Unicode.Scalar>, size: Int) {
            if octets + size > limit {
                out.append(contentsOf: "\r\n ".unicodeScalars)
                octets = 1
                limit = 75
            }
            out.append(contentsOf: scalars)
            octets += size
        }
        for character in line {
            let size = character.utf8.count
            if size <= 74 {
                add(character.unicodeScalars, size: size)
            } else {
                for scalar in character.unicodeScalars { add(CollectionOfOne(scalar), size: String(scalar).utf8.count) }
            }
        }
        return String(out)
    }
}
