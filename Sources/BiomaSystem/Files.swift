#if canImport(Glibc)
import Glibc
#endif

/// An errno, as a sentence.
public struct SystemError: Error, CustomStringConvertible, Sendable {
    public var code: Int32
    public init(code: Int32) { self.code = code }
    public var description: String { String(cString: strerror(code)) }
}

/// Everything readable from `fd` until its end.
public func readAll(from fd: Int32) throws(SystemError) -> [UInt8] {
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n < 0 { throw SystemError(code: errno) }
        if n == 0 { return data }
        data.append(contentsOf: buffer[..<n])
    }
}

/// A whole file's bytes.
public func readWholeFile(_ path: String) throws(SystemError) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw SystemError(code: errno) }
    defer { close(fd) }
    return try readAll(from: fd)
}

/// Files written the way an editor saves them: a temporary file beside the target, written
/// whole, flushed, then renamed over it, so a reader sees the old content or the new one.
public enum AtomicFile {
    /// Writes `bytes` to `path` with permissions `mode`; a failure names the path and cause.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(FileError) {
        var template = Array((path + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw FileError("cannot write \(path): \(String(cString: strerror(errno)))") }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let failure = fill(fd, with: bytes, mode: mode)
        guard failure == nil, rename(temporary, path) == 0 else {
            let why = String(cString: strerror(failure ?? errno))
            unlink(temporary)
            throw FileError("cannot write \(path): \(why)")
        }
    }
}

extension AtomicFile {
    /// Gives the new file `fd` its permissions, writes `bytes` whole, flushes and closes it;
    /// nil when all went well, else the errno of the step that failed.
    fileprivate static func fill(_ fd: Int32, with bytes: [UInt8], mode: mode_t) -> Int32? {
        var failure: Int32? = fchmod(fd, mode) == 0 ? nil : errno
        if failure == nil { failure = writeAll(bytes, to: fd) }
        if failure == nil && fsync(fd) != 0 { failure = errno }
        close(fd)
        return failure
    }

    /// Writes `bytes` as `name` in the directory open as `directory` (a caller's descriptor),
    /// the same way: a temporary file beside it (named `.NAME.….tmp`, which a Syncthing folder
    /// set up by `sync enable` ignores), flushed, renamed into place; nothing is left on failure.
    public static func write(_ bytes: [UInt8], directory: Int32, name: String, mode: mode_t = 0o644) throws(SystemError) {
        var fd: Int32 = -1
        var temporary = ""
        for attempt in 0..<100 {
            temporary = ".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).\(attempt).tmp"
            fd = openat(directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw SystemError(code: errno) }
        let failure = fill(fd, with: bytes, mode: mode)
        guard failure == nil, renameat(directory, temporary, directory, name) == 0 else {
            let code = failure ?? errno
            unlinkat(directory, temporary, 0)
            throw SystemError(code: code)
        }
    }
}

extension AtomicFile {
    /// Puts the finished file at `temporary` in place of `path` in one `rename`, after flushing
    /// it: a reader sees the old file or the new one, whole, and never neither (a removal
    /// before the rename would leave a moment with none). For a file another writer made (a
    /// SQLite copy), which this does not rewrite. `temporary` is removed on failure.
    public static func replace(_ path: String, with temporary: String) throws(FileError) {
        let fd = open(temporary, O_RDONLY | O_CLOEXEC)
        var failure: Int32? = fd >= 0 ? nil : errno
        if failure == nil && fsync(fd) != 0 { failure = errno }
        if fd >= 0 { close(fd) }
        guard failure == nil, rename(temporary, path) == 0 else {
            let why = String(cString: strerror(failure ?? errno))
            unlink(temporary)
            throw FileError("cannot write \(path): \(why)")
        }
    }
}

/// A file that could not be read or written, in a sentence that names it and the cause.
public struct FileError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
