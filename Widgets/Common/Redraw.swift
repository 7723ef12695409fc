// When a watcher has to print again. The daemon sends no signal per second; the widget
// works out from each value's instant when the next displayed second begins, for values that
// count up (stopwatches, totals) and values that count down (time left in a phase), and
// sleeps until the earliest of them.

/// A displayed time that moves with the clock: `value` µs at `updatedAt`, then one µs per µs
/// up (a stopwatch or a total) or down (time left, which stops at zero). A display shows whole
/// seconds: counting up, the seconds reached (floored); counting down, the seconds begun
/// (rounded up), so a countdown reads `0:00:01` during its last second and `0:00:00` exactly
/// when it ends.
public struct MovingTime: Sendable, Equatable {
    public enum Direction: Sendable, Equatable { case up, down }

    public var value: Int64
    public var updatedAt: Int64
    public var direction: Direction

    public init(_ value: Int64, at updatedAt: Int64, _ direction: Direction) {
        self.value = value
        self.updatedAt = updatedAt
        self.direction = direction
    }

    /// The value at `now` (µs). An instant before `updatedAt` (a clock stepped back) counts
    /// as no time; a countdown never goes below zero.
    public func value(at now: Int64) -> Int64 {
        let elapsed = WidgetState.elapsed(from: updatedAt, to: now)
        switch direction {
        case .up: return WidgetState.adding(value, elapsed)
        case .down:
            let (left, overflow) = value.subtractingReportingOverflow(elapsed)
            return overflow || left < 0 ? 0 : left
        }
    }

    /// The whole seconds displayed at `now`.
    public func displayedSeconds(at now: Int64) -> Int64 {
        let second: Int64 = 1_000_000
        let v = value(at: now)
        switch direction {
        case .up: return v <= 0 ? 0 : v / second
        case .down: return v <= 0 ? 0 : (v - 1) / second + 1
        }
    }

    /// The least instant after `now` at which `displayedSeconds` changes; nil when it never
    /// will (a countdown at zero).
    public func nextChange(after now: Int64) -> Int64? {
        let second: Int64 = 1_000_000
        let current = value(at: now)
        // The value to reach, and how far from `value` it is in the value's own direction.
        let distance: Int64
        switch direction {
        case .up:
            // Negative values display as 0:00:00 until they reach 0, so their next change is at 1 s.
            let target = current < 0 ? second : (current / second + 1) * second
            distance = target &- value
        case .down:
            guard current > 0 else { return nil }
            // Displayed ceil(v / 1 s) changes when v reaches the whole second below the current one.
            let target = (current - 1) / second * second
            distance = value &- target
        }
        // v(t) = target  ⇔  t = updatedAt + distance, which is after now because the value
        // moves one µs per µs from max(now, updatedAt).
        let (instant, overflow) = updatedAt.addingReportingOverflow(distance)
        return overflow || distance < 0 ? Int64.max : Swift.max(instant, now + 1)
    }
}

/// The first instant after `now` at which any of `times` shows another second; nil when none
/// moves.
public func nextRedraw(after now: Int64, times: [MovingTime]) -> Int64? {
    times.compactMap { $0.nextChange(after: now) }.min()
}

/// The first instant after `now` at which any displayed time (work session, work daily
/// total, project session, project daily total, the focus timer's time left) reaches its
/// next displayed second, i.e. when a renderer's output for `state` next changes; nil when
/// nothing moves (work stopped, no project active, no focus phase running, or offline):
/// then the watcher waits for the next D-Bus signal only.
public func nextRedraw(after now: Int64, state: WidgetState) -> Int64? {
    nextRedraw(after: now, state: state, showing: .all)
}

/// `nextRedraw(after:state:)` for an output that shows only some of the values, e.g.
/// `renderer.displayedTimes`: the island line shows no project times, so a watcher
/// printing it need not wake when only those reach a new second. Nil when none of the
/// shown values moves.
public func nextRedraw(after now: Int64, state: WidgetState, showing times: DisplayedTimes) -> Int64? {
    nextRedraw(after: now, times: state.movingTimes(showing: times))
}

extension WidgetState {
    /// The displayed times that move with the clock now, of those `times` selects.
    public func movingTimes(showing times: DisplayedTimes) -> [MovingTime] {
        var moving: [MovingTime] = []
        // The focus timer's time left counts down while a phase runs, whatever work does.
        if times.contains(.focus), let left = focusRemaining { moving.append(left) }
        guard isTicking else { return moving }
        if timer.running {
            if times.contains(.session) { moving.append(MovingTime(timer.sessionTime, at: timer.updatedAt, .up)) }
            if times.contains(.daily) { moving.append(MovingTime(timer.dailyTotal, at: timer.updatedAt, .up)) }
        }
        if hasProject {
            if times.contains(.projectSession) {
                moving.append(MovingTime(timer.projectSessionTime, at: timer.updatedAt, .up))
            }
            if times.contains(.projectDaily) { moving.append(MovingTime(timer.projectDailyTotal, at: timer.updatedAt, .up)) }
        }
        return moving
    }
}
