#if canImport(Glibc)
import Glibc
#endif

/// Writes all of `bytes` to `fd`, again after a signal and after a short write: nil once it is
/// all written, else the errno of the write that failed (EIO when a write took nothing). The
/// one write loop of every program: a command's output, a file written atomically, a sync
/// segment, the tray's picture and its messages.
@discardableResult
public func writeAll(_ bytes: some Collection<UInt8>, to fd: Int32) -> Int32? {
    let contiguous = Array(bytes)
    var offset = 0
    while offset < contiguous.count {
        let n = contiguous.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 && errno == EINTR { continue }
        if n < 0 { return errno }
        if n == 0 { return EIO }
        offset += n
    }
    return nil
}

/// `text` written whole to `fd`; nil once written, else the errno.
@discardableResult
public func writeAll(_ text: String, to fd: Int32) -> Int32? { writeAll(Array(text.utf8), to: fd) }

/// `writeAll` to a descriptor another process gave (a caller's standard output), which may be
/// a pipe nobody reads: each piece, at most `PIPE_BUF` bytes (which a pipe ready for writing
/// takes without blocking), waits until the descriptor is ready, and a descriptor not ready
/// for `idleSeconds` ends the write with `ETIMEDOUT`. The errno of the failure, nil when all
/// was written.
public func writeAll(_ bytes: [UInt8], toCallers fd: Int32, idleSeconds: Int32) -> Int32? {
    var offset = 0
    while offset < bytes.count {
        var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let polled = poll(&ready, 1, idleSeconds * 1000)
        if polled < 0 && errno == EINTR { continue }
        if polled < 0 { return errno }
        if polled == 0 { return ETIMEDOUT }
        let piece = min(Int(PIPE_BUF), bytes.count - offset)
        let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, piece) }
        if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
        if n < 0 { return errno }
        if n == 0 { return EIO }
        offset += n
    }
    return nil
}
