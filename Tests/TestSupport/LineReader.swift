import Foundation

/// One line a child printed, and when it arrived.
public struct Line: Sendable {
    public var text: String
    public var at: Date
}

/// The lines a child prints, each with the instant it arrived, read on a thread of its own
/// so every wait can be bounded.
public final class LineReader: @unchecked Sendable {
    private let condition = NSCondition()
    private var lines: [Line] = []
    private var ended = false

    public init(_ child: ChildProcess) {
        Thread.detachNewThread { [self] in
            while let text = child.readLine() {
                condition.lock()
                lines.append(Line(text: text, at: Date()))
                condition.broadcast()
                condition.unlock()
            }
            condition.lock()
            ended = true
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The next unread line, waiting at most `timeout` seconds.
    public func next(timeout: TimeInterval = 5) -> Line? {
        let end = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while lines.isEmpty && !ended {
            if !condition.wait(until: end) { break }
        }
        return lines.isEmpty ? nil : lines.removeFirst()
    }

    /// Reads lines until one satisfies `match` (the others are dropped), within `timeout`.
    public func next(timeout: TimeInterval = 5, where match: (String) -> Bool) -> Line? {
        let end = Date().addingTimeInterval(timeout)
        while let line = next(timeout: max(0, end.timeIntervalSinceNow)) {
            if match(line.text) { return line }
        }
        return nil
    }

    /// Every line that arrives within the next `seconds`.
    public func collect(for seconds: TimeInterval) -> [Line] {
        Thread.sleep(forTimeInterval: seconds)
        condition.lock()
        defer { condition.unlock() }
        let taken = lines
        lines.removeAll()
        return taken
    }
}

/// Reads a pipe to its end on a thread, so a chatty child never blocks on it.
public final class Drain: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    public init(_ handle: FileHandle?) {
        guard let handle else { return }
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(handle.fileDescriptor, &buffer, buffer.count)
                if n <= 0 { break }
                lock.lock()
                data.append(contentsOf: buffer[0..<n])
                lock.unlock()
            }
        }
    }

    public var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }
}
