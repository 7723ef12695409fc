import BiomaCore
import CContract
import DBusKit
@_exported import TimerControl

/// The daemon's side of the D-Bus contract (described in dbus/README.md): the fixed names,
/// the published state of a tracker snapshot, and the errors a failure becomes.
public enum DaemonAPI {
    public static let busName = ContractNames.busName
    public static let objectPath = ContractNames.objectPath
    public static let interface = ContractNames.interface
    public static let errorPrefix = ContractNames.errorPrefix

    /// What `org.biomatimer.Timer1` publishes for a snapshot; `WorkStatus.table` turns it
    /// into properties.
    public static func status(of s: TrackerSnapshot) -> WorkStatus {
        var status = WorkStatus()
        status.running = s.running
        status.updatedAt = s.updatedAt
        status.sessionTime = s.sessionTime
        status.dailyTotal = s.dailyTotal
        status.day = s.day.description
        status.activeProject = s.activeProject?.id ?? ""
        status.activeProjectName = s.activeProject?.name ?? ""
        status.activeProjectColor = s.activeProject?.color ?? ""
        status.projectSessionTime = s.projectSessionTime
        status.projectDailyTotal = s.projectDailyTotal
        status.projects = s.projects.map { ProjectSummary(id: $0.id, name: $0.name, color: $0.color) }
        return status
    }

    /// The D-Bus error a failure becomes: a tracker failure by its kind, a `DBusMethodError`
    /// as it is, anything else as `Storage`.
    public static func dbusError(_ error: any Error) -> DBusMethodError {
        if let error = error as? DBusMethodError { return error }
        guard let error = error as? TrackerError else {
            return DBusMethodError(errorPrefix + BIOMATIMER_ERROR_STORAGE, "\(error)")
        }
        return DBusMethodError(errorPrefix + errorName(of: error), error.message)
    }

    /// The contract's error a tracker failure is: the one its case is named after
    /// (`.noSuchProject` is `NoSuchProject`), found among the header's names
    /// (`ContractMembers.errors`); `Storage` for a case with no such error, so that no name
    /// outside the contract is ever sent.
    static func errorName(of error: TrackerError) -> String {
        Mirror(reflecting: error).children.first?.label.flatMap { trackerErrorNames[$0] } ?? BIOMATIMER_ERROR_STORAGE
    }

    /// The contract's error names by the case name they give a `TrackerError` (`noSuchProject`).
    private static let trackerErrorNames = Dictionary(
        uniqueKeysWithValues: ContractMembers.errors.map { (($0.first?.lowercased() ?? "") + $0.dropFirst(), $0) })

    static func invalidArgument(_ message: String) -> DBusMethodError {
        DBusMethodError(ContractNames.errorPrefix + BIOMATIMER_ERROR_INVALID_ARGUMENT, message)
    }
}
