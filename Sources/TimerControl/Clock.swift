#if canImport(Glibc)
import Glibc
#endif

/// Where the daemon and the bars read the time; tests pass their own.
public protocol TimeSource: Sendable {
    /// Microseconds since the Unix epoch.
    func now() -> Int64
}

/// The wall clock (`CLOCK_REALTIME`).
public struct SystemClock: TimeSource {
    public init() {}
    public func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec / 1000)
    }
}
