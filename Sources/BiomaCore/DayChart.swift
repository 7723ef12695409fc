/// The picture of each day in a range: what every moment of the day was (a project's work,
/// work without a project, or unaccounted), both as instants and as the places on a 24-hour
/// clock face where it happened. `report --chart` and `report --svg` draw it.
///
/// A day is the span `DayRules` gives it (a day start of 04:00 runs to 04:00 the next
/// morning; DST days are 23 or 25 hours long). The clock face shows local clock time: on a
/// day that starts after midnight, the small hours on the face are the night that ends the
/// day. On the day clocks go forward, the skipped hour has no arc (the face is empty there);
/// on the day they go back, the repeated hour is drawn twice on the same place, the second
/// time over the first. Totals always count real time, so such a day has 23 or 25 hours.
public struct DayChart: Sendable, Equatable {
    public enum Kind: Sendable, Hashable {
        case project(String)
        case noProject
        /// No work recorded: before, between and after intervals (for today also the hours
        /// still to come).
        case unaccounted
    }

    /// A stretch of the day, `start ..< end`.
    public struct Segment: Sendable, Equatable {
        public var start: Micros
        public var end: Micros
        public var kind: Kind

        /// The project's id, nil for work without a project and for unaccounted time.
        public var projectID: String? {
            if case .project(let id) = kind { return id }
            return nil
        }
    }

    /// A segment's place on the 24-hour clock face: local clock seconds after midnight,
    /// `0 ≤ from < to ≤ 86 400`.
    public struct Arc: Sendable, Equatable {
        public var from: Int
        public var to: Int
        public var kind: Kind

        public init(from: Int, to: Int, kind: Kind) {
            (self.from, self.to, self.kind) = (from, to, kind)
        }
    }

    public struct DayPart: Sendable, Equatable {
        public var day: Day
        public var start: Micros
        public var end: Micros
        /// Every moment of `start ..< end`, in order, adjacent segments of different kinds.
        public var segments: [Segment]
        /// On the clock face, in time order.
        public var arcs: [Arc]
        /// Work (with and without a project) of this day.
        public var totals: DayTotals
        /// The local clock second of `now` when the day contains it (the hand), else nil.
        public var now: Int?

        public init(
            day: Day, start: Micros, end: Micros, segments: [Segment], arcs: [Arc], totals: DayTotals, now: Int?
        ) {
            (self.day, self.start, self.end, self.segments) = (day, start, end, segments)
            (self.arcs, self.totals, self.now) = (arcs, totals, now)
        }

        public var length: Micros { end - start }
        public var unaccounted: Micros { length - totals.work }
    }

    public var from: Day
    public var to: Day
    public var days: [DayPart]
    /// Over the whole range.
    public var totals: DayTotals
    public var length: Micros { days.reduce(0) { $0 + $1.length } }
    public var unaccounted: Micros { length - totals.work }

    /// A chart given by its days (a picture drawn by hand); the range's totals are the days'.
    public init(from: Day, to: Day, days: [DayPart]) {
        (self.from, self.to, self.days) = (from, to, days)
        var all = DayTotals()
        for day in days {
            all.work += day.totals.work
            all.noProject += day.totals.noProject
            all.byProject.merge(day.totals.byProject, uniquingKeysWith: +)
        }
        self.totals = all
    }

    /// Builds the chart of `from...to` from `intervals` (any order, never overlapping; the
    /// running one already closed at `now`). `now` places the hand on the day containing it.
    public init(from: Day, to: Day, intervals: [Interval], rules: DayRules, now: Micros?) {
        precondition(from <= to)
        let sorted = intervals.filter { $0.end > $0.start }.sorted { $0.start < $1.start }
        self.from = from
        self.to = to
        var days: [DayPart] = []
        var all = DayTotals()
        var cursor = 0
        let boundaries = rules.boundaries(from: from, to: to)
        for index in 0..<(boundaries.count - 1) {
            let (low, high) = (boundaries[index], boundaries[index + 1])
            while cursor < sorted.count, sorted[cursor].end <= low { cursor += 1 }
            var segments: [Segment] = []
            var totals = DayTotals()
            var position = low
            func append(_ start: Micros, _ end: Micros, _ kind: Kind) {
                guard end > start else { return }
                if let last = segments.last, last.kind == kind, last.end == start {
                    segments[segments.count - 1].end = end
                } else {
                    segments.append(Segment(start: start, end: end, kind: kind))
                }
            }
            var next = cursor
            while next < sorted.count, sorted[next].start < high {
                let interval = sorted[next]
                let start = max(interval.start, low, position)
                let end = min(interval.end, high)
                if end > start {
                    append(position, start, .unaccounted)
                    append(start, end, interval.projectID.map(Kind.project) ?? .noProject)
                    totals.add(start, end, interval.projectID, within: low, high)
                    all.add(start, end, interval.projectID, within: low, high)
                    position = end
                }
                next += 1
            }
            append(position, high, .unaccounted)
            let day = from.adding(days: index)
            let hand = now.flatMap { ($0 >= low && $0 < high) ? rules.clockSecond(of: $0) : nil }
            days.append(
                DayPart(
                    day: day, start: low, end: high, segments: segments,
                    arcs: segments.flatMap { rules.arcs(of: $0) }, totals: totals, now: hand))
        }
        self.days = days
        self.totals = all
    }
}

extension DayRules {
    /// Local clock seconds after midnight at an instant, `0 ..< 86 400`.
    public func clockSecond(of instant: Micros) -> Int {
        let second = floorDiv(instant, microsPerSecond)
        let local = second + offsetSeconds(atSecond: second)
        return Int(local - floorDiv(local, 86_400) * 86_400)
    }

    /// Where a segment lies on the 24-hour clock face: cut where the clock jumps (a DST
    /// change) and where it passes midnight. Pieces shorter than a second are dropped.
    func arcs(of segment: DayChart.Segment) -> [DayChart.Arc] {
        var arcs: [DayChart.Arc] = []
        var start = segment.start
        while start < segment.end {
            // The local time runs on at one offset until the next transition or the end.
            let offset = offsetSeconds(atSecond: floorDiv(start, microsPerSecond))
            var end = segment.end
            let last = floorDiv(end - 1, microsPerSecond)
            if offsetSeconds(atSecond: last) != offset {
                // Find the first second with another offset (at most one transition a day).
                var low = floorDiv(start, microsPerSecond)
                var high = last
                while high - low > 1 {
                    let middle = low + (high - low) / 2
                    if offsetSeconds(atSecond: middle) == offset { low = middle } else { high = middle }
                }
                end = high * microsPerSecond
            }
            let from = floorDiv(start, microsPerSecond) + offset
            let to = floorDiv(end + microsPerSecond - 1, microsPerSecond) + offset
            var dayStart = floorDiv(from, 86_400) * 86_400
            var cut = from
            while cut < to {
                let stop = min(to, dayStart + 86_400)
                if stop > cut {
                    arcs.append(DayChart.Arc(from: Int(cut - dayStart), to: Int(stop - dayStart), kind: segment.kind))
                }
                cut = stop
                dayStart += 86_400
            }
            start = end
        }
        return arcs
    }
}
