import BiomaInstall
import BiomaText
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
    do {
        return try readAll(from: 0)
    } catch {
        throw ClientFailure(exitCode: ExitCode.refused, "cannot read standard input: \(error)")
    }
}

/// A whole file; a failure names the file and the cause.
func readFile(_ path: String) throws(ClientFailure) -> [UInt8] {
    do {
        return try readWholeFile(path)
    } catch {
        throw ClientFailure(exitCode: ExitCode.refused, "cannot read \(path): \(error).")
    }
}
