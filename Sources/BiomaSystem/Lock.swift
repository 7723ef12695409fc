#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex, the one lock of the programs that link no Foundation (DBusKit's
/// connections and loop, the daemon's cache of parsed command lines). Allocated apart, so its
/// address stays put (a stored property's `&` gives no such promise).
public final class Lock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// `body`'s result, run with the lock held.
    public func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
