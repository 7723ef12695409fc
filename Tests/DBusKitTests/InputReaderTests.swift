import BiomaSystem
import CSystem
import DBusKit
import Foundation
import Testing

import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `InputReader`: a caller's descriptor read through the event loop, a chunk a turn, with its
/// kind checked first and its size and silence bounded.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct InputReaderTests {
    /// The reader's one result, awaited from the test's thread.
    final class Outcome: @unchecked Sendable {
        private let condition = NSCondition()
        private var result: Result<[UInt8], InputFailure>?
        private(set) var calls = 0
        func set(_ value: Result<[UInt8], InputFailure>) {
            condition.lock()
            result = value
            calls += 1
            condition.broadcast()
            condition.unlock()
        }
        func wait(_ seconds: TimeInterval = 10) -> Result<[UInt8], InputFailure>? {
            condition.lock()
            defer { condition.unlock() }
            let end = Date().addingTimeInterval(seconds)
            while result == nil, condition.wait(until: end) {}
            return result
        }
    }

    /// Starts a reader of `fd` on `loop` (which then owns `fd`).
    func read(
        _ fd: Int32, on loop: EventLoop, _ limits: InputLimits, endsEarly: (@Sendable ([UInt8], Range<Int>) -> Bool)? = nil
    ) throws -> (InputReader, Outcome) {
        let outcome = Outcome()
        let reader = InputReader(OwnedDescriptor(fd), loop: loop, limits: limits) { outcome.set($0) }
        reader.endsEarly = endsEarly
        try loop.sync { () throws(BusError) in reader.start() }
        return (reader, outcome)
    }

    /// Once the reader of a pipe is gone (and the loop has let go of its watch), no descriptor
    /// of this process but `writeEnd` is that pipe. (Not "a write finds no reader": a child
    /// that another test forks meanwhile holds a copy of every descriptor until it execs.)
    func expectNoReader(_ writeEnd: Int32, loop: EventLoop) throws {
        try loop.sync { () throws(BusError) in }
        let files = FileManager.default
        let pipe = try files.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(writeEnd)")
        let holders = try files.contentsOfDirectory(atPath: "/proc/self/fd").filter { name in
            name != "\(writeEnd)" && (try? files.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")) == pipe
        }
        #expect(pipe.hasPrefix("pipe:") && holders.isEmpty, "\(pipe) still open as \(holders)")
    }

    func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let directory = try makeTemporaryDirectory("biomatimer-input")
        let path = directory.appendingPathComponent("input").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let roomy = InputLimits(maximumBytes: 1 << 20, idleSeconds: 5)

    /// A regular file, read in chunks of 7 bytes: each chunk at its own turn, so work handed to
    /// the loop meanwhile runs before the file's end.
    @Test func aFileIsReadAChunkATurn() throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let fd = open(try temporaryFile(bytes), O_RDONLY | O_CLOEXEC)
        let interleaved = Outcome()
        // The work is handed over once the first chunk is in, while the loop waits for it: the
        // test's thread may be scheduled late, the loop may not read on meanwhile.
        let (firstChunk, handedOver) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let limits = InputLimits(maximumBytes: 1 << 20, idleSeconds: 5, chunkBytes: 7)
        let (reader, outcome) = try read(fd, on: loop, limits) { data, _ in
            if data.count == 7 {
                firstChunk.signal()
                handedOver.wait()
            }
            return false
        }
        firstChunk.wait()
        loop.perform { interleaved.set(.success([UInt8(min(255, reader.received / 7))])) }
        handedOver.signal()
        #expect(try outcome.wait()?.get() == bytes)
        // The block handed over ran while the file was being read, not after all of it.
        let turnsBefore = try #require(try interleaved.wait()?.get().first)
        #expect(turnsBefore < 1000 / 7)
        #expect(outcome.calls == 1)
    }

    /// A pipe: read as it comes, to its end.
    @Test func aPipeIsReadToItsEnd() throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        var ends: [Int32] = [0, 0]
        #expect(csystem_pipe_cloexec(&ends) == 0)
        let (_, outcome) = try read(ends[0], on: loop, Self.roomy)
        _ = write(ends[1], "abc", 3)
        Thread.sleep(forTimeInterval: 0.05)
        _ = write(ends[1], "def", 3)
        close(ends[1])
        #expect(try outcome.wait()?.get() == Array("abcdef".utf8))
    }

    /// `endsEarly` ends the read at the chunk it says so of, with what arrived: the writer of
    /// an endless pipe then finds no reader.
    @Test func aReadEndsEarlyWhenItsCheckSaysSo() throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        var ends: [Int32] = [0, 0]
        #expect(csystem_pipe_cloexec(&ends) == 0)
        defer { close(ends[1]) }
        try {
            let (reader, outcome) = try read(ends[0], on: loop, Self.roomy) { bytes, new in bytes[new].contains(0) }
            _ = write(ends[1], "text", 4)
            #expect(waitUntil { (try? loop.sync { () throws(BusError) in reader.received }) == 4 })
            #expect(outcome.calls == 0)
            _ = write(ends[1], "a\0b", 3)
            #expect(try outcome.wait()?.get() == Array("texta\0b".utf8))
        }()
        try expectNoReader(ends[1], loop: loop)
    }

    /// A pipe that says nothing for the idle limit ends the read; one that passes the size
    /// limit is refused as soon as it does.
    @Test func silenceAndSizeAreBounded() throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        var quiet: [Int32] = [0, 0]
        #expect(csystem_pipe_cloexec(&quiet) == 0)
        defer { close(quiet[1]) }
        let started = Date()
        let (_, silent) = try read(quiet[0], on: loop, InputLimits(maximumBytes: 1 << 20, idleSeconds: 1))
        #expect(silent.wait() == .failure(.idle(seconds: 1)))
        #expect(Date().timeIntervalSince(started) >= 0.9)

        var loud: [Int32] = [0, 0]
        #expect(csystem_pipe_cloexec(&loud) == 0)
        defer { close(loud[1]) }
        let (_, large) = try read(loud[0], on: loop, InputLimits(maximumBytes: 100, idleSeconds: 5))
        let chunk = [UInt8](repeating: 65, count: 64)
        _ = write(loud[1], chunk, 64)
        _ = write(loud[1], chunk, 64)
        #expect(large.wait() == .failure(.tooLarge(limit: 100)))
        // A regular file larger than the limit is refused before a byte is read.
        let (_, file) = try read(
            open(try temporaryFile([UInt8](repeating: 1, count: 200)), O_RDONLY | O_CLOEXEC), on: loop,
            InputLimits(maximumBytes: 100, idleSeconds: 5))
        #expect(file.wait() == .failure(.tooLarge(limit: 100)))
    }

    /// A device, a socket and a directory are refused at once, named.
    @Test func whatIsNotAFileAPipeOrATerminalIsRefused() throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        let (_, zero) = try read(open("/dev/zero", O_RDONLY | O_CLOEXEC), on: loop, Self.roomy)
        #expect(zero.wait() == .failure(.notReadable("a character device (/dev/zero)")))
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[1]) }
        let (_, socket) = try read(pair[0], on: loop, Self.roomy)
        #expect(socket.wait() == .failure(.notReadable("a socket")))
        let (_, directory) = try read(open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC), on: loop, Self.roomy)
        #expect(directory.wait() == .failure(.system(EISDIR)))
        #expect(InputFailure.notReadable("a socket").description == "it is a socket, not a file, a pipe or a terminal")
        #expect(InputFailure.idle(seconds: 30).description == "no data for 30 s")
    }

    /// Cancelling ends the read with `.cancelled` and closes the descriptor: the pipe's writer
    /// then finds no reader.
    @Test func cancelClosesTheDescriptor() throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        var ends: [Int32] = [0, 0]
        #expect(csystem_pipe_cloexec(&ends) == 0)
        defer { close(ends[1]) }
        try {
            let (reader, outcome) = try read(ends[0], on: loop, Self.roomy)
            try loop.sync { () throws(BusError) in reader.cancel() }
            #expect(outcome.wait() == .failure(.cancelled))
        }()
        try expectNoReader(ends[1], loop: loop)
    }
}
