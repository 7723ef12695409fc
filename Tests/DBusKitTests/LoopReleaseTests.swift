import Foundation
import Testing

@testable import DBusKit
import TestSupport

/// Work handed to the loop must be released once it has run, even when the loop then sleeps
/// in poll(): a closure capturing an owner (a fixture holding a dbus-daemon, a continuation)
/// must not be kept alive by an idle bus. (Found when a test fixture captured by a `sync`
/// closure never ran its deinit, leaving its dbus-daemon behind.)
@Suite(.ownThread)
struct LoopReleaseTests {
    final class Tracked: @unchecked Sendable {
        let freed: Received
        let value = 1
        init(_ freed: Received) { self.freed = freed }
        deinit { freed.count() }
    }

    @Test func workRunOnTheLoopIsReleasedWhileTheLoopIsIdle() throws {
        let daemon = try PrivateBus()
        let bus = try Bus(.address(daemon.address))
        defer { bus.close() }
        let freed = Received()
        do {
            let tracked = Tracked(freed)
            let value = try bus.sync { tracked.value }
            #expect(value == 1)
        }
        do {
            let tracked = Tracked(freed)
            let done = DispatchSemaphore(value: 0)
            bus.perform {
                _ = tracked.value
                done.signal()
            }
            done.wait()
        }
        // Nothing else happens on the bus: its loop is asleep.
        #expect(freed.wait(count: 2, timeout: 2), "a closure run by the loop is still retained by it")
    }
}
