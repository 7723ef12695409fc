import BiomaCore
import BiomaSync
import Foundation
import TestSupport
import Testing

/// How a refused link is named: its path, then why.
private func linkRefused(_ path: String) -> String {
    "\(path) is a symbolic link; nothing in a sync folder is followed through a link"
}

/// The folder Syncthing carries is input from other machines: it carries symbolic links as
/// they are, so any file or directory in it may be a link to somewhere else on this machine.
/// None is followed: this device writes nothing through one, and a peer's log or card is
/// not read through one. Each refusal names the link.
@Suite struct UntrustedFolderTests {
    let root: URL
    let folder: SyncFolder
    /// Outside the sync folder: where the links point.
    let outside: URL

    init() throws {
        root = try makeTemporaryDirectory("biomatimer-sync")
        outside = try makeTemporaryDirectory("biomatimer-outside")
        folder = SyncFolder(root: root.path, linesPerSegment: 5)
    }

    /// Replaces whatever is at `path` with a symbolic link to `target`.
    func link(_ path: String, to target: String) throws {
        _ = unlink(path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    func isLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// Where a writer catching up starts: nothing only when there is nothing; a link where the
    /// newest segment should be is "cannot tell", named, never "none" (the whole outbox would
    /// then be appended again after what is there).
    @Test func theLastWrittenOperationIsKnownOrTheReasonIsNamed() throws {
        #expect(try folder.lastWritten(of: deviceA) == nil)
        try folder.prepare(device: deviceA, name: "A")
        #expect(try folder.lastWritten(of: deviceA) == nil)
        try folder.append(operations(1...7), device: deviceA)
        #expect(try folder.lastWritten(of: deviceA)?.sequence == 7)
        // A line cut short at the end (a crash while appending): the last whole one counts.
        let second = folder.segmentPath(of: deviceA, 2)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: second))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"seq\":8,".utf8))
        try handle.close()
        #expect(try folder.lastWritten(of: deviceA)?.sequence == 7)
        // The newest segment a link: refused by name, and lastOperation knows nothing.
        let target = outside.appendingPathComponent("elsewhere").path
        try Data(lines(operations(1...1)).utf8).write(to: URL(fileURLWithPath: target))
        try link(second, to: target)
        #expect(throws: SyncFolderError(linkRefused(second))) { try folder.lastWritten(of: deviceA) }
        #expect(folder.lastOperation(of: deviceA) == nil)
    }

    @Test func aLinkInPlaceOfThisDevicesSegmentIsRefusedAndNothingReachesItsTarget() throws {
        try folder.prepare(device: deviceA, name: "A")
        try folder.append(operations(1...2), device: deviceA)
        let segment = folder.segmentPath(of: deviceA, 1)
        let target = outside.appendingPathComponent("precious").path
        let precious = Data("not a log: nothing may be added here\n".utf8)
        try precious.write(to: URL(fileURLWithPath: target))
        try link(segment, to: target)
        #expect(throws: SyncFolderError(linkRefused(segment))) {
            try folder.append(operations(3...3), device: deviceA)
        }
        #expect(try bytes(target) == precious)
        #expect(isLink(segment))
        // A link to nothing yet: not created there either.
        let nowhere = outside.appendingPathComponent("nowhere").path
        try link(segment, to: nowhere)
        #expect(throws: SyncFolderError(linkRefused(segment))) {
            try folder.append(operations(3...3), device: deviceA)
        }
        #expect(!FileManager.default.fileExists(atPath: nowhere))
        // Nor is this device's last operation read through it.
        try link(segment, to: target)
        #expect(folder.lastOperation(of: deviceA) == nil)
    }

    @Test func aLinkInPlaceOfThisDevicesDirectoryOrOfDevicesIsRefused() throws {
        try folder.prepare(device: deviceA, name: "A")
        let own = folder.directory(of: deviceA)
        let elsewhere = outside.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: false)
        try FileManager.default.removeItem(atPath: own)
        try link(own, to: elsewhere.path)
        #expect(throws: SyncFolderError(linkRefused(own))) { try folder.append(operations(1...1), device: deviceA) }
        #expect(throws: SyncFolderError(linkRefused(own))) { try folder.prepare(device: deviceA, name: "A") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)

        // `devices` itself a link to a directory laid out as a folder's would be.
        let devices = root.path + "/devices"
        try FileManager.default.removeItem(atPath: devices)
        try FileManager.default.createDirectory(
            atPath: elsewhere.path + "/" + deviceA, withIntermediateDirectories: false)
        try link(devices, to: elsewhere.path)
        #expect(throws: SyncFolderError(linkRefused(devices))) { try folder.prepare(device: deviceA, name: "A") }
        #expect(throws: SyncFolderError(linkRefused(devices))) { try folder.append(operations(1...1), device: deviceA) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path + "/" + deviceA).isEmpty)
        #expect(folder.peers(except: deviceB).isEmpty)
        #expect(throws: SyncFolderError(linkRefused(devices))) { try FolderWatch(folder: folder, device: deviceB) }
    }

    @Test func aLinkAtTheIgnoreFileIsRefusedAndALinkAtTheCardIsReplaced() throws {
        let target = outside.appendingPathComponent("patterns").path
        let patterns = Data("mine\n".utf8)
        try patterns.write(to: URL(fileURLWithPath: target))
        let ignore = root.path + "/.stignore"
        try link(ignore, to: target)
        #expect(throws: SyncFolderError(linkRefused(ignore))) { try folder.prepare(device: deviceA, name: "A") }
        #expect(try bytes(target) == patterns)

        // The card is written whole and renamed into place: over a link, not through it.
        _ = unlink(ignore)
        try folder.prepare(device: deviceA, name: "A")
        let card = folder.directory(of: deviceA) + "/device.json"
        try link(card, to: target)
        try folder.prepare(device: deviceA, name: "Desk")
        #expect(try bytes(target) == patterns)
        #expect(!isLink(card))
        #expect(folder.name(of: deviceA) == "Desk")
    }

    @Test func aPeersSegmentThatIsALinkIsNotReadAndIsNamed() throws {
        try folder.prepare(device: deviceB, name: "B")
        // The link leads to a good log of B's: followed, it would read back as B's operations.
        let target = outside.appendingPathComponent("log").path
        try Data(lines(operations(1...3, device: deviceB)).utf8).write(to: URL(fileURLWithPath: target))
        let first = folder.segmentPath(of: deviceB, 1)
        try link(first, to: target)
        let batch = folder.read(deviceB, from: SyncCursor())
        #expect(batch.operations.isEmpty && !batch.more)
        #expect(batch.problem == linkRefused("ops-000001.jsonl"))
        #expect(batch.cursor == SyncCursor())
        #expect(folder.lastOperation(of: deviceB) == nil)

        // Past a whole first segment: its lines are taken, the link in the second is named,
        // and the cursor waits at the second's start.
        _ = unlink(first)
        try folder.append(operations(1...5, device: deviceB), device: deviceB)
        try link(folder.segmentPath(of: deviceB, 2), to: target)
        let next = folder.read(deviceB, from: SyncCursor())
        #expect(next.operations == operations(1...5, device: deviceB))
        #expect(next.problem == linkRefused("ops-000002.jsonl"))
        #expect(next.cursor == SyncCursor(segment: 2, offset: 0, sequence: 5))
    }

    @Test func aPeersDirectoryThatIsALinkIsNotReadAndIsNamed() throws {
        try folder.prepare(device: deviceA, name: "A")
        let elsewhere = outside.appendingPathComponent("peer")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: false)
        try Data(lines(operations(1...3, device: deviceB)).utf8).write(to: elsewhere.appendingPathComponent("ops-000001.jsonl"))
        try Data(#"{"id":"\#(deviceB)","name":"B"}"#.utf8).write(to: elsewhere.appendingPathComponent("device.json"))
        try link(folder.directory(of: deviceB), to: elsewhere.path)
        let batch = folder.read(deviceB, from: SyncCursor())
        #expect(batch.operations.isEmpty)
        #expect(batch.problem == linkRefused("devices/\(deviceB)"))
        #expect(folder.name(of: deviceB) == nil)
        #expect(folder.lastOperation(of: deviceB) == nil)
        // Listed (so its problem can be shown), never watched through the link.
        #expect(folder.peers(except: deviceA) == [deviceB])
        let watch = try FolderWatch(folder: folder, device: deviceA)
        #expect(watch.peers.isEmpty)
    }

    @Test func aPeersCardThatIsALinkIsNotRead() throws {
        try folder.prepare(device: deviceB, name: "B")
        let target = outside.appendingPathComponent("card").path
        try Data(#"{"id":"\#(deviceB)","name":"Somebody else"}"#.utf8).write(to: URL(fileURLWithPath: target))
        try link(folder.directory(of: deviceB) + "/device.json", to: target)
        #expect(folder.name(of: deviceB) == nil)
    }

    @Test func aPipeInPlaceOfAPeersSegmentIsNamedNotWaitedOn() throws {
        try folder.prepare(device: deviceB, name: "B")
        #expect(mkfifo(folder.segmentPath(of: deviceB, 1), 0o644) == 0)
        let batch = folder.read(deviceB, from: SyncCursor())
        #expect(batch.operations.isEmpty)
        #expect(batch.problem == "ops-000001.jsonl is not a regular file")
        #expect(folder.lastOperation(of: deviceB) == nil)
    }
}
