import BiomaCore
import BiomaWidgets
import Testing

import TestSupport

/// The redraw schedule for values that count down (time left in a phase) as well as up.
@Suite struct CountdownSchedulingTests {
    @Test func aCountdownShowsTheSecondsBegunAndEndsAtZero() {
        let left = MovingTime(2_500_000, at: 0, .down)
        #expect(left.displayedSeconds(at: 0) == 3)  // 2.5 s left reads 0:00:03
        #expect(left.displayedSeconds(at: 499_999) == 3)
        #expect(left.displayedSeconds(at: 500_000) == 2)
        #expect(left.displayedSeconds(at: 1_500_000) == 1)
        #expect(left.displayedSeconds(at: 2_499_999) == 1)
        #expect(left.displayedSeconds(at: 2_500_000) == 0)
        #expect(left.displayedSeconds(at: 9_000_000) == 0)
        #expect(left.value(at: 9_000_000) == 0)
    }

    @Test func aCountdownWakesAtEachSecondAndNeverAfterItsEnd() {
        let left = MovingTime(2_500_000, at: 0, .down)
        #expect(left.nextChange(after: 0) == 500_000)
        #expect(left.nextChange(after: 500_000) == 1_500_000)
        #expect(left.nextChange(after: 1_500_000) == 2_500_000)
        #expect(left.nextChange(after: 2_500_000) == nil)
        #expect(left.nextChange(after: 10_000_000) == nil)
        // A whole number of seconds left: the display changes a full second later.
        #expect(MovingTime(3_000_000, at: 0, .down).nextChange(after: 0) == 1_000_000)
        // A clock stepped back before updatedAt counts as no time.
        #expect(MovingTime(3_000_000, at: 5_000_000, .down).nextChange(after: 0) == 6_000_000)
    }

    @Test func upAndDownTogetherWakeAtTheEarliest() {
        let times = [MovingTime(400_000, at: 0, .up), MovingTime(1_900_000, at: 0, .down)]
        #expect(nextRedraw(after: 0, times: times) == 600_000)  // the stopwatch reaches 1 s
        #expect(nextRedraw(after: 600_000, times: times) == 900_000)  // 1 s left begins
        #expect(nextRedraw(after: 0, times: []) == nil)
    }

    /// Over many values, instants and directions: the schedule names exactly the first
    /// instant at which the displayed second changes, never one too early or too late.
    @Test func theScheduleIsTheFirstChangeOfTheDisplay() {
        var random = SplitMix(seed: 0x5EED)
        for _ in 0..<2_000 {
            let direction: MovingTime.Direction = random.next() % 2 == 0 ? .up : .down
            let value = Int64(random.next() % 7_000_000) - (direction == .up ? 1_000_000 : 0)
            let updatedAt = Int64(random.next() % 3_000_000)
            let now = Int64(random.next() % 9_000_000)
            let time = MovingTime(value, at: updatedAt, direction)
            let shown = time.displayedSeconds(at: now)
            guard let next = time.nextChange(after: now) else {
                #expect(direction == .down && shown == 0, "\(time) at \(now)")
                continue
            }
            #expect(next > now)
            #expect(time.displayedSeconds(at: next - 1) == shown, "\(time) at \(now): changed before \(next)")
            #expect(time.displayedSeconds(at: next) != shown, "\(time) at \(now): no change at \(next)")
        }
    }
}
