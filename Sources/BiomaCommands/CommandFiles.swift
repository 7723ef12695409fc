import BiomaSystem
import BiomaContract

#if canImport(Glibc)
import Glibc
#endif

/// A file a command needs, opened by its caller (the daemon never opens a path itself): read
/// a file, standard input, or the directory a file is written into (the daemon writes a
/// temporary file there and renames it into place).
public enum FileRequest: Equatable, Sendable {
    case read(String)
    case standardInput
    case directory(String)
    /// The caller's standard output, for bytes that are not text (`report --pdf -`).
    case standardOutput

    /// One line of `Run`'s answer when it needs the files: `r PATH`, `i`, `d DIRECTORY`, `o`.
    public var line: String {
        switch self {
        case .read(let path): return "r " + path
        case .standardInput: return "i"
        case .directory(let path): return "d " + path
        case .standardOutput: return "o"
        }
    }

    /// The directory a path is written into, and the name in it.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }
}

/// A command whose files its caller opens.
protocol UsesFiles {
    var fileRequests: [FileRequest] { get }
}

/// A command that can tell from the start of its input that it will refuse it, whatever
/// follows: the daemon then stops reading there and runs it on what arrived, which gives the
/// same refusal without keeping the rest (`yes | biomatimer import -`).
protocol RefusesEarly {
    /// Whether input (all that arrived, and the range of the bytes just come) is already refused.
    var refusesAlready: @Sendable ([UInt8], Range<Int>) -> Bool { get }
}

/// Reads and writes a command's files: by path in `biomatimer-tool`, through descriptors its
/// caller opened in the daemon.
public protocol FileAccess: AnyObject {
    func read(_ path: String) throws(ClientFailure) -> [UInt8]
    func write(_ bytes: [UInt8], to path: String) throws(ClientFailure)
}

/// Files by path, as the caller (this process) opens them.
final class LocalFiles: FileAccess {
    func read(_ path: String) throws(ClientFailure) -> [UInt8] {
        do {
            return try path == "-" ? readAll(from: 0) : readWholeFile(path)
        } catch {
            throw Self.readFailure(path, error)
        }
    }

    /// Why `path` (`-`: standard input) could not be read: one message wherever it is read.
    static func readFailure(_ path: String, _ error: any Error) -> ClientFailure {
        if path == "-" { return ClientFailure(exitCode: BiomaContract.ExitCode.refused, "cannot read standard input: \(error)") }
        return ClientFailure(exitCode: BiomaContract.ExitCode.refused, "cannot read \(path): \(error).")
    }

    func write(_ bytes: [UInt8], to path: String) throws(ClientFailure) {
        if path == "-" {
            if let code = writeAll(bytes, to: 1) {
                throw ClientFailure(exitCode: BiomaContract.ExitCode.refused, "cannot write standard output: \(SystemError(code: code))")
            }
            return
        }
        do {
            try AtomicFile.write(bytes, to: path)
        } catch {
            throw ClientFailure(exitCode: BiomaContract.ExitCode.refused, error.description)
        }
    }
}

/// The descriptors a caller opened for a command's `FileRequest`s, or the errno of each it
/// could not open; the messages are those `LocalFiles` gives.
public final class PassedFiles: FileAccess {
    let opened: [FileRequest: Result<Int32, SystemError>]
    /// What the daemon read from the caller's descriptors before the command ran (through its
    /// event loop, never inside a command), by request.
    let arrived: [FileRequest: Result<[UInt8], InputUnread>]

    /// `descriptors` holds one per request whose error is 0, in order.
    public init(
        _ requests: [FileRequest], errors: [Int32], descriptors: [Int32], arrived: [FileRequest: Result<[UInt8], InputUnread>] = [:]
    ) {
        self.arrived = arrived
        var opened: [FileRequest: Result<Int32, SystemError>] = [:]
        var next = descriptors.makeIterator()
        for (index, request) in requests.enumerated() {
            let code = index < errors.count ? errors[index] : EBADF
            if code != 0 {
                opened[request] = .failure(SystemError(code: code))
            } else if let fd = next.next() {
                opened[request] = .success(fd)
            } else {
                opened[request] = .failure(SystemError(code: EBADF))
            }
        }
        self.opened = opened
    }

    public func read(_ path: String) throws(ClientFailure) -> [UInt8] {
        let request: FileRequest = path == "-" ? .standardInput : .read(path)
        do {
            if let input = arrived[request] { return try input.get() }
            // Only a request the caller could not open comes here: its errno is the message.
            _ = try (opened[request] ?? .failure(SystemError(code: EBADF))).get()
            throw SystemError(code: EBADF)
        } catch {
            throw LocalFiles.readFailure(path, error)
        }
    }

    /// The descriptors to read before a command runs: each `read` or `standardInput` request
    /// the caller opened, with its descriptor.
    var toRead: [(FileRequest, Int32)] {
        opened.compactMap { request, result in
            switch (request, result) {
            case (.read, .success(let fd)), (.standardInput, .success(let fd)): return (request, fd)
            default: return nil
            }
        }
    }

    public func write(_ bytes: [UInt8], to path: String) throws(ClientFailure) {
        if path == "-" {
            // The caller's standard output: written piece by piece as it takes them, and given
            // up after 30 s of not taking any (a pipe nobody reads holds no thread for ever).
            let fd: Int32
            do { fd = try (opened[.standardOutput] ?? .failure(SystemError(code: EBADF))).get() } catch {
                throw ClientFailure(exitCode: BiomaContract.ExitCode.refused, "cannot write standard output: \(error)")
            }
            if let code = writeAll(bytes, toCallers: fd, idleSeconds: 30) {
                throw ClientFailure(exitCode: BiomaContract.ExitCode.refused, "cannot write standard output: \(SystemError(code: code))")
            }
            return
        }
        let (directory, name) = FileRequest.split(path)
        do {
            let fd = try (opened[.directory(directory)] ?? .failure(SystemError(code: EBADF))).get()
            try AtomicFile.write(bytes, directory: fd, name: name)
        } catch {
            throw ClientFailure(exitCode: BiomaContract.ExitCode.refused, "cannot write \(path): \(error)")
        }
    }
}

extension FileRequest: Hashable {}

/// Why a caller's input was not read (the event loop's words: "no data for 30 s", "it is a
/// socket, not a file, a pipe or a terminal"); the command says `cannot read FILE: …`.
public struct InputUnread: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
