import BiomaCore
import BiomaInstall
import BiomaText

#if canImport(Glibc)
import Glibc
#endif

/// How far a peer's log has been read: the segment, the byte offset in it just past the last
/// whole line taken, and that line's sequence number.
public struct SyncCursor: Equatable, Hashable, Sendable {
    public var segment: Int
    public var offset: Int
    public var sequence: Int64

    public init(segment: Int = 1, offset: Int = 0, sequence: Int64 = 0) {
        (self.segment, self.offset, self.sequence) = (segment, offset, sequence)
    }
}

/// What one read of a peer's log gave: the operations in order, where the next read starts,
/// whether there is more to read at once, and the damage that stopped the reading (the cursor
/// stays before it, so the peer is read again from there once its file is whole or fixed).
public struct PeerBatch: Sendable {
    public var operations: [SyncOperation] = []
    public var cursor: SyncCursor
    public var more = false
    public var problem: String?
}

/// A folder that something else (Syncthing) carries between machines:
///
/// ```
/// DIR/.stignore                  *.sqlite*, *.tmp
/// DIR/devices/<device-id>/device.json
/// DIR/devices/<device-id>/ops-000001.jsonl …
/// ```
///
/// Each device writes only its own directory; every file is appended to by one writer, and
/// every other file is written whole under a `.tmp` name and renamed. The database is never in it.
public struct SyncFolder: Sendable {
    public let root: String
    /// Lines per segment (`SyncLog.linesPerSegment`; smaller in tests).
    public let linesPerSegment: Int

    public init(root: String, linesPerSegment: Int = SyncLog.linesPerSegment) {
        self.root = root
        self.linesPerSegment = linesPerSegment
    }

    /// What the folder's `.stignore` must hold: the live database and temporary files never travel.
    public static let ignoredPatterns = ["*.sqlite*", "*.tmp"]

    public func directory(of device: String) -> String { root + "/devices/" + device }

    /// Makes the folder ready for `device`: its directory, `device.json` with its name, and
    /// the ignore patterns in `.stignore` (added to a file already there). A folder that is
    /// missing, not a directory or not writable is an error naming it.
    public func prepare(device: String, name: String) throws(SyncFolderError) {
        precondition(UUIDText.isValid(device))
        var status = stat()
        guard stat(root, &status) == 0 else { throw SyncFolderError(root, errno) }
        guard status.st_mode & S_IFMT == S_IFDIR else { throw SyncFolderError("\(root) is not a folder") }
        for path in [root + "/devices", directory(of: device)] {
            guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw SyncFolderError(path, errno) }
        }
        let ignore = root + "/.stignore"
        var lines: [String] = []
        switch Self.read(ignore) {
        case .success(let bytes): lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        case .failure(let error) where error.code == ENOENT: break
        case .failure(let error): throw SyncFolderError(ignore, error.code)
        }
        let missing = Self.ignoredPatterns.filter { !lines.contains($0) }
        if !missing.isEmpty {
            let text = (lines + ["// biomatimer: its database never travels"] + missing).joined(separator: "\n") + "\n"
            try write(Array(text.utf8), to: ".stignore", in: root)
        }
        let card = JSON.fields([("id", .string(device)), ("name", .string(name))]).text + "\n"
        try write(Array(card.utf8), to: "device.json", in: directory(of: device))
    }

    /// The other devices writing in the folder: each directory under `devices/` named by a UUID.
    public func peers(except device: String) -> [String] {
        guard let dir = opendir(root + "/devices") else { return [] }
        defer { closedir(dir) }
        var found: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != device && UUIDText.isValid(name) { found.append(name) }
        }
        return found.sorted()
    }

    /// The name a device gave itself in its `device.json`, if it is readable.
    public func name(of device: String) -> String? {
        guard case .success(let bytes) = Self.read(directory(of: device) + "/device.json"),
            let text = String(validating: bytes, as: UTF8.self), let json = try? StrictJSON.parse(text),
            case .string(let name) = json["name"]
        else { return nil }  // a card not (yet) whole: the device goes by its id
        return Terminal.singleLine(name)
    }

    public func segmentPath(of device: String, _ index: Int) -> String {
        directory(of: device) + "/" + SyncLog.segmentName(index)
    }

    /// The segment that holds sequence number `sequence`.
    public func segment(holding sequence: Int64) -> Int { Int((sequence - 1) / Int64(linesPerSegment)) + 1 }

    /// Appends operations (in sequence order, continuing the device's log) to its segments and
    /// flushes them to disk before returning: a change is acknowledged only once its line is
    /// durable. A segment is started when the sequence reaches it.
    public func append(_ operations: [SyncOperation], device: String) throws(SyncFolderError) {
        var index = 0
        while index < operations.count {
            let segment = segment(holding: operations[index].sequence)
            var text = ""
            while index < operations.count && self.segment(holding: operations[index].sequence) == segment {
                text += operations[index].line + "\n"
                index += 1
            }
            let path = segmentPath(of: device, segment)
            let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw SyncFolderError(path, errno) }
            let bytes = Array(text.utf8)
            var written = 0
            var failure: Int32 = 0
            while written < bytes.count {
                let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 {
                    failure = n < 0 ? errno : EIO
                    break
                }
                written += n
            }
            if failure == 0 && fsync(fd) != 0 { failure = errno }
            close(fd)
            // A line cut short by a full disk is ignored by readers until it is whole; the next
            // append would complete it with other text, so it is cut off again here.
            if failure != 0 {
                if written > 0 { truncateTail(path, by: written) }
                throw SyncFolderError(path, failure)
            }
        }
    }

    private func truncateTail(_ path: String, by count: Int) {
        var status = stat()
        guard stat(path, &status) == 0 else { return }
        _ = truncate(path, status.st_size - off_t(count))  // best effort: readers skip a partial line anyway
    }

    /// Reads `device`'s new whole lines from `cursor`, about `limit` bytes at once (at least
    /// one line's longest, 64 KiB; `more` says whether to read again at once).
    /// Every line is checked: it must be an operation written by `device`, with the next
    /// sequence number, in the segment that holds that number. Damage stops the reading with
    /// a message naming the file and byte; the cursor stays before it.
    public func read(_ device: String, from cursor: SyncCursor, limit: Int = 4 << 20) -> PeerBatch {
        var batch = PeerBatch(cursor: cursor)
        var budget = max(limit, SyncOperation.maxLineBytes + 1)
        while budget > 0 {
            let path = segmentPath(of: device, batch.cursor.segment)
            let name = SyncLog.segmentName(batch.cursor.segment)
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                if errno != ENOENT { batch.problem = "\(name): \(String(cString: strerror(errno)))" }
                return batch  // not there yet
            }
            defer { close(fd) }
            var status = stat()
            guard fstat(fd, &status) == 0 else {
                batch.problem = "\(name): \(String(cString: strerror(errno)))"
                return batch
            }
            let size = Int(status.st_size)
            guard size >= batch.cursor.offset else {
                batch.problem = "\(name) is shorter (\(size) bytes) than what was read of it (\(batch.cursor.offset)): it was cut"
                return batch
            }
            let want = min(size - batch.cursor.offset, budget)
            var bytes = [UInt8](repeating: 0, count: want)
            var got = 0
            while got < want {
                let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, want - got, off_t(batch.cursor.offset + got)) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                got += n
            }
            bytes.removeSubrange(got...)
            budget -= got
            let readToEnd = batch.cursor.offset + got >= size
            let (lines, consumed) = SyncLog.wholeLines(bytes)
            if got - consumed > SyncOperation.maxLineBytes {
                // No newline for longer than any operation can be: not a line being written.
                batch.problem = "\(name) byte \(batch.cursor.offset + consumed): the line is longer than 64 KiB"
                // The whole lines before it are still taken.
            }
            for line in lines {
                let at = "\(name) byte \(batch.cursor.offset)"
                guard let line else {
                    batch.problem = "\(at): the line is not UTF-8"
                    return batch
                }
                let operation: SyncOperation
                do { operation = try SyncOperation(line: line) } catch {
                    batch.problem = "\(at): \(error.description)"
                    return batch
                }
                if let problem = check(operation, device: device, after: batch.cursor) {
                    batch.problem = "\(at): \(problem)"
                    return batch
                }
                batch.operations.append(operation)
                batch.cursor.offset += line.utf8.count + 1
                batch.cursor.sequence = operation.sequence
            }
            if batch.problem != nil { return batch }
            if batch.cursor.offset < size {
                // A partial last line (still being written or copied), or the budget ran out.
                batch.more = !readToEnd
                return batch
            }
            // The segment is read to its end; the next one begins once this one is full.
            guard batch.cursor.sequence > 0,
                batch.cursor.sequence % Int64(linesPerSegment) == 0,
                segment(holding: batch.cursor.sequence) == batch.cursor.segment
            else { return batch }
            batch.cursor.segment += 1
            batch.cursor.offset = 0
        }
        batch.more = true
        return batch
    }

    private func check(_ operation: SyncOperation, device: String, after cursor: SyncCursor) -> String? {
        if operation.clock.device != device { return "written by \(operation.clock.device), not by \(device)" }
        if operation.sequence != cursor.sequence + 1 {
            return "sequence \(operation.sequence) where \(cursor.sequence + 1) comes next"
        }
        if segment(holding: operation.sequence) != cursor.segment {
            return "sequence \(operation.sequence) belongs in \(SyncLog.segmentName(segment(holding: operation.sequence)))"
        }
        return nil
    }

    /// The last whole line `device` has in the folder (its sequence and operation id), read
    /// from the end of its newest segment — its last two lines' worth at most (a line is at
    /// most 64 KiB), not the whole segment: the merge asks after every read of a peer. Nil when
    /// it has none.
    public func lastOperation(of device: String) -> (sequence: Int64, operation: String)? {
        guard let dir = opendir(directory(of: device)) else { return nil }
        var newest = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            newest = max(newest, SyncLog.segmentIndex(name) ?? 0)
        }
        closedir(dir)
        guard newest > 0, let bytes = Self.tail(of: segmentPath(of: device, newest), count: 2 * (SyncOperation.maxLineBytes + 1))
        else { return nil }
        let whole = bytes[..<(bytes.lastIndex(of: UInt8(ascii: "\n")) ?? 0)]
        let start = whole.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        guard let text = String(validating: whole[start...], as: UTF8.self),
            let operation = try? SyncOperation(line: text)
        else { return nil }  // no whole, readable last line: nothing known to compare
        return (operation.sequence, operation.id)
    }

    private func write(_ bytes: [UInt8], to name: String, in directory: String) throws(SyncFolderError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw SyncFolderError(directory, errno) }
        defer { close(fd) }
        do { try AtomicFile.write(bytes, directory: fd, name: name) } catch {
            throw SyncFolderError(directory + "/" + name, error.code)
        }
    }

    /// The last `count` bytes of the file at `path` (all of it when shorter); nil when it
    /// cannot be read.
    private static func tail(of path: String, count: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        let start = max(0, Int(status.st_size) - count)
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size) - start)
        var got = 0
        while got < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, $0.count - got, off_t(start + got)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            got += n
        }
        bytes.removeSubrange(got...)
        return bytes
    }

    private static func read(_ path: String) -> Result<[UInt8], SystemError> {
        do { return .success(try readWholeFile(path)) } catch { return .failure(error) }
    }
}

/// A sync folder that cannot be used, in a sentence naming it.
public struct SyncFolderError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
    init(_ path: String, _ code: Int32) { description = "\(path): \(String(cString: strerror(code)))" }
}
