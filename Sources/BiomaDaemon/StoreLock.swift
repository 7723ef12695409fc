import Foundation

/// `daemon.lock` in the data folder, held with flock(2) for the daemon's life, holding its pid.
final class StoreLock: @unchecked Sendable {
    private let fd: Int32
    private let path: String

    init(directory: URL) throws {
        if mkdir(directory.path, 0o700) != 0 && errno != EEXIST {
            // Parents missing: let FileManager make them, private like the store.
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        path = directory.appendingPathComponent("daemon.lock").path
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "cannot open \(path): \(String(cString: strerror(errno)))"])
        }
    }

    deinit { Glibc.close(fd) }  // closing releases the lock

    /// Takes the lock, trying every 20 ms for up to `seconds`; writes our pid on success.
    func acquire(waitingUpTo seconds: Double) -> Bool {
        let attempts = max(1, Int(seconds * 50))
        for attempt in 0..<attempts {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                let pid = "\(getpid())\n"
                _ = ftruncate(fd, 0)
                _ = pwrite(fd, pid, pid.utf8.count, 0)
                return true
            }
            if attempt + 1 < attempts { usleep(20_000) }
        }
        return false
    }

    /// The pid written by the holder, if readable.
    var holder: String? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
