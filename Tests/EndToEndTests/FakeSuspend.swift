import BiomaCore
import BiomaDaemon
import Foundation

/// The suspend gap (the boot clock minus the monotonic one) as a test moves it: `sleep` is a
/// suspend the daemon has not been told of, as a resume shows it.
final class FakeSuspend: SuspendClock, @unchecked Sendable {
    private let lock = NSLock()
    private var value: Micros = 7_000_000
    func gap() -> Micros { lock.withLock { value } }
    func sleep(_ d: Micros) { lock.withLock { value += d } }
}
