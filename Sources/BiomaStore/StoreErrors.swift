import BiomaCore
import Foundation
import GRDB

/// Private files and folders, and storage failures as sentences a person can act on.
extension Tracker {
    static func makePrivateDirectory(_ url: URL) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) { return }
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    static func createPrivateFileIfMissing(_ url: URL) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            Glibc.close(fd)
        } else if errno != EEXIST {
            throw TrackerError.storage(String(cString: strerror(errno)))
        }
    }

    static func cause(of error: any Error) -> String {
        if let error = error as? TrackerError { return error.message }
        guard let error = error as? DatabaseError else { return "\(error)" }
        switch error.resultCode {
        case .SQLITE_FULL: return "the disk is full (free some space and try again)"
        case .SQLITE_NOTADB: return "the file is not a SQLite database"
        case .SQLITE_CORRUPT: return "the database file is corrupt"
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
            return "the file cannot be opened (check that you can read and write it and its directory)"
        case .SQLITE_READONLY: return "the file is read-only (check its permissions)"
        case .SQLITE_IOERR: return "an input/output error (\(error.message ?? "disk error"))"
        case .SQLITE_BUSY, .SQLITE_LOCKED: return "it is locked by another program"
        default: return error.message ?? "SQLite error \(error.resultCode.rawValue)"
        }
    }

    static func storageError(_ error: any Error, doing: String, path: URL) -> TrackerError {
        if let error = error as? TrackerError {
            guard case .storage(let cause) = error else { return error }
            return .storage("Cannot \(doing) the database at \(path.path): \(cause).")
        }
        var text = "Cannot \(doing) the database at \(path.path): \(cause(of: error))."
        if let db = error as? DatabaseError, [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(db.resultCode) {
            text += " It was left untouched: move it away or restore a copy from \(path.deletingLastPathComponent().appendingPathComponent("backups").path)."
        } else if doing == "write" {
            text += " Nothing was changed."
        }
        return .storage(text)
    }
}
