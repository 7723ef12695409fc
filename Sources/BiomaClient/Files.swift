#if canImport(Glibc)
import Glibc
#endif

/// Files written the way an editor saves them: a temporary file beside the target, written
/// whole, flushed, then renamed over it, so a reader sees the old content or the new one.
public enum AtomicFile {
    /// Writes `bytes` to `path` with permissions `mode`; a failure names the path and cause.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(InstallError) {
        var template = Array((path + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw InstallError("cannot write \(path): \(String(cString: strerror(errno)))") }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var ok = fchmod(fd, mode) == 0
        var offset = 0
        while ok && offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            ok = n > 0
            if ok { offset += n }
        }
        let cause = errno
        ok = ok && fsync(fd) == 0
        close(fd)
        guard ok, rename(temporary, path) == 0 else {
            let why = String(cString: strerror(ok ? errno : cause))
            unlink(temporary)
            throw InstallError("cannot write \(path): \(why)")
        }
    }
}
