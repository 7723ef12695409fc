/// Pomodoros and focus time per day and per project, from the history's stretches.
public struct FocusTotals: Sendable, Equatable {
    /// Per day of the range: completed work phases and rounds, and focus time (work,
    /// countdown and active phases, split at day boundaries).
    public var completed: [Int]
    public var focusTime: [Micros]
    /// Completed work phases and rounds per project id.
    public var completedByProject: [String: Int] = [:]

    /// `boundaries` are the starts of the days and the end of the last; a completed phase
    /// counts on the day it ended.
    public init(_ records: [FocusRecord], boundaries: [Micros]) {
        let days = boundaries.count - 1
        completed = Array(repeating: 0, count: max(0, days))
        focusTime = Array(repeating: 0, count: max(0, days))
        guard days > 0 else { return }
        func day(of instant: Micros) -> Int {
            var lo = 0
            var hi = days - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if boundaries[mid] <= instant { lo = mid } else { hi = mid - 1 }
            }
            return lo
        }
        for record in records {
            if record.completed && record.phase.counts && record.end > boundaries[0] && record.end <= boundaries[days] {
                completed[day(of: record.end - 1)] += 1
                if let project = record.project { completedByProject[project, default: 0] += 1 }
            }
            guard record.phase.isFocus else { continue }
            var cursor = max(record.start, boundaries[0])
            let end = min(record.end, boundaries[days])
            while cursor < end {
                let index = day(of: cursor)
                let cut = min(end, boundaries[index + 1])
                focusTime[index] += cut - cursor
                cursor = cut
            }
        }
    }
}
