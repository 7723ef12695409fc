import BiomaSync
import Foundation
import TestSupport
import Testing

/// A peer's `device.json` read for its name: missing or not yet whole, the peer goes by its
/// id; a card that cannot be read is named, so whoever shows the peer can say why.
@Suite struct DeviceCardTests {
    let root: URL
    let folder: SyncFolder

    init() throws {
        root = try makeTemporaryDirectory("biomatimer-sync")
        folder = SyncFolder(root: root.path)
    }

    var card: String { folder.directory(of: deviceB) + "/device.json" }

    @Test func aCardIsReadForItsName() throws {
        #expect(try folder.readName(of: deviceB) == nil)  // no device yet
        try folder.prepare(device: deviceB, name: "Laptop")
        #expect(try folder.readName(of: deviceB) == "Laptop")
        try Data(#"{"id":"#.utf8).write(to: URL(fileURLWithPath: card))
        #expect(try folder.readName(of: deviceB) == nil)  // not whole yet
    }

    @Test func aCardThatIsALinkIsRefusedAndNamed() throws {
        try folder.prepare(device: deviceB, name: "Laptop")
        let target = try makeTemporaryDirectory("biomatimer-outside").appendingPathComponent("card").path
        try Data(#"{"id":"\#(deviceB)","name":"Somebody else"}"#.utf8).write(to: URL(fileURLWithPath: target))
        _ = unlink(card)
        try FileManager.default.createSymbolicLink(atPath: card, withDestinationPath: target)
        #expect(throws: SyncFolderError("\(card) is a symbolic link; nothing in a sync folder is followed through a link")) {
            try folder.readName(of: deviceB)
        }
        #expect(folder.name(of: deviceB) == nil)
    }

    @Test func aCardLongerThanAnyCardIsRefusedUnread() throws {
        try folder.prepare(device: deviceB, name: "Laptop")
        let long = #"{"id":"\#(deviceB)","name":"Laptop","padding":""# + String(repeating: "x", count: 70_000) + "\"}"
        try Data(long.utf8).write(to: URL(fileURLWithPath: card))
        #expect(throws: SyncFolderError("\(card) is longer than 64 KiB")) { try folder.readName(of: deviceB) }
    }
}
