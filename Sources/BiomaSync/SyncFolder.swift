import BiomaCore
import BiomaSystem
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

    /// Makes the folder when it does not exist, with its missing parents, each 0700 (only this
    /// user's: what the other machines write arrives in it). A folder that exists is left as it
    /// is. Refused, naming the folder and the part that could not be
    /// made: a parent that is a file, a place this user cannot write.
    public func makeIfMissing() throws(SyncFolderError) {
        var path = ""
        for component in root.split(separator: "/") {
            path += "/" + component
            guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
                let reason = String(cString: strerror(errno))
                throw SyncFolderError(path == root ? "Cannot make the sync folder \(root): \(reason)" : "Cannot make the sync folder \(root): \(path): \(reason)")
            }
        }
    }

    /// Makes the folder ready for `device`: its directory, `device.json` with its name, and
    /// the ignore patterns in `.stignore` (added to a file already there). A folder that is
    /// missing, not a directory or not writable is an error naming it, and so is a symbolic
    /// link at `devices`, at the device's directory or at `.stignore`: nothing in the folder
    /// is followed through a link, since another machine may have put it there. (A link at
    /// `device.json` is not written through either: the card is written whole under a
    /// temporary name and renamed over it.)
    public func prepare(device: String, name: String) throws(SyncFolderError) {
        precondition(UUIDText.isValid(device))
        do {
            let folder = try OwnedDescriptor.folder(root)
            let devices = try Self.directory("devices", in: folder, creating: true, naming: root + "/devices")
            let own = try Self.directory(device, in: devices, creating: true, naming: directory(of: device))
            let ignore = root + "/.stignore"
            var lines: [String] = []
            do throws(FolderRefusal) {
                let file = try OwnedDescriptor.open(".stignore", in: folder, kind: .file, naming: ignore)
                lines = String(decoding: try file.contents(naming: ignore), as: UTF8.self).split(separator: "\n").map(String.init)
            } catch where error.isMissing {}
            let missing = Self.ignoredPatterns.filter { !lines.contains($0) }
            if !missing.isEmpty {
                let text = (lines + ["// biomatimer: its database never travels"] + missing).joined(separator: "\n") + "\n"
                try Self.write(Array(text.utf8), to: ".stignore", in: folder, naming: ignore)
            }
            let card = JSON.fields([("id", .string(device)), ("name", .string(name))]).text + "\n"
            try Self.write(Array(card.utf8), to: "device.json", in: own, naming: directory(of: device) + "/device.json")
        } catch {
            throw error.error
        }
    }

    /// The other devices writing in the folder: each entry of `devices/` named by a UUID (none
    /// when `devices` is not a real directory).
    public func peers(except device: String) -> [String] {
        do {
            let devices = try devicesDirectory(naming: "")
            return devices.names().filter { $0 != device && UUIDText.isValid($0) }.sorted()
        } catch {
            return []
        }
    }

    /// The name a device gave itself in its `device.json`, if it is readable (see `readName`).
    public func name(of device: String) -> String? { (try? readName(of: device)) ?? nil }

    /// The name `device` gave itself in its `device.json`: nil while it has none or the card is
    /// not (yet) whole, when the device goes by its id; an error naming the card when it
    /// cannot be read. A symbolic link there is refused, like any link in the folder, and so
    /// is a card longer than 64 KiB (a card is a line of some hundred bytes; a peer's files
    /// are read with bounds).
    public func readName(of device: String) throws(SyncFolderError) -> String? {
        let path = directory(of: device) + "/device.json"
        let bytes: [UInt8]
        do {
            let directory = try deviceDirectory(device, naming: root + "/")
            let file = try OwnedDescriptor.open("device.json", in: directory, kind: .file, naming: path)
            bytes = try file.contents(naming: path, limit: SyncOperation.maxLineBytes)
        } catch where error.isMissing {
            return nil
        } catch {
            throw error.error
        }
        guard let text = String(validating: bytes, as: UTF8.self), let json = try? StrictJSON.parse(text),
            case .string(let name) = json["name"]
        else { return nil }  // a card not (yet) whole: the device goes by its id
        return TextEscaping.singleLine(name)
    }

    public func segmentPath(of device: String, _ index: Int) -> String {
        directory(of: device) + "/" + SyncLog.segmentName(index)
    }

    /// The segment that holds sequence number `sequence`.
    public func segment(holding sequence: Int64) -> Int { Int((sequence - 1) / Int64(linesPerSegment)) + 1 }

    /// Appends operations (in sequence order, continuing the device's log) to its segments and
    /// flushes them to disk before returning: a change is acknowledged only once its line is
    /// durable. A segment is started when the sequence reaches it. Nothing is written through
    /// a symbolic link: a link at `devices`, at the device's directory or at the segment is an
    /// error naming it.
    public func append(_ operations: [SyncOperation], device: String) throws(SyncFolderError) {
        guard !operations.isEmpty else { return }
        do throws(FolderRefusal) {
            let own = try deviceDirectory(device, naming: root + "/")
            var index = 0
            while index < operations.count {
                let segment = segment(holding: operations[index].sequence)
                var text: [UInt8] = []
                while index < operations.count && self.segment(holding: operations[index].sequence) == segment {
                    text += operations[index].line.utf8
                    text.append(UInt8(ascii: "\n"))
                    index += 1
                }
                let path = segmentPath(of: device, segment)
                let file = try OwnedDescriptor.open(
                    SyncLog.segmentName(segment), in: own, kind: .file, flags: O_WRONLY | O_APPEND | O_CREAT, mode: 0o644,
                    naming: path)
                // The segment's length before, to cut a partial write back to.
                let before = try? file.size()
                var failure = writeAll(text, to: file.fd) ?? 0
                if failure == 0 && fsync(file.fd) != 0 { failure = errno }
                // A line cut short by a full disk is ignored by readers until it is whole; the
                // next append would complete it with other text, so it is cut off again here.
                if failure != 0 {
                    if let before, let size = try? file.size(), size > before {
                        _ = ftruncate(file.fd, off_t(before))  // best effort: readers skip a partial line anyway
                    }
                    throw FolderRefusal(path, .system(failure))
                }
            }
        } catch {
            throw error.error
        }
    }

    /// Reads `device`'s new whole lines from `cursor`, about `limit` bytes at once (at least
    /// one line's longest, 64 KiB; `more` says whether to read again at once), so a peer's log
    /// of any length is read in bounded steps. Every line is checked: it must be an operation
    /// written by `device`, with the next sequence number, in the segment that holds that
    /// number, and at most 64 KiB long. Damage stops the reading with a message naming the
    /// file and byte; the cursor stays before it. A symbolic link at the device's directory
    /// or at a segment is not followed: it stops the reading, named.
    public func read(_ device: String, from cursor: SyncCursor, limit: Int = 4 << 20) -> PeerBatch {
        var batch = PeerBatch(cursor: cursor)
        let directory: OwnedDescriptor
        do { directory = try deviceDirectory(device, naming: "") } catch {
            if !error.isMissing { batch.problem = error.description }
            return batch  // not there yet, or the folder is away
        }
        var budget = max(limit, SyncOperation.maxLineBytes + 1)
        while budget > 0 {
            let name = SyncLog.segmentName(batch.cursor.segment)
            let file: OwnedDescriptor
            do { file = try OwnedDescriptor.open(name, in: directory, kind: .file, naming: name) } catch {
                if !error.isMissing { batch.problem = error.description }
                return batch  // not there yet
            }
            let size: Int
            do { size = try file.size() } catch {
                batch.problem = "\(name): \(error)"
                return batch
            }
            guard size >= batch.cursor.offset else {
                batch.problem = "\(name) is shorter (\(size) bytes) than what was read of it (\(batch.cursor.offset)): it was cut"
                return batch
            }
            let bytes: [UInt8]
            do { bytes = try file.read(from: batch.cursor.offset, count: min(size - batch.cursor.offset, budget)) } catch {
                batch.problem = "\(name): \(error)"
                return batch
            }
            let got = bytes.count
            budget -= got
            let readToEnd = batch.cursor.offset + got >= size
            let (lines, consumed) = SyncLog.wholeLines(bytes)
            if got - consumed > SyncOperation.maxLineBytes {
                // No newline for longer than any operation can be: not a line being written.
                batch.problem = "\(name) byte \(batch.cursor.offset + consumed): the line is longer than 64 KiB"
                // The whole lines before it are still taken.
            }
            for line in lines {
                // Where a problem is (made only when there is one: a replay reads every line).
                var at: String { "\(name) byte \(batch.cursor.offset)" }
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
    /// it has none, and when its directory or that segment is a symbolic link (not followed).
    public func lastOperation(of device: String) -> (sequence: Int64, operation: String)? {
        (try? lastWritten(of: device)) ?? nil
    }

    /// The last operation `device` has in the folder, as `lastOperation`, but only nil when it
    /// truly has none (no directory, no segment, an empty one); when that cannot be told — a
    /// link where its directory or newest segment should be, a last line that does not read —
    /// the error names why. A writer catching up starts from here: taking "cannot tell" for
    /// "none" would append its whole outbox again after what is there.
    public func lastWritten(of device: String) throws(SyncFolderError) -> (sequence: Int64, operation: String)? {
        do throws(FolderRefusal) {
            let directory: OwnedDescriptor
            do {
                directory = try deviceDirectory(device, naming: root + "/")
            } catch {
                if error.isMissing { return nil }
                throw error
            }
            let newest = directory.names().compactMap(SyncLog.segmentIndex).max() ?? 0
            guard newest > 0 else { return nil }
            let path = root + "/devices/" + device + "/" + SyncLog.segmentName(newest)
            let file = try OwnedDescriptor.open(SyncLog.segmentName(newest), in: directory, kind: .file, naming: path)
            let size: Int
            let bytes: [UInt8]
            do {
                size = try file.size()
                let start = max(0, size - 2 * (SyncOperation.maxLineBytes + 1))
                bytes = try file.read(from: start, count: size - start)
            } catch {
                throw FolderRefusal(path, .system(error.code))
            }
            guard let end = bytes.lastIndex(of: UInt8(ascii: "\n")) else {
                if size == 0 { return nil }
                throw FolderRefusal(path, .system(EILSEQ))  // no whole line in it
            }
            let whole = bytes[..<end]
            let first = whole.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
            guard let text = String(validating: whole[first...], as: UTF8.self),
                let operation = try? SyncOperation(line: text)
            else { throw FolderRefusal(path, .system(EILSEQ)) }
            return (operation.sequence, operation.id)
        } catch {
            throw error.error
        }
    }

    /// `devices/`, opened without following a link there; `prefix` goes before the names in
    /// a refusal (the folder's path and a slash, or nothing for names relative to it).
    private func devicesDirectory(naming prefix: String) throws(FolderRefusal) -> OwnedDescriptor {
        let folder = try OwnedDescriptor.folder(root)
        return try Self.directory("devices", in: folder, naming: prefix + "devices")
    }

    /// `device`'s directory, opened without following a link at `devices` or at its own name.
    private func deviceDirectory(_ device: String, naming prefix: String) throws(FolderRefusal) -> OwnedDescriptor {
        let devices = try devicesDirectory(naming: prefix)
        return try Self.directory(device, in: devices, naming: prefix + "devices/" + device)
    }

    /// Opens the directory `name` in `parent`, made first when `creating`; a symbolic link or
    /// anything else that is not a directory is refused.
    private static func directory(
        _ name: String, in parent: OwnedDescriptor, creating: Bool = false, naming path: String
    ) throws(FolderRefusal) -> OwnedDescriptor {
        if creating && mkdirat(parent.fd, name, 0o755) != 0 {
            let code = errno
            if code != EEXIST { throw FolderRefusal(path, .system(code)) }
        }
        return try OwnedDescriptor.open(name, in: parent, kind: .directory, naming: path)
    }

    /// Writes `bytes` as `name` in `directory`, whole under a temporary name, then renamed into
    /// place (over a link too, which is replaced, not followed).
    private static func write(
        _ bytes: [UInt8], to name: String, in directory: OwnedDescriptor, naming path: String
    ) throws(FolderRefusal) {
        do { try AtomicFile.write(bytes, directory: directory.fd, name: name) } catch {
            throw FolderRefusal(path, .system(error.code))
        }
    }
}

/// A sync folder that cannot be used, in a sentence naming it.
public struct SyncFolderError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
    init(_ path: String, _ code: Int32) { description = "\(path): \(String(cString: strerror(code)))" }
}
