import Foundation
import Testing

import TestSupport

/// `.ownThread`: a test case runs on a thread of its own, not on the cooperative pool, and
/// stays there across awaits and in its child tasks.
@Suite(.ownThread)
struct OwnThreadTests {
    @Test func aBlockingTestRunsOnItsOwnThread() {
        #expect(ownThreadName()?.hasPrefix("own:") == true, "on \(Thread.current)")
    }

    @Test func anAwaitingTestResumesOnItsOwnThread() async {
        let before = ownThreadName()
        #expect(before?.hasPrefix("own:") == true, "\(before ?? "no name")")
        await Task.yield()
        let names = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<3 { group.addTask { ownThreadName() } }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(names == [before, before, before], "child tasks ran on \(names)")
        #expect(ownThreadName() == before)
    }
}

/// Without the trait a test runs on the cooperative pool: the look above tells them apart.
@Suite
struct PoolThreadTests {
    @Test func aTestWithoutTheTraitRunsOnThePool() {
        #expect(ownThreadName() == nil)
    }
}
