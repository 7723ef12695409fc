import BiomaSystem

#if canImport(Glibc)
import Glibc
#endif

/// A counting semaphore (POSIX), for one thread to wait until another has done something.
final class Semaphore: @unchecked Sendable {
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init(value: UInt32 = 0) { sem_init(semaphore, 0, value) }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    func signal() { sem_post(semaphore) }

    func wait() {
        while sem_wait(semaphore) != 0 && errno == EINTR {}
    }
}

/// Runs work on a loop thread: the event loop itself, or a bus served by it.
public protocol LoopRunner: AnyObject {
    /// Runs `work` on the loop thread. From the loop thread itself it runs at once.
    func perform(_ work: @escaping @Sendable () -> Void)
    /// Whether the caller runs on the loop thread.
    var isLoopThread: Bool { get }
}

extension LoopRunner {
    /// Runs `work` on the loop thread and waits for its result. Must not be called from a
    /// handler (it would wait for itself); from the loop thread it simply runs.
    public func sync<T: Sendable>(_ work: @escaping @Sendable () throws(BusError) -> T) throws(BusError) -> T {
        if isLoopThread { return try work() }
        let box = ResultBox<T>()
        let done = Semaphore()
        perform {
            box.result = Result { () throws(BusError) -> T in try work() }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }
}
