import CContract
import DBusCore

/// How a command failed, and the exit code that says so (see `ExitCode`). The messages come
/// from the contract header, so the C front prints exactly the same.
public struct ClientFailure: Error, CustomStringConvertible {
    public var exitCode: Int32
    public var description: String

    public init(exitCode: Int32, _ description: String) {
        self.exitCode = exitCode
        self.description = description
    }

    /// Classifies a bus failure: the daemon's own errors are refusals (1), a missing bus or
    /// daemon is 3.
    public init(_ error: BusError) {
        switch error {
        case .connectionFailed(let why):
            self.init(exitCode: ExitCode.unavailable, BIOMATIMER_MSG_NO_BUS + why + BIOMATIMER_MSG_NO_BUS_ADVICE)
        case .disconnected(let why):
            self.init(exitCode: ExitCode.unavailable, BIOMATIMER_MSG_LOST_BUS + why)
        case .remote(let name, let message) where name.hasPrefix(ContractNames.errorPrefix):
            self.init(exitCode: ExitCode.refused, message)
        case .remote(let name, _)
        where name == StandardError.serviceUnknown.name || name == StandardError.nameHasNoOwner.name:
            self.init(exitCode: ExitCode.unavailable, BIOMATIMER_MSG_NOT_RUNNING)
        case .remote(let name, let message) where name.hasPrefix(StandardError.spawnPrefix):
            self.init(exitCode: ExitCode.unavailable, BIOMATIMER_MSG_SPAWN_FAILED + message)
        case .timeout:
            self.init(exitCode: ExitCode.unavailable, BIOMATIMER_MSG_NO_ANSWER)
        case .outOfMemory:
            self.init(exitCode: ExitCode.refused, BIOMATIMER_MSG_OUT_OF_MEMORY)
        case .remote(_, let message):
            self.init(exitCode: ExitCode.refused, message)
        default:
            self.init(exitCode: ExitCode.refused, error.description)
        }
    }

    /// No session bus address at all.
    static let noBusAddress = ClientFailure(
        exitCode: ExitCode.unavailable, BIOMATIMER_MSG_NO_BUS + BIOMATIMER_MSG_NO_BUS_ADDRESS + BIOMATIMER_MSG_NO_BUS_ADVICE)
}
