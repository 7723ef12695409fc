import BiomaCore
import BiomaDaemon
import CContract
import DBusCore
import Testing

/// A tracker failure travels as the contract's error its case is named after: every case of
/// `TrackerError`, with the header's constant it must become, and its message as it is.
struct DaemonErrorNameTests {
    static let cases: [(TrackerError, String)] = [
        (.noSuchProject("p9"), BIOMATIMER_ERROR_NO_SUCH_PROJECT),
        (.invalidName(""), BIOMATIMER_ERROR_INVALID_NAME),
        (.invalidColor("red"), BIOMATIMER_ERROR_INVALID_COLOR),
        (.nameTaken("Work"), BIOMATIMER_ERROR_NAME_TAKEN),
        (.noSuchTask("t9"), BIOMATIMER_ERROR_NO_SUCH_TASK),
        (.noSuchInterval("i9"), BIOMATIMER_ERROR_NO_SUCH_INTERVAL),
        (.overlap("In the way: i1."), BIOMATIMER_ERROR_OVERLAP),
        (.nothingToUndo("Nothing to undo."), BIOMATIMER_ERROR_NOTHING_TO_UNDO),
        (.invalidArgument("Bad day."), BIOMATIMER_ERROR_INVALID_ARGUMENT),
        (.noFocus("No focus timer."), BIOMATIMER_ERROR_NO_FOCUS),
        (.noSuchPreset("x"), BIOMATIMER_ERROR_NO_SUCH_PRESET),
        (.invalidImport("Line 2: no start."), BIOMATIMER_ERROR_INVALID_IMPORT),
        (.storage("disk full"), BIOMATIMER_ERROR_STORAGE),
    ]

    @Test(arguments: cases)
    func trackerFailureBecomesItsContractError(failure: TrackerError, name: String) {
        let error = DaemonAPI.dbusError(failure)
        #expect(error.dbusErrorName == "org.biomatimer.Timer1.Error." + name)
        #expect(error.dbusErrorMessage == failure.message)
    }

    @Test func otherFailuresAreStorageAndMethodErrorsPassThrough() {
        struct Odd: Error {}
        #expect(DaemonAPI.dbusError(Odd()).dbusErrorName == "org.biomatimer.Timer1.Error.Storage")
        let own = DBusMethodError("org.biomatimer.Timer1.Error.SyncFolder", "no folder")
        #expect(DaemonAPI.dbusError(own) == own)
    }
}
