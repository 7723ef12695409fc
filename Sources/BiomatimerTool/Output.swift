import BiomaWidgets
import DBusCore
import TimerControl

#if canImport(Glibc)
import Glibc
#endif

/// Writes to a file descriptor without buffering, the whole text.
func write(_ text: String, to fd: Int32) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        offset += n
    }
    bytes.removeAll()
}

func writeStandardOutput(_ text: String) { write(text, to: 1) }
func writeStandardError(_ text: String) { write(text, to: 2) }

/// Everything on standard input.
func readStandardInput() throws(ClientFailure) -> [UInt8] {
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress!, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n < 0 { throw ClientFailure(exitCode: 1, "cannot read standard input: \(String(cString: strerror(errno)))") }
        if n == 0 { return data }
        data.append(contentsOf: buffer[..<n])
    }
}

/// A whole file; a failure names the file and the cause.
func readFile(_ path: String) throws(ClientFailure) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw ClientFailure(exitCode: 1, "cannot read \(path): \(String(cString: strerror(errno))).") }
    defer { close(fd) }
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n < 0 { throw ClientFailure(exitCode: 1, "cannot read \(path): \(String(cString: strerror(errno))).") }
        if n == 0 { return data }
        data.append(contentsOf: buffer[..<n])
    }
}

