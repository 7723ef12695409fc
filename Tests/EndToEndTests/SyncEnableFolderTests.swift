import Foundation
import Testing
import TestSupport

/// `sync enable DIR` where DIR does not exist yet: the folder is made (its missing parents too,
/// mode 0700), and sync is on. With sync on, a restore is refused and says why.
@Suite struct SyncEnableFolderTests {
    @Test func aMissingFolderIsMadeWithItsParents() throws {
        let f = try DaemonFixture()
        let root = try makeTemporaryDirectory("biomatimer-sync-parent")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("not/yet/Sync")
        let r = try f.cli(["sync", "enable", folder.path, "--name", "laptop"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("Sync on: \(folder.path) as laptop ("), "\(r.stdout)")
        for path in [root.appendingPathComponent("not").path, root.appendingPathComponent("not/yet").path, folder.path] {
            var status = stat()
            #expect(stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR, "\(path)")
            #expect(status.st_mode & 0o777 == 0o700, "\(path): \(String(status.st_mode & 0o777, radix: 8))")
        }
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("devices").path))
        #expect(try f.cliOK(["sync", "status"]).stdout.hasPrefix("Folder: \(folder.path)\n"))

        // Sync on: a restore would be undone by the other machines' newer changes.
        let daily = try #require(
            try FileManager.default.contentsOfDirectory(atPath: f.dataDirectory.appendingPathComponent("backups").path)
                .first { $0.hasSuffix("-daily.sqlite") })
        let before = try f.durableState()
        let restore = try f.cli(["restore", daily, "--yes"])
        #expect(restore.status == 1 && restore.stderr.contains("Sync is on") && restore.stderr.contains("biomatimer sync disable"), "\(restore.stderr)")
        #expect(try f.durableState() == before)
    }

    /// A path whose parent is a file cannot be made: said plainly, and sync stays off.
    @Test func aFolderThatCannotBeMadeIsSaid() throws {
        let f = try DaemonFixture()
        let root = try makeTemporaryDirectory("biomatimer-sync-parent")
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        let r = try f.cli(["sync", "enable", file.appendingPathComponent("Sync").path])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("Cannot make the sync folder \(file.appendingPathComponent("Sync").path)"), "\(r.stderr)")
        #expect(try f.cliOK(["sync", "status"]).stdout == "Sync is off. Turn it on with: biomatimer sync enable DIR\n")
    }
}
