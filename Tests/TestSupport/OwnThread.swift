import Foundation
import Testing

// Tests that block a thread while a real program works (a daemon answering, a bar drawing)
// must not take Swift's cooperative pool from the tests that await: the pool has one thread
// per core, and on 2 cores two blocked tests left an awaiting test nothing to resume on.
// `.ownThread` runs each test case of a suite on a thread of its own (a task executor
// preference, so the body, its awaits and its child tasks all stay on that thread), and
// bounds how many run at once, since the pool no longer does.

/// How many `.ownThread` suites run at once (`BIOMATIMER_TEST_SUITES`), and how many of their
/// test cases (`BIOMATIMER_TEST_WIDTH`, half as many again: most of them wait on other
/// processes). Most of a suite's time is spent waiting on tmux, Syncthing, a bar or a daemon,
/// so several per core keep the cores busy, as many as the CPU the test process leaves:
/// - optimized (`make test`): three per core, at least 6. On 2 cores the whole run took 94 s
///   with 4, 75 s with 6 and 77 s with 8.
/// - debug (`swift test`): two per core, at least 4. The debug test process takes a core's
///   worth itself: on 2 cores 128 s with 2, 85–103 s with 4 and no better with 8.
/// Suites queue whole, before any of their tests starts, because a test's time limit counts
/// from its start, queueing included: a test case waits only for the few others of the suites
/// running.
#if DEBUG
private let suitesPerCore = 2
#else
private let suitesPerCore = 3
#endif
public let ownThreadSuites = widthFromEnvironment(
    "BIOMATIMER_TEST_SUITES", otherwise: max(2 * suitesPerCore, suitesPerCore * activeProcessors))
public let ownThreadWidth = widthFromEnvironment("BIOMATIMER_TEST_WIDTH", otherwise: ownThreadSuites * 3 / 2)

private let activeProcessors = ProcessInfo.processInfo.activeProcessorCount

private func widthFromEnvironment(_ name: String, otherwise: Int) -> Int {
    if let text = ProcessInfo.processInfo.environment[name], let width = Int(text), width > 0 { return width }
    return otherwise
}

/// Runs each test case on a dedicated thread; at most `ownThreadSuites` suites and
/// `ownThreadWidth` test cases at once. On a suite it applies to every test in it.
public struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    /// A suite that takes long (15 s or more on 2 cores: a package installed, a browser or a
    /// bar drawing, ten years imported): it goes before the others waiting, so that the run
    /// does not end with one long suite running alone.
    let long: Bool

    public var isRecursive: Bool { true }

    /// A scope for the suite itself too (where the suites queue), not only for its test cases.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? { self }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else {
            guard test.isSuite else { return try await function() }
            await OwnThreadTrait.suites.enter(first: long)
            defer { OwnThreadTrait.suites.leave() }
            let admitted = Timeline.now()
            defer { Timeline.record(test.name, from: admitted) }
            return try await function()
        }
        await OwnThreadTrait.cases.enter(first: long)
        defer { OwnThreadTrait.cases.leave() }
        let executor = ThreadExecutor(name: "own:" + test.name.prefix(11))
        defer { executor.finish() }
        try await withTaskExecutorPreference(executor) { try await function() }
    }

    static let suites = AsyncGate(width: ownThreadSuites)
    static let cases = AsyncGate(width: ownThreadWidth)
}

extension Trait where Self == OwnThreadTrait {
    /// Each test case on a thread of its own, off the cooperative pool.
    public static var ownThread: Self { OwnThreadTrait(long: false) }

    /// The same, for a suite that takes long: it goes before the others waiting.
    public static var ownThreadLong: Self { OwnThreadTrait(long: true) }
}

/// A counting semaphore that awaits instead of blocking. Those that asked to go first are let
/// in before the others waiting, each in the order they came.
final class AsyncGate: @unchecked Sendable {
    private let lock = NSLock()
    private var free: Int
    private var waiting: [(first: Bool, continuation: CheckedContinuation<Void, Never>)] = []

    init(width: Int) { free = width }

    func enter(first: Bool = false) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted: Bool = lock.withLock {
                if free > 0 {
                    free -= 1
                    return true
                }
                waiting.append((first, continuation))
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    func leave() {
        let next: CheckedContinuation<Void, Never>? = lock.withLock {
            guard !waiting.isEmpty else {
                free += 1
                return nil
            }
            return waiting.remove(at: waiting.firstIndex { $0.first } ?? 0).continuation
        }
        next?.resume()
    }
}

private let ownThreadKey = "biomatimer.ownThread"

/// The name of the `.ownThread` test case whose thread runs the caller; nil on any other
/// thread (the cooperative pool's).
public func ownThreadName() -> String? { Thread.current.threadDictionary[ownThreadKey] as? String }

/// A task executor whose jobs run on one thread of its own, one after the other. The thread
/// ends once `finish()` was called and nothing is left to run; a job that still comes later
/// starts it again.
public final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var running = false
    private var finished = false
    private let name: String

    public init(name: String) { self.name = name }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        let start = !running
        running = true
        condition.signal()
        condition.unlock()
        if start { startThread() }
    }

    /// No more jobs are expected: the thread ends when its queue is empty.
    public func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func startThread() {
        let thread = Thread { [self] in
            Thread.current.threadDictionary[ownThreadKey] = name
            while let job = nextJob() {
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }

    private func nextJob() -> UnownedJob? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !finished { condition.wait() }
        if jobs.isEmpty {
            running = false
            return nil
        }
        return jobs.removeFirst()
    }
}

/// `BIOMATIMER_TEST_TIMELINE=FILE`: each `.ownThread` suite's admission and end (seconds since
/// the first) appended to FILE, one line a suite: `START END NAME`, to see which suites hold
/// the run's end (the lanes above are the order they run in).
enum Timeline {
    private static let path = ProcessInfo.processInfo.environment["BIOMATIMER_TEST_TIMELINE"]
    private static let origin = DispatchTime.now().uptimeNanoseconds
    private static let lock = NSLock()

    static func now() -> Double { (Double(DispatchTime.now().uptimeNanoseconds) - Double(origin)) / 1e9 }

    static func record(_ name: String, from start: Double) {
        guard let path else { return }
        let line = String(format: "%8.2f %8.2f %@\n", start, now(), name)
        lock.withLock {
            guard let file = fopen(path, "a") else { return }
            fputs(line, file)
            fclose(file)
        }
    }
}
