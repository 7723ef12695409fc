import Testing
import BiomaContract

/// Hook files are matched to events by Taskwarrior's convention: the name starts with the
/// event's. No event's name may start another's, or a file would run on both.
@Suite struct HookEventTests {
    @Test func aFileRunsOnTheEventItsNameStartsWith() {
        #expect(HookEvent.of(fileName: "on-focus-start.dnd") == .focusStart)
        #expect(HookEvent.of(fileName: "on-focus-stop") == .focusStop)
        #expect(HookEvent.of(fileName: "on-start") == .start)
        #expect(HookEvent.of(fileName: "on-start-chat.sh") == .start)
        #expect(HookEvent.of(fileName: "on-budget.80") == .budget)
        #expect(HookEvent.of(fileName: "on-stat.x") == nil)
        #expect(HookEvent.of(fileName: "README") == nil)
        #expect(HookEvent.of(fileName: ".on-start.swp") == nil)
        #expect(HookEvent.of(fileName: "ON-START") == nil)
    }

    @Test func noEventNameStartsAnother() {
        let names = HookEvent.allCases.map(\.rawValue)
        #expect(names.count == 12 && Set(names).count == 12)
        #expect(Set(HookEvent.listed) == Set(HookEvent.allCases) && HookEvent.listed.count == 12)
        for a in names {
            for b in names where a != b { #expect(!b.hasPrefix(a), "\(b) starts with \(a)") }
        }
    }
}
