import BiomaCore
import BiomaStore
import CContract
import DBusKit
import BiomaContract

/// The store's backups on `org.biomatimer.Timer1`: `ListBackups` and `RestoreBackup`.
///
/// A restore is one change on the object's one change path: the store is replaced in place
/// (`StoreBackups.restore`, on the loop's connection; the loop is held meanwhile, as for a
/// project's deletion, whose backup is taken there too), the tracker reads its model again,
/// this part forgets what it had read of the history replaced, and every part then publishes
/// what differs: Timer1's `Projects`, `DailyTotal`, …, Tasks1's and Focus1's properties, with
/// their `PropertiesChanged`, as after any change. What the other parts keep in memory is
/// either read from the tracker at each publication (the tasks, the focus timer, sync's state)
/// or this machine's and this moment's (the notifications shown), which the store keeps too.
extension WorkService {
    func backupMethods() -> [DBusMethod] {
        [
            DBusMethod(BIOMATIMER_TIMER1_LIST_BACKUPS, out: [.init("backups", "aa{sv}")]) { [self] _ in
                [BackupListing.list(tracker.backups.list().map(Self.listing))]
            },
            DBusMethod(
                BIOMATIMER_TIMER1_RESTORE_BACKUP, in: [.init("name", "s")], out: [.init("restored", "a{sv}"), .init("kept", "a{sv}")]
            ) { [self] call in
                let done = try restoreBackup(call.arguments[0].string!)
                return [Self.listing(done.restored).dbusValue, Self.listing(done.kept).dbusValue]
            },
        ]
    }

    static func listing(_ file: BackupFile) -> BackupListing {
        var row = BackupListing()
        (row.name, row.taken, row.reason, row.size) = (file.name, file.taken, file.reason, file.size)
        return row
    }

    /// `RestoreBackup(name)`: the backup `name` (one `ListBackups` lists, nothing else) in
    /// place of the store, after a `before-restore` backup of it.
    func restoreBackup(_ name: String) throws -> StoreBackups.Restored {
        guard tracker.backups.list().contains(where: { $0.name == name }) else {
            throw DaemonAPI.invalidArgument("No backup is named \(quoted(name)): `biomatimer backups` lists them.")
        }
        return try change { now in
            let done = try tracker.backups.restore(named: name, at: now)
            storeReplaced()
            return done
        }
    }

    /// What this part read of the store's history and keeps: gone with it. (The absence in
    /// progress, the announced target day and the settings' targets are this machine's, kept
    /// by the restore; the away time `KeepAway` could give back was the history's.)
    func storeReplaced() {
        away.lastRemoved = nil
        budgets.storeReplaced()
    }
}
