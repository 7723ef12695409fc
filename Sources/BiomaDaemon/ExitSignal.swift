import Foundation

/// The first exit reason wins; the main thread waits for it.
final class ExitSignal: @unchecked Sendable {
    private let condition = NSCondition()
    private var code: Int32?

    func finish(_ value: Int32) {
        condition.lock()
        if code == nil { code = value }
        condition.broadcast()
        condition.unlock()
    }

    func wait() -> Int32 {
        condition.lock()
        defer { condition.unlock() }
        while code == nil { condition.wait() }
        return code!
    }
}
