import CSystem
import Glibc

/// A descriptor with one owner, closed exactly once, when the owner lets go of it. Every
/// descriptor a caller passes (`h` arguments: libdbus gives the reader its own copy) is held
/// by one of these, so no other part closes its number, and nothing closes it twice.
public final class OwnedDescriptor: @unchecked Sendable {
    public let fd: Int32
    public init(_ fd: Int32) { self.fd = fd }
    deinit { if fd >= 0 { Glibc.close(fd) } }

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

/// How much a caller's input may be and how long it may keep the daemon waiting.
public struct InputLimits: Sendable, Equatable {
    /// Refused as soon as more than this has arrived (a regular file larger than this at once).
    public var maximumBytes: Int
    /// A pipe or terminal that sends nothing for this long ends the read.
    public var idleSeconds: Int
    /// The most read at one turn of the loop, so other callers are served between chunks.
    public var chunkBytes: Int

    public init(maximumBytes: Int, idleSeconds: Int, chunkBytes: Int = 1 << 20) {
        (self.maximumBytes, self.idleSeconds, self.chunkBytes) = (maximumBytes, idleSeconds, chunkBytes)
    }
}

/// Why a caller's input could not be read; `description` completes "cannot read FILE: …".
public enum InputFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// Neither a regular file, a pipe, a FIFO nor a terminal: what it is, named.
    case notReadable(String)
    case tooLarge(limit: Int)
    case idle(seconds: Int)
    case system(Int32)
    /// The caller went away, or the read was stopped.
    case cancelled

    public var description: String {
        switch self {
        case .notReadable(let what): return "it is \(what), not a file, a pipe or a terminal"
        case .tooLarge(let limit): return "it is larger than \(Self.size(limit)), the most a command reads"
        case .idle(let seconds): return "no data for \(seconds) s"
        case .system(let code): return String(cString: strerror(code))
        case .cancelled: return "the caller went away"
        }
    }

    static func size(_ bytes: Int) -> String {
        bytes % (1 << 30) == 0 ? "\(bytes >> 30) GiB" : bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }
}

/// Reads a caller's descriptor to its end through the event loop, as tmux reads a client's
/// files: a chunk each time it is ready and no more, so the loop serves every other call,
/// deadline and signal between chunks, and a caller that sends nothing holds nobody.
///
/// The descriptor's kind is checked first: a regular file, a pipe or FIFO, or a terminal is
/// read; anything else (a directory, a socket, a device such as `/dev/zero`) is refused at once.
/// No `O_NONBLOCK` is set (the open file is shared with the caller: its terminal, its shell's
/// pipe); a pipe or terminal is read only when `poll` says it is ready, and then no more than
/// it holds (`FIONREAD`), so a read never blocks. Input past `maximumBytes` is refused as soon
/// as it passes; a pipe silent for `idleSeconds` (a monotonic timerfd, armed only while
/// reading) ends the read. Use from the loop thread; `completion` runs there, once.
public final class InputReader: @unchecked Sendable {
    public typealias Completion = @Sendable (Result<[UInt8], InputFailure>) -> Void

    private let descriptor: OwnedDescriptor
    private let loop: EventLoop
    private let limits: InputLimits
    private var completion: Completion?
    private var data: [UInt8] = []
    private var watch: EventLoop.WatchHandle?
    private var idleTimer: OwnedDescriptor?
    private var idleWatch: EventLoop.WatchHandle?
    /// A regular file: always ready, never idle.
    private var regular = false
    /// Looks at what has arrived after each chunk (all of it, and the new bytes' range): true
    /// ends the read there, as if the input had ended — for input whose command will refuse it
    /// whatever follows (a binary file, a file of another format), so that none of the rest is
    /// kept. Set before `start`.
    public var endsEarly: (@Sendable ([UInt8], Range<Int>) -> Bool)?

    public init(_ descriptor: OwnedDescriptor, loop: EventLoop, limits: InputLimits, completion: @escaping Completion) {
        (self.descriptor, self.loop, self.limits, self.completion) = (descriptor, loop, limits, completion)
    }

    /// How many bytes have arrived so far.
    public var received: Int { data.count }

    /// Checks the descriptor and starts reading (the completion may run before this returns,
    /// for a descriptor refused at once).
    public func start() {
        guard completion != nil else { return }  // cancelled before it started
        let fd = descriptor.fd
        var info = stat()
        guard fstat(fd, &info) == 0 else { return finish(.failure(.system(errno))) }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            regular = true
            if Int(info.st_size) > limits.maximumBytes { return finish(.failure(.tooLarge(limit: limits.maximumBytes))) }
            data.reserveCapacity(Int(info.st_size))
        case S_IFIFO:
            break
        case S_IFCHR where isatty(fd) != 0:
            break
        case S_IFCHR: return finish(.failure(.notReadable(named("a character device"))))
        case S_IFDIR: return finish(.failure(.system(EISDIR)))  // as read(2) says it, wherever it is read
        case S_IFSOCK: return finish(.failure(.notReadable("a socket")))
        case S_IFBLK: return finish(.failure(.notReadable(named("a block device"))))
        default: return finish(.failure(.notReadable("of an unknown kind")))
        }
        if !regular && !armIdleTimer() { return finish(.failure(.system(errno))) }
        watch = loop.watch(fd: fd, events: Int16(POLLIN)) { [self] revents in ready(revents) }
    }

    /// Stops reading; the completion runs with `.cancelled` unless it already ran.
    public func cancel() { finish(.failure(.cancelled)) }

    private func named(_ kind: String) -> String {
        descriptor.path.map { "\(kind) (\($0))" } ?? kind
    }

    private func ready(_ revents: Int16) {
        guard completion != nil else { return }
        if revents & Int16(POLLNVAL) != 0 { return finish(.failure(.system(EBADF))) }
        // Read straight after what has arrived, into room made for it: a file a chunk at a
        // time; a pipe or terminal no more than it holds, so the read cannot block, and a
        // hook's few bytes of output take a few bytes, not a chunk zeroed for each reader. One
        // byte of room when it holds none: nothing held while poll says ready means its end
        // (the writers have gone, or ^D on a terminal), which the read then says.
        let room = regular ? limits.chunkBytes : min(limits.chunkBytes, max(1, Int(csystem_bytes_ready(descriptor.fd))))
        let before = data.count
        data.append(contentsOf: repeatElement(0, count: room))
        var n: Int
        repeat {
            n = data.withUnsafeMutableBytes { read(descriptor.fd, $0.baseAddress! + before, room) }
        } while n < 0 && errno == EINTR
        let code = errno
        data.removeLast(room - max(n, 0))
        if n < 0 { return finish(.failure(.system(code))) }
        if n == 0 { return finish(.success(data)) }
        guard data.count <= limits.maximumBytes else { return finish(.failure(.tooLarge(limit: limits.maximumBytes))) }
        if let endsEarly, endsEarly(data, (data.count - n)..<data.count) { return finish(.success(data)) }
        if !regular { _ = armIdleTimer() }
    }

    /// (Re)arms the idle timer at `idleSeconds` from now.
    private func armIdleTimer() -> Bool {
        if idleTimer == nil {
            let fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
            guard fd >= 0 else { return false }
            idleTimer = OwnedDescriptor(fd)
            idleWatch = loop.watch(fd: fd) { [self] _ in
                var expirations: UInt64 = 0
                _ = read(fd, &expirations, 8)
                if expirations > 0 { finish(.failure(.idle(seconds: limits.idleSeconds))) }
            }
        }
        var spec = itimerspec()
        spec.it_value.tv_sec = max(1, limits.idleSeconds)
        return timerfd_settime(idleTimer!.fd, 0, &spec, nil) == 0
    }

    private func finish(_ result: Result<[UInt8], InputFailure>) {
        guard let completion else { return }
        self.completion = nil
        if let watch { loop.unwatch(watch) }
        if let idleWatch { loop.unwatch(idleWatch) }
        (watch, idleWatch, idleTimer) = (nil, nil, nil)
        data = []
        completion(result)
    }
}
