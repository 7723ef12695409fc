import BiomaCore
import BiomaSync
import Foundation
import TestSupport
import Testing

/// The sync folder's files carried by the real engine: two Syncthing instances on loopback
/// (`Tests/harness/syncthing-pair.py`). What one device appends arrives whole at the other,
/// Syncthing's way of putting a file in place (a temporary name, then a rename) wakes the
/// other side's `FolderWatch`, and the database never travels.
@Suite(.ownThreadLong, .timeLimit(.minutes(2))) struct SyncthingCarryTests {
    @Test func appendedOperationsArriveAndReadBackOnTheOtherMachine() throws {
        let pair = try SyncthingPair()
        let (pathA, pathB) = (pair.desk, pair.laptop)
        let (desk, laptop) = ("0d0d0d0d-0000-4000-8000-00000000000d", "0e0e0e0e-0000-4000-8000-00000000000e")
        let (deskFolder, laptopFolder) = (SyncFolder(root: pathA), SyncFolder(root: pathB))
        try deskFolder.prepare(device: desk, name: "Desk")
        try laptopFolder.prepare(device: laptop, name: "Laptop")

        let watch = try FolderWatch(folder: laptopFolder, device: laptop)
        #expect(FileManager.default.createFile(atPath: pathA + "/biomatimer.sqlite", contents: Data("live".utf8)))
        let operations = (1...3).map { n in
            SyncOperation(
                sequence: Int64(n), id: "01900000-0000-7000-8000-00000000000\(n)",
                clock: HybridTime(wall: Micros(n), counter: 0, device: desk), entity: .project,
                entityID: "01900000-0000-7000-8000-0000000000aa", fields: ["name": .string("Client \(n)")])
        }
        try deskFolder.append(operations, device: desk)

        // The laptop's watch wakes when the desk's segment is put in place; read it then.
        var read: [SyncOperation] = []
        var cursor = SyncCursor()
        var woken = false
        let deadline = Date().addingTimeInterval(45)
        while read.count < operations.count && Date() < deadline {
            var entry = pollfd(fd: watch.fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 1_000) > 0 else { continue }
            if watch.changes().contains(desk) {
                woken = true
                let batch = laptopFolder.read(desk, from: cursor)
                #expect(batch.problem == nil)
                read += batch.operations
                cursor = batch.cursor
            }
        }
        #expect(woken)
        #expect(read == operations)
        #expect(waitUntil(timeout: 30) { laptopFolder.name(of: desk) == "Desk" })
        #expect(!FileManager.default.fileExists(atPath: pathB + "/biomatimer.sqlite"))
    }
}
