#if canImport(Glibc)
import Glibc
#endif

/// A mutex with a condition variable (pthread), for the watch's threads; no Foundation.
final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)  // CLOCK_REALTIME, as `wait(untilMicros:)` assumes
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        cond.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    func broadcast() { pthread_cond_broadcast(cond) }
    func wait() { pthread_cond_wait(cond, mutex) }

    /// Waits until signalled or until the wall clock reaches `instant` (µs since the epoch);
    /// false when the time came.
    func wait(untilMicros instant: Int64) -> Bool {
        var deadline = timespec(tv_sec: Int(instant / 1_000_000), tv_nsec: Int(instant % 1_000_000) * 1000)
        return pthread_cond_timedwait(cond, mutex, &deadline) != ETIMEDOUT
    }
}

/// Runs `body` on a new detached thread.
func detachThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: @unchecked Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var thread = pthread_t()
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    pthread_create(
        &thread, &attributes,
        { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
    pthread_attr_destroy(&attributes)
}
