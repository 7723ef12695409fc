import BiomaSystem

#if canImport(Glibc)
import Glibc
#endif

/// What is wanted at a name in the sync folder.
enum EntryKind {
    case directory, file
}

/// Why an entry of the sync folder was not opened; `path` is how a message names it.
struct FolderRefusal: Error, CustomStringConvertible {
    enum Reason: Equatable {
        case system(Int32)
        case link
        case notDirectory
        case notFile
        case tooLong(Int)
    }

    var path: String
    var reason: Reason

    /// Missing (not there yet, or the folder is away): for a reader, nothing to read.
    var isMissing: Bool { reason == .system(ENOENT) }

    var description: String {
        switch reason {
        case .system(let code): "\(path): \(String(cString: strerror(code)))"
        case .link: "\(path) is a symbolic link; nothing in a sync folder is followed through a link"
        case .notDirectory: "\(path) is not a folder"
        case .notFile: "\(path) is not a regular file"
        case .tooLong(let limit): "\(path) is longer than \(limit / 1024) KiB"
        }
    }

    var error: SyncFolderError { SyncFolderError(description) }

    /// The refusal for an entry that could not be opened or watched with error `code`: the
    /// entry itself (seen without following it) says whether it is a link or of the wrong
    /// kind, which `O_NOFOLLOW` reports only as `ELOOP` or `ENOTDIR`.
    init(_ path: String, code: Int32, at directory: Int32, _ name: String, wanted kind: EntryKind) {
        self.path = path
        reason = .system(code)
        guard code == ELOOP || code == ENOTDIR || code == ENXIO else { return }
        var status = stat()
        guard fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { return }
        switch status.st_mode & S_IFMT {
        case S_IFLNK: reason = .link
        case S_IFDIR where kind == .directory: break
        case S_IFREG where kind == .file: break
        default: reason = kind == .directory ? .notDirectory : .notFile
        }
    }

    init(_ path: String, _ reason: Reason) {
        self.path = path
        self.reason = reason
    }
}

/// The sync folder's entries opened and read through their one owner (`OwnedDescriptor`, BiomaSystem).
extension OwnedDescriptor {
    /// Opens the sync folder itself, as its owner named it (a link to it is the owner's
    /// choice, unlike anything inside it, which arrives from other machines).
    static func folder(_ path: String) throws(FolderRefusal) -> OwnedDescriptor {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw FolderRefusal(path, code == ENOTDIR ? .notDirectory : .system(code))
        }
        return OwnedDescriptor(fd)
    }

    /// Opens `name`, one entry of `directory`, never through a symbolic link: a link there is
    /// refused, and so is anything but a directory or a regular file, as `kind` asks (a file
    /// is opened without blocking, so a pipe put there cannot hang the reader, then refused).
    /// `path` names the entry in a refusal.
    static func open(
        _ name: String, in directory: OwnedDescriptor, kind: EntryKind, flags: Int32 = O_RDONLY, mode: mode_t = 0,
        naming path: String
    ) throws(FolderRefusal) -> OwnedDescriptor {
        let extra = kind == .directory ? O_DIRECTORY : O_NONBLOCK
        let fd = openat(directory.fd, name, flags | extra | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw FolderRefusal(path, code: errno, at: directory.fd, name, wanted: kind) }
        let opened = OwnedDescriptor(fd)
        if kind == .file {
            var status = stat()
            guard fstat(fd, &status) == 0 else { throw FolderRefusal(path, .system(errno)) }
            guard status.st_mode & S_IFMT == S_IFREG else { throw FolderRefusal(path, .notFile) }
        }
        return opened
    }

    /// The names in the directory open as `self` (without `.` and `..`), from its start. The
    /// listing reads a copy of the descriptor, which `closedir` closes; `self` stays open.
    func names() -> [String] {
        let copy = dup(fd)
        guard copy >= 0 else { return [] }
        guard let stream = fdopendir(copy) else {
            close(copy)
            return []
        }
        defer { closedir(stream) }
        rewinddir(stream)  // the copy shares its position with `fd`
        var found: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { found.append(name) }
        }
        return found
    }

    /// The file's bytes from `offset`, at most `count` of them (fewer at its end).
    func read(from offset: Int, count: Int) throws(SystemError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, count - got, off_t(offset + got)) }
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                throw SystemError(code: code)
            }
            if n == 0 { break }
            got += n
        }
        bytes.removeSubrange(got...)
        return bytes
    }

    /// The file's size in bytes.
    func size() throws(SystemError) -> Int {
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw SystemError(code: errno) }
        return Int(status.st_size)
    }

    /// The whole file; one longer than `limit` bytes is refused unread.
    func contents(naming path: String, limit: Int = .max) throws(FolderRefusal) -> [UInt8] {
        let size: Int
        do { size = try self.size() } catch { throw FolderRefusal(path, .system(error.code)) }
        guard size <= limit else { throw FolderRefusal(path, .tooLong(limit)) }
        do { return try read(from: 0, count: size) } catch { throw FolderRefusal(path, .system(error.code)) }
    }
}
