#if canImport(Glibc)
import Glibc
#endif

/// An open file descriptor and its only owner, which closes it exactly once, when the last
/// reference lets go of it. Every descriptor a program keeps (a caller's file, a pipe to a
/// child, a timerfd, the sync folder's directories) is held by one of these, so no other part
/// closes its number: the kernel hands a closed number to the next `open` at once, maybe
/// another thread's, and a second close would take that file from under it.
public final class OwnedDescriptor: @unchecked Sendable {
    public let fd: Int32

    /// Takes over `fd`, an open descriptor nothing else closes.
    public init(_ fd: Int32) { self.fd = fd }

    deinit { if fd >= 0 { close(fd) } }

    /// What the descriptor is open on, for a message: its path (`/dev/zero`), else nil.
    public var path: String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // Pipes and sockets read as `pipe:[123]`, `socket:[456]`: not a path.
        return text.hasPrefix("/") ? text : nil
    }
}
