import BiomaCore
import BiomaSync
import Foundation
import TestSupport
import Testing

private let me = "0a0a0a0a-0000-4000-8000-00000000000a"
private let peer = "0b0b0b0b-0000-4000-8000-00000000000b"
private let newcomer = "0c0c0c0c-0000-4000-8000-00000000000c"

@Suite struct FolderWatchTests {
    let folder: SyncFolder

    init() throws {
        folder = SyncFolder(root: try makeTemporaryDirectory("biomatimer-watch").path)
        try folder.prepare(device: me, name: "me")
        try folder.prepare(device: peer, name: "peer")
    }

    /// Waits (up to 5 s) for the descriptor to be readable, then reads what changed.
    func changes(_ watch: FolderWatch, expectingSome: Bool = true) -> Set<String> {
        var entry = pollfd(fd: watch.fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, expectingSome ? 5_000 : 0)
        return ready > 0 ? watch.changes() : []
    }

    func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test func aPeersNewSegmentIsNewsAndNothingElseIs() throws {
        let watch = try FolderWatch(folder: folder, device: me)
        #expect(watch.peers == [peer])
        #expect(changes(watch, expectingSome: false).isEmpty)
        // This device's own writes and a peer's other files are not news.
        try write("x\n", to: folder.segmentPath(of: me, 1))
        try write("{}\n", to: folder.directory(of: peer) + "/device.json")
        try write("x", to: folder.directory(of: peer) + "/.syncthing.ops-000001.jsonl.tmp")
        try write("x\n", to: folder.segmentPath(of: peer, 1))
        #expect(changes(watch) == [peer])
        #expect(changes(watch, expectingSome: false).isEmpty)
    }

    @Test func aSegmentRenamedIntoPlaceAsSyncthingDoesIsNews() throws {
        let watch = try FolderWatch(folder: folder, device: me)
        let temporary = folder.directory(of: peer) + "/.syncthing.ops-000002.jsonl.tmp"
        try write("x\n", to: temporary)
        _ = changes(watch)  // whatever the temporary file raised
        #expect(rename(temporary, folder.segmentPath(of: peer, 2)) == 0)
        #expect(changes(watch) == [peer])
    }

    @Test func aNewDeviceIsWatchedFromItsFirstDirectoryOn() throws {
        let watch = try FolderWatch(folder: folder, device: me)
        try FileManager.default.createDirectory(atPath: folder.directory(of: newcomer), withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: folder.root + "/devices/not-a-device", withIntermediateDirectories: false)
        #expect(changes(watch) == [newcomer])
        #expect(watch.peers == [peer, newcomer])
        try write("x\n", to: folder.segmentPath(of: newcomer, 1))
        #expect(changes(watch) == [newcomer])
    }

    @Test func aFolderWithoutDevicesIsNamed() throws {
        let bare = try makeTemporaryDirectory("biomatimer-watch")
        #expect(throws: SyncFolderError("\(bare.path)/devices: No such file or directory")) {
            try FolderWatch(folder: SyncFolder(root: bare.path), device: me)
        }
    }

    /// A watch that cannot start closes its inotify descriptor once. Its init throws after
    /// every property is set, so Swift destroys the half-made watch whole, deinit included:
    /// when the init closed the number too, the second close took whatever another thread had
    /// opened under it in between (once another test's directory). A probe thread keeps taking
    /// the lowest free numbers, so the one a failed start gives back is soon in its hands;
    /// with the second close it lost some within the first hundred starts.
    @Test func aWatchThatCannotStartClosesItsDescriptorOnce() throws {
        let bare = SyncFolder(root: try makeTemporaryDirectory("biomatimer-watch").path)
        let probe = DescriptorProbe()
        var failed = 0
        while failed < 20_000 && probe.lost.load(ordering: .relaxed) == 0 {
            if (try? FolderWatch(folder: bare, device: me)) == nil { failed += 1 }
        }
        probe.stop()
        #expect(failed > 0)
        #expect(probe.lost.load(ordering: .relaxed) == 0, "after \(failed) failed starts")
    }
}
