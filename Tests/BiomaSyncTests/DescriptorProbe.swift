import Foundation
import Synchronization

/// A thread that keeps taking descriptors, eight at a time (each the lowest free number, as
/// the kernel hands them out, so a number someone has just closed is soon in its hands), and
/// checks that each is still open before it closes it itself. One closed in between was
/// closed by code that no longer owned that number: it is counted in `lost`.
final class DescriptorProbe: Sendable {
    private let source: Int32
    private let running = Atomic<Bool>(true)
    private let finished = Atomic<Bool>(false)
    /// Descriptors of this thread's closed under it.
    let lost = Atomic<Int>(0)
    /// Descriptors it has taken so far.
    let taken = Atomic<Int>(0)

    /// Starts the thread; returns once it has taken its first descriptors.
    init() {
        source = open("/dev/null", O_RDONLY | O_CLOEXEC)
        Thread { [self] in run() }.start()
        while taken.load(ordering: .relaxed) == 0 { sched_yield() }
    }

    private func run() {
        while running.load(ordering: .relaxed) {
            var held: [Int32] = []
            for _ in 0..<8 { held.append(fcntl(source, F_DUPFD_CLOEXEC, 0)) }
            taken.add(held.count, ordering: .relaxed)
            for fd in held {
                if fcntl(fd, F_GETFD) == -1 {
                    lost.add(1, ordering: .relaxed)  // not this thread's any more: not closed again
                } else {
                    close(fd)
                }
            }
        }
        finished.store(true, ordering: .releasing)
    }

    /// Stops the thread and waits for it.
    func stop() {
        running.store(false, ordering: .relaxed)
        while !finished.load(ordering: .acquiring) { sched_yield() }
        close(source)
    }
}
