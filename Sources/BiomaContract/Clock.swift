import CSystem

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
    public func now() -> Int64 { csystem_clock_us(CLOCK_REALTIME) }
}
