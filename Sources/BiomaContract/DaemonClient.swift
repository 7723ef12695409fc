import BiomaSystem
import CContract
import DBusCore

/// One blocking connection to the daemon for a short-lived command: connect, call, print.
public final class DaemonClient {
    let bus: BlockingBus
    /// `BIOMATIMER_TIMEOUT` seconds, else the contract's default.
    let timeout: CallTimeout

    public init(address: BusAddress = .session, environment: [String: String] = processEnvironment()) throws(ClientFailure) {
        timeout = Self.timeout(environment)
        do {
            _ = try address.resolve(environment: environment)
        } catch {
            throw address == .session ? ClientFailure.noBusAddress : ClientFailure(error)
        }
        do {
            bus = try BlockingBus(address)
        } catch {
            throw ClientFailure(error)
        }
    }

    /// The call timeout a command uses: `BIOMATIMER_TIMEOUT` seconds when it is a number above
    /// 0, else the default (as the C front reads it).
    public static func timeout(_ environment: [String: String]) -> CallTimeout {
        if let text = environment[BIOMATIMER_TIMEOUT_VARIABLE], let seconds = Double(text), seconds > 0, seconds.isFinite {
            return .seconds(seconds)
        }
        return CallTimeout(milliseconds: Int32(BIOMATIMER_DEFAULT_TIMEOUT_MS))
    }

    /// Calls a method of `interface` (by default `org.biomatimer.Timer1`); the bus starts the
    /// daemon if it is not running.
    public func call(_ member: String, _ arguments: [DBusValue] = [], interface: String = ContractNames.interface)
        throws(ClientFailure) -> [DBusValue]
    {
        do {
            return try bus.call(
                destination: ContractNames.busName, path: ContractNames.objectPath, interface: interface, member: member, arguments,
                timeout: timeout)
        } catch {
            throw ClientFailure(error)
        }
    }
}
