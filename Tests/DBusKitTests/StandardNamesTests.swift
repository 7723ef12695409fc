import DBusCore
import Testing

/// The specification's error names as libdbus and every peer spell them.
@Suite struct StandardNamesTests {
    @Test func errorNamesAreTheSpecifications() {
        let expected: [(StandardError, String)] = [
            (.failed, "Failed"), (.invalidArgs, "InvalidArgs"), (.unknownMethod, "UnknownMethod"),
            (.unknownObject, "UnknownObject"), (.unknownInterface, "UnknownInterface"),
            (.unknownProperty, "UnknownProperty"), (.propertyReadOnly, "PropertyReadOnly"), (.noReply, "NoReply"),
            (.noMemory, "NoMemory"), (.disconnected, "Disconnected"), (.timeout, "Timeout"), (.timedOut, "TimedOut"),
            (.serviceUnknown, "ServiceUnknown"), (.nameHasNoOwner, "NameHasNoOwner"),
        ]
        for (error, last) in expected {
            #expect(error.name == "org.freedesktop.DBus.Error." + last)
        }
        #expect(StandardError.spawnPrefix == "org.freedesktop.DBus.Error.Spawn")
        #expect(StandardNames.properties == "org.freedesktop.DBus.Properties")
    }
}
