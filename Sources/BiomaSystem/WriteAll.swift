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
