// When a watcher has to print again. The daemon sends no signal per second; the widget
// works out from UpdatedAt when the next displayed second begins and sleeps until then.

/// The first instant after `now` at which any displayed time (work session, work daily
/// total, project session, project daily total) reaches its next whole second, i.e. when
/// a renderer's output for `state` next changes; nil when nothing moves (work stopped and
/// no project active, or offline): then the watcher waits for the next D-Bus signal only.
public func nextRedraw(after now: Int64, state: WidgetState) -> Int64? {
    nextRedraw(after: now, state: state, showing: .all)
}

/// `nextRedraw(after:state:)` for an output that shows only some of the values, e.g.
/// `renderer.displayedTimes`: the island line shows no project times, so a watcher
/// printing it need not wake when only those reach a new second. Nil when none of the
/// shown values moves.
public func nextRedraw(after now: Int64, state: WidgetState, showing times: DisplayedTimes) -> Int64? {
    guard state.isTicking else { return nil }
    var values: [Int64] = []
    if state.running {
        if times.contains(.session) { values.append(state.sessionTime) }
        if times.contains(.daily) { values.append(state.dailyTotal) }
    }
    if state.hasProject {
        if times.contains(.projectSession) { values.append(state.projectSessionTime) }
        if times.contains(.projectDaily) { values.append(state.projectDailyTotal) }
    }
    var earliest: Int64? = nil
    for value in values {
        let instant = nextSecondBoundary(of: value, updatedAt: state.updatedAt, after: now)
        earliest = earliest.map { Swift.min($0, instant) } ?? instant
    }
    return earliest
}

/// A value v(t) = value + max(0, t − updatedAt); the least t > now with
/// floor(v(t) / 1 s) > floor(v(now) / 1 s).
private func nextSecondBoundary(of value: Int64, updatedAt: Int64, after now: Int64) -> Int64 {
    let second: Int64 = 1_000_000
    let current = WidgetState.adding(value, WidgetState.elapsed(from: updatedAt, to: now))
    // Negative values display as 0:00:00 until they reach 0, so their next change is at 1 s.
    let target = current < 0 ? second : (current / second + 1) * second
    // v(t) = target  ⇔  t = updatedAt + (target − value), and that is after now because
    // v(now) < target and v grows one µs per µs from max(now, updatedAt).
    let (offset, overflowA) = target.subtractingReportingOverflow(value)
    let (instant, overflowB) = updatedAt.addingReportingOverflow(offset)
    return overflowA || overflowB ? Int64.max : instant
}
