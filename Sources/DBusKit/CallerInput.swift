import BiomaSystem
import CSystem
import Glibc

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
/// as it passes; a pipe silent for `idleSeconds` (a monotonic deadline of the loop's, scheduled
/// only while reading) ends the read. Use from the loop thread; `completion` runs there, once.
public final class InputReader: @unchecked Sendable {
    public typealias Completion = @Sendable (Result<[UInt8], InputFailure>) -> Void

    private let descriptor: OwnedDescriptor
    private let loop: EventLoop
    private let limits: InputLimits
    private var completion: Completion?
    private var data: [UInt8] = []
    private var watch: EventLoop.WatchHandle?
    /// The silence's deadline on the loop's `Deadlines`, while reading a pipe or terminal.
    private var idle: (deadlines: Deadlines, handle: Deadlines.Handle)?
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

    /// Stops reading; the completion runs with what has arrived, as if the input had ended
    /// there, unless it already ran.
    public func end() { finish(.success(data)) }

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

    /// (Re)schedules the silence's deadline at `idleSeconds` from now.
    private func armIdleTimer() -> Bool {
        if idle == nil {
            do {
                let deadlines = try loop.deadlines()
                let handle = deadlines.add(.monotonic) { [self] _ in finish(.failure(.idle(seconds: limits.idleSeconds))) }
                idle = (deadlines, handle)
            } catch {
                errno = ENOMEM
                return false
            }
        }
        idle!.deadlines.schedule(idle!.handle, after: Int64(max(1, limits.idleSeconds)) * 1_000_000)
        return true
    }

    private func finish(_ result: Result<[UInt8], InputFailure>) {
        guard let completion else { return }
        self.completion = nil
        if let watch { loop.unwatch(watch) }
        if let idle { idle.deadlines.remove(idle.handle) }
        (watch, idle) = (nil, nil)
        data = []
        completion(result)
    }
}
