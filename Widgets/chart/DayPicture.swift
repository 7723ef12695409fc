// The picture of the day, as the chart renderers take it: every day's arcs on a 24-hour
// clock face and the totals for the legend. The daemon builds it from BiomaCore's DayChart
// (which knows the day rules and the time zone); drawing needs neither.

/// What `report --chart` and `report --svg` draw.
public struct DayPicture: Sendable, Equatable {
    public enum Kind: Sendable, Hashable {
        /// Index into `projects`.
        case project(Int)
        case noProject
        case unaccounted
    }

    /// A stretch on the 24-hour clock face: local clock seconds after midnight,
    /// `0 ≤ from < to ≤ 86 400`. Arcs come in time order; a later one may cover an earlier
    /// one (the repeated hour of a DST day), and places no arc covers are not in the day.
    public struct Arc: Sendable, Equatable {
        public var from: Int
        public var to: Int
        public var kind: Kind

        public init(from: Int, to: Int, kind: Kind) {
            self.from = from
            self.to = to
            self.kind = kind
        }
    }

    public struct Entry: Sendable, Equatable {
        public var name: String
        /// `#RRGGBB`.
        public var color: String
        /// Microseconds over the whole picture.
        public var total: Int64

        public init(name: String, color: String, total: Int64) {
            self.name = name
            self.color = color
            self.total = total
        }
    }

    public struct Day: Sendable, Equatable {
        /// `YYYY-MM-DD`.
        public var day: String
        /// 1 = Sunday … 7 = Saturday.
        public var weekday: Int
        /// Microseconds: 24 hours, or 23/25 on a DST day.
        public var length: Int64
        public var work: Int64
        public var arcs: [Arc]
        /// The clock second of the current time when the day is today: the hand.
        public var now: Int?

        public init(day: String, weekday: Int, length: Int64, work: Int64, arcs: [Arc], now: Int?) {
            self.day = day
            self.weekday = weekday
            self.length = length
            self.work = work
            self.arcs = arcs
            self.now = now
        }

        /// `Mon 2026-01-05`.
        public var label: String {
            let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
            return "\(names[(weekday - 1 + 7) % 7]) \(day)"
        }
    }

    /// `YYYY-MM-DD`, the first and last day.
    public var from: String
    public var to: String
    /// Projects with time in the range, in legend order (largest total first).
    public var projects: [Entry]
    public var noProject: Int64
    public var days: [Day]

    public init(from: String, to: String, projects: [Entry], noProject: Int64, days: [Day]) {
        self.from = from
        self.to = to
        self.projects = projects
        self.noProject = noProject
        self.days = days
    }

    /// Microseconds in the range (the sum of the days' lengths).
    public var length: Int64 { days.reduce(0) { $0 + $1.length } }
    public var work: Int64 { days.reduce(0) { $0 + $1.work } }
    public var unaccounted: Int64 { length - work }

    /// Work without a project: a neutral grey, darker than unaccounted time.
    public static let noProjectColor = "#8E8E93"
    /// Unaccounted time, as in the original design.
    public static let unaccountedColor = "#E0E0E0"
    /// The current-time hand.
    public static let handColor = "#FF0000"

    public func color(of kind: Kind) -> String {
        switch kind {
        case .project(let index): return projects.indices.contains(index) ? projects[index].color : Self.noProjectColor
        case .noProject: return Self.noProjectColor
        case .unaccounted: return Self.unaccountedColor
        }
    }

    /// The legend's rows: every project, work without a project (when there was some), and
    /// unaccounted time, each with its share of the range's length (they add up to 100 %).
    public var legend: [(kind: Kind, name: String, total: Int64, percent: Double)] {
        var rows = projects.enumerated().map { (kind: Kind.project($0.offset), name: $0.element.name, total: $0.element.total) }
        if noProject > 0 { rows.append((.noProject, "no project", noProject)) }
        rows.append((.unaccounted, "unaccounted", unaccounted))
        let length = self.length
        return rows.map { ($0.kind, $0.name, $0.total, length > 0 ? Double($0.total) * 100 / Double(length) : 0) }
    }
}
