import BiomaCore
import BiomaStore
import BiomaSync
import CContract
import CSystem
import DBusKit
import Foundation

/// Reading the peers' logs: a merge run over the peers whose logs changed, a slice per turn on
/// the bulk worker, and what is said at its end (`Merged`, the peers' rows, an overlap).
extension SyncService {
    // MARK: - Reading

    /// How long one slice of a peer's log may take on the worker (µs): its read, its merge and
    /// its commit. A slice is as many bytes of lines as that time allows, as last measured
    /// (`mergeSliceBytes`), so a change made meanwhile waits about this long at most.
    static let mergeBudget: Int64 = 30_000
    /// The first slice of a read: 32 KiB of lines (about 125 operations); then what the last
    /// whole slice's pace says `mergeBudget` allows, at most twice the last (a read takes at
    /// least one line, however long: up to 64 KiB).
    static let firstMergeSlice = 32 << 10
    static let largestMergeSlice = 8 << 20

    /// The next slice's bytes after one of `bytes` took `took` µs on the worker.
    static func nextMergeSlice(after bytes: Int, took: Int64) -> Int {
        let paced = Int(Double(bytes) * Double(mergeBudget) / Double(max(took, 1)))
        return min(max(paced, firstMergeSlice / 2), bytes * 2, largestMergeSlice)
    }

    /// What a slice of a peer's log did, on the worker: the peer's cursor after it, whether
    /// more follows, a problem newly found, and what was merged (nil: nothing new to merge).
    struct MergedSlice: Sendable {
        var state: SyncPeerState
        var more: Bool
        var problem: String?
        var merged: SyncMerged?
        /// How long the slice took on the worker (µs), and the bytes its lines were read up to.
        var took: Int64 = 0
        var limit: Int
        /// The next slice, being read meanwhile (nil at the end of the log or at a problem).
        var ahead: ReadAhead?
    }

    /// A peer's next slice read and parsed on a thread of its own while the worker merges the
    /// one before it (reading was a tenth of a replay), with its operations' fields as the
    /// store keeps them (`StampedText`): the next slice finds them ready. Nothing is changed
    /// by it; a read no slice takes is let go.
    final class ReadAhead: @unchecked Sendable {
        let device: String
        let from: SyncCursor
        let limit: Int
        private let done = DispatchSemaphore(value: 0)
        /// Written once, on the reading thread, before `done` is signalled.
        private var read: (batch: PeerBatch, texts: [StampedText])?

        init(_ folder: SyncFolder, _ device: String, from: SyncCursor, limit: Int) {
            (self.device, self.from, self.limit) = (device, from, limit)
            Thread { [self] in
                let batch = folder.read(device, from: from, limit: limit)
                read = (batch, batch.operations.map { StampedText($0.fields) })
                done.signal()
            }.start()
        }

        /// The batch and its texts, once read, when it was read for `device` from `cursor`;
        /// else nil.
        func batch(for device: String, from cursor: SyncCursor) -> (batch: PeerBatch, texts: [StampedText])? {
            guard device == self.device, cursor == from else { return nil }
            done.wait()
            done.signal()
            return read
        }
    }

    /// A read of peers' logs across turns of the loop: the peers still to read, the one being
    /// read (its cursor), and what the read did so far.
    struct MergeRun {
        var peers: [String]
        var reading: SyncPeerState?
        /// The next slice of `reading`, being read.
        var ahead: ReadAhead?
        var count = 0
        var devices: Set<String> = []
        var overlaps: [(kept: String, cut: String, from: Micros, to: Micros)] = []

        init(peers: [String]) { self.peers = peers }
    }

    /// The peers' cursors from the store; nil (logged) when it cannot be read: nothing is
    /// merged then, and the next change of a peer's file tries again.
    func readPeers() -> [SyncPeerState]? {
        do {
            return try tracker.sync.peers()
        } catch {
            log("sync: cannot read how far the peers were read (\(error))")
            return nil
        }
    }

    func peersChanged() {
        guard let watch else { return }
        merge(peers: watch.changes())
    }

    /// Reads `peers`' new whole lines and merges them a slice per turn of the loop (at most
    /// `mergeSliceBytes` of lines, one transaction each), so that a peer's years of history
    /// never hold the other callers. Says once what the whole read did: the `Merged` signal,
    /// and a notification when two devices had timed the same minutes. Peers that change
    /// while a read runs join it.
    func merge(peers: Set<String>) {
        guard folder != nil, !peers.isEmpty else { return }
        // A merge weighs a peer's fields against the stamps here: while this device's own
        // backlog is being stamped, the peers wait for its last slice (their lines stay in the
        // folder) rather than the merge stamping the rest in one go.
        guard !tracker.sync.hasBacklog else { return peersWaiting.formUnion(peers) }
        if var run = mergeRun {
            for peer in peers.sorted() where !run.peers.contains(peer) { run.peers.append(peer) }
            mergeRun = run
            return
        }
        mergeRun = MergeRun(peers: peers.sorted())
        mergeSlice()
    }

    func queueMergeSlice() {
        guard !mergeQueued else { return }
        mergeQueued = true
        bus.loop.later { [weak self] in
            self?.mergeQueued = false
            self?.mergeSlice()
        }
    }

    /// One slice of the read in progress; the next is queued for the loop's next turn, and
    /// the last says what the read did. The slice is read and merged on a worker while the
    /// loop is held (`BulkWork`): reads are answered meanwhile, changes after it. A bulk
    /// change made meanwhile pauses the read until its backlog is stamped (`drainBacklog`
    /// resumes it).
    func mergeSlice() {
        guard var run = mergeRun, let folder else { return mergeRun = nil }
        guard !tracker.sync.hasBacklog else { return }
        if run.reading == nil, !run.peers.isEmpty {
            if let known = readPeers() {
                let peer = run.peers.removeFirst()
                run.reading = known.first { $0.device == peer } ?? SyncPeerState(device: peer)
            } else {
                run.peers = []
            }
        }
        guard let reading = run.reading else {
            mergeRun = nil
            return publication.change(at: clock.now()) { merged(run, in: folder) }
        }
        // A peer's operations are a change like any other: the same rules first (a sleep not
        // yet noticed, an absence that counts by now), then the slice on a worker.
        let limit = mergeSliceBytes
        publication.changeInBulk(
            clock, on: bulk,
            start: { [self] now in
                let ahead = run.ahead
                (run.reading, run.ahead) = (nil, nil)
                mergeRun = run
                return { worker -> MergedSlice in
                    let started = csystem_clock_us(CLOCK_MONOTONIC)
                    var slice = try Self.mergeSlice(of: reading, limit: limit, ahead: ahead, from: folder, into: worker, at: now)
                    slice.took = csystem_clock_us(CLOCK_MONOTONIC) - started
                    return slice
                }
            },
            then: { [self] result in mergedSlice(result, of: reading) },
            answered: { [self] result in
                guard case .failure(let error) = result else { return }
                log("sync: cannot merge \(reading.device)'s operations now (\(error)); trying again at its next change")
                mergeRun = nil
            })
    }

    /// A slice's end, on the loop inside its change: the run counts what it merged, and the
    /// next slice is queued.
    private func mergedSlice(_ result: Result<MergedSlice, any Error>, of reading: SyncPeerState) {
        guard var run = mergeRun else { return }
        switch result {
        case .success(let slice):
            if let problem = slice.problem { log("sync: \(slice.state.device): \(problem)") }
            if let merged = slice.merged {
                run.count += merged.operations
                if merged.operations > 0 { run.devices.insert(slice.state.device) }
                run.overlaps += merged.overlaps
                if slice.more {
                    (run.reading, run.ahead) = (slice.state, slice.ahead)
                    // A whole slice: its pace sets the next one's size (the slice being
                    // read ahead has the size before it: the one after takes this pace).
                    mergeSliceBytes = Self.nextMergeSlice(after: slice.limit, took: slice.took)
                }
            }
        case .failure(let error):
            log("sync: cannot merge \(reading.device)'s operations (\(error)); trying again at its next change")
        }
        mergeRun = run
        queueMergeSlice()
    }

    /// One slice, on the worker: `reading`'s next lines (about `limit` bytes, or as `ahead`
    /// read them) merged in one transaction, the lines after them read meanwhile.
    static func mergeSlice(
        of reading: SyncPeerState, limit: Int, ahead: ReadAhead?, from folder: SyncFolder, into worker: Tracker, at now: Micros
    ) throws -> MergedSlice {
        var state = reading
        let from = SyncCursor(segment: state.segment, offset: state.offset, sequence: state.sequence)
        let readAhead = ahead.flatMap { ahead in ahead.batch(for: state.device, from: from).map { ($0.batch, $0.texts, ahead.limit) } }
        let (batch, texts, bytes) = readAhead ?? (folder.read(state.device, from: from, limit: limit), nil, limit)
        let problemChanged = batch.problem != state.problem
        (state.segment, state.offset, state.sequence) = (batch.cursor.segment, batch.cursor.offset, batch.cursor.sequence)
        state.problem = batch.problem
        var slice = MergedSlice(state: state, more: batch.more, problem: problemChanged ? batch.problem : nil, limit: bytes)
        // Not past a problem: it is said, and the log read again from it at its next change.
        if batch.more, batch.problem == nil { slice.ahead = ReadAhead(folder, state.device, from: batch.cursor, limit: limit) }
        guard batch.cursor != from || problemChanged else { return slice }
        slice.merged = try worker.sync.merge(batch.operations, texts: texts, peer: state, at: now)
        if let last = batch.operations.last { slice.state.lastOperation = last.clock.wall }
        return slice
    }

    /// The end of a read: how far behind the peers are, their rows, `Merged`, the notification.
    func merged(_ run: MergeRun, in folder: SyncFolder) {
        behind = 0
        let cursors = readPeers() ?? []
        for peer in folder.peers(except: tracker.sync.knownDevice?.id ?? "") {
            let read = cursors.first { $0.device == peer }?.sequence ?? 0
            if let last = folder.lastOperation(of: peer)?.sequence, last > read {
                behind += UInt32(clamping: last - read)
            }
        }
        refreshPeerRows(cursors)
        if run.count > 0 {
            publication.occurred(.merged(operations: run.count, devices: run.devices.sorted()), at: clock.now())
            do {
                try bus.emit(
                    path: ContractNames.objectPath, interface: ContractNames.syncInterface, member: BIOMATIMER_SYNC1_MERGED,
                    [.uint32(UInt32(clamping: run.count)), .array(.string, run.devices.sorted().map { .string($0) })])
            } catch {
                log("sync: cannot send Merged (\(error))")
            }
        }
        if let first = run.overlaps.first { announce(first, more: run.overlaps.count - 1, in: folder) }
    }

    /// "Laptop and Desktop both timed 10:00–10:30: kept Laptop's" — once per read.
    func announce(_ overlap: (kept: String, cut: String, from: Micros, to: Micros), more: Int, in folder: SyncFolder) {
        func name(_ device: String) -> String {
            if let me = tracker.sync.knownDevice, device == me.id { return me.name }
            return folder.name(of: device) ?? String(device.prefix(8))
        }
        let rules = tracker.rules
        let now = clock.now()
        // "10:00–10:30" today; "2026-11-19 10:00–10:30" another day (the end's date only when
        // it is not the start's).
        let span =
            "\(EditText.time(overlap.from, now: now, rules: rules))–\(EditText.time(overlap.to, now: overlap.from, rules: rules))"
        var body = "\(name(overlap.kept)) and \(name(overlap.cut)) both timed \(span): kept \(name(overlap.kept))'s."
        if more > 0 { body += " (\(more) more like it)" }
        notifier.show(Notifier.Notice(summary: "Time timed on two machines", body: body), onAction: { _ in })
    }
}
