import BiomaCore
import BiomaStore
import BiomaSync
import CContract
import CSystem
import DBusKit
import Foundation

/// `org.biomatimer.Sync1` on the daemon's object: one history across a person's machines,
/// through a folder that Syncthing (or anything that copies files) shares between them.
///
/// With sync on, every change the tracker commits is also a line of this device's log in the
/// folder, appended and flushed before the call that made it is answered (the tracker hands
/// the operations over right after its commit). Peers' logs are watched with inotify on the
/// loop (nothing polls: an idle daemon with sync on does not wake up), read from their cursors
/// when a file changes, and merged in one transaction per batch. A folder that cannot be
/// written (unmounted, read-only) does not stop the timer: the operations wait in the store and
/// are appended at the next change, or at the next try (2 s after the failure, then twice as
/// long each time, up to 5 min: the only wake-ups sync makes, and only while it fails).
public final class SyncService: ObjectInterface, @unchecked Sendable {
    let tracker: Tracker
    let bus: Bus
    let clock: any TimeSource
    let notifier: Notifier
    let configuredFolder: String?
    /// `enable`'s first snapshot of years of history is written on a worker.
    let bulk: BulkWork
    let log: @Sendable (String) -> Void
    public lazy var publication = Publication(self)
    var published = SyncStatus()

    var folder: SyncFolder?
    var watch: FolderWatch?
    var watchHandle: EventLoop.WatchHandle?
    /// Why this device's operations are not in the folder now (they wait in the store).
    var writeProblem: String?
    /// While `writeProblem` lasts: the next try to write what waits, without a change to
    /// bring it (a folder mounted again while nobody works). Nothing is armed otherwise.
    var retry: Deadlines.Handle?
    private weak var deadlines: Deadlines?
    /// How long after a failed write the folder is tried again: 2 s, doubling up to 5 min
    /// while it keeps failing.
    var retryAfter = SyncService.firstRetry
    static let firstRetry: Micros = 2_000_000
    /// The time one slice of a backlog may take to make operations (µs), on a worker; its
    /// commit and its append to the folder come on top. A change waits for the slice under
    /// way: with 20 ms, toggles made every 100 ms while a ten-year import's operations were
    /// stamped waited 28–46 ms (median), 12–16 ms with 10 ms; the whole backlog took up to a
    /// tenth longer.
    static let drainBudget: Int64 = 10_000
    static let lastRetry: Micros = 300_000_000
    /// A message about this device (a copied data folder that took a new id).
    var notice: String?
    /// Why the start-up identity check failed: sync is then not started (it might write under
    /// another machine's id); `attach` says it.
    var identityError: (any Error)?
    /// Peers' operations in the folder not merged (damage or a line still being copied).
    var behind: UInt32 = 0
    /// The peers' rows of `Devices`, as of the last read of the folder (names from their
    /// `device.json`, cursors from the store): publications use them without any I/O.
    var peerRows: [SyncDeviceRow] = []
    /// A slice of the tracker's backlog is queued for the loop's next turn.
    var drainQueued = false
    /// Peers whose logs changed while the backlog was being stamped: merged after it.
    var peersWaiting: Set<String> = []
    /// The read of peers' logs in progress (`mergeSlice`), if any, and whether its next slice
    /// is queued.
    var mergeRun: MergeRun?
    var mergeQueued = false
    /// Lines of a peer's log read for the next slice (`nextMergeSlice`).
    var mergeSliceBytes = SyncService.firstMergeSlice

    init(
        tracker: Tracker, bus: Bus, clock: any TimeSource, notifier: Notifier, configuredFolder: String?, bulk: BulkWork,
        log: @escaping @Sendable (String) -> Void
    ) {
        (self.tracker, self.bus, self.clock, self.notifier, self.bulk) = (tracker, bus, clock, notifier, bulk)
        (self.configuredFolder, self.log) = (configuredFolder, log)
        renewIfCopied()
    }

    // MARK: - The interface

    public func interface() -> DBusInterface {
        DBusInterface(
            SyncStatus.table, state: { [self] in status() },
            methods: [
                DBusMethod.deferred(BIOMATIMER_SYNC1_ENABLE, in: [.init("folder", "s"), .init("device_name", "s")]) {
                    [self] call, reply in
                    enable(folder: call.arguments[0].string!, name: call.arguments[1].string!) { reply.finish($0.map { [] }) }
                },
                DBusMethod.action(BIOMATIMER_SYNC1_DISABLE) { [self] _ in
                    try disable()
                },
            ],
            signals: [DBusSignal(BIOMATIMER_SYNC1_MERGED, [.init("ops", "u"), .init("devices", "as")])])
    }

    public func attach(_ deadlines: Deadlines) {
        self.deadlines = deadlines
        retry = deadlines.add { [weak self] _ in
            guard let self, writeProblem != nil else { return }
            publication.change(at: clock.now()) { catchUp() }
        }
        do {
            let device = try tracker.sync.device()
            if let folder = configuredFolder, device.folder != folder {
                enable(folder: folder, name: device.name) { [log] in
                    if case .failure(let error) = $0 { log("sync: \(error)") }
                }
            } else if let folder = device.folder {
                if let identityError { throw identityError }
                try start(folder: folder)
            }
        } catch {
            log("sync: \(error)")
        }
        published = status()
    }

    public func publish(at now: Micros) {
        let status = status()
        bus.emitChanges(SyncStatus.table, path: ContractNames.objectPath, from: published, to: status)
        published = status
    }

    func status() -> SyncStatus {
        var status = SyncStatus()
        // Read (or made) at start-up; a store that could not be read then was logged there,
        // and sync shows as off.
        guard let device = tracker.sync.knownDevice else { return status }
        status.enabled = device.folder != nil
        status.folder = device.folder ?? ""
        status.deviceId = device.id
        status.deviceName = device.name
        var me = SyncDeviceRow()
        me.id = device.id
        me.name = device.name
        // For this machine, what the folder is known to hold (not what was made here).
        me.readUpTo = tracker.sync.writtenSequence
        me.problem = writeProblem ?? notice ?? ""
        status.devices = [me] + (folder == nil ? [] : peerRows)
        status.behind = behind
        return status
    }

    /// Reads the peers' rows again: after the folder was read (start-up, a peer's change).
    func refreshPeerRows(_ cursors: [SyncPeerState]) {
        guard let folder, let me = tracker.sync.knownDevice else { return peerRows = [] }
        peerRows = folder.peers(except: me.id).map { id in
            var row = SyncDeviceRow()
            row.id = id
            row.name = folder.name(of: id) ?? ""
            if let peer = cursors.first(where: { $0.device == id }) {
                row.lastOp = peer.lastOperation ?? 0
                row.readUpTo = peer.sequence
                row.problem = peer.problem ?? ""
            }
            return row
        }
    }

    // MARK: - On and off

    /// Turns sync on for `folder` (absolute) under `name` ("" keeps the name it has): the folder
    /// is made ready, this device's history is written once if it never was, and peers' logs
    /// are merged.
    func enable(folder path: String, name: String, done: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        guard path.hasPrefix("/") else {
            return done(.failure(DaemonAPI.invalidArgument("The sync folder must be an absolute path, not `\(path)`.")))
        }
        let name = name.trimmingCharacters(in: .whitespaces)
        guard name.count <= 100, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return done(.failure(DaemonAPI.invalidArgument("A device name is one line of at most 100 characters.")))
        }
        let root = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        // The first time, every recorded row becomes an operation: years of history are
        // written on a worker (`BulkWork`), then the folder is followed.
        publication.changeInBulk(
            clock, on: bulk,
            start: { [self] _ in
                let named = try prepare(SyncFolder(root: root), name: name)
                return { try $0.sync.enable(folder: root, name: named) }
            },
            then: { [self] result in
                try result.get()
                try start(folder: root)
            },
            answered: done)
    }

    /// `enable`'s first steps on the loop: whatever was followed stopped, the identity checked
    /// (a copy of another machine's data folder refused, with a new id taken for the next
    /// call), the folder made ready; the device's name to write under.
    private func prepare(_ chosen: SyncFolder, name: String) throws -> String {
        stop()
        let device = try tracker.sync.device()
        if Self.isCopy(device, in: chosen) {
            try tracker.sync.disable()
            let renewed = try tracker.sync.renewDevice()
            let text =
                "This data folder writes as \(device.id), whose log in \(chosen.root) went on without it: it is a copy of another machine's. This machine now has an id of its own, \(renewed.id); enable sync again to join under it."
            log("sync: " + text)
            throw DBusMethodError(ContractNames.errorPrefix + BIOMATIMER_ERROR_SYNC_IDENTITY, text)
        }
        let named = name.isEmpty ? device.name : name
        do {
            // A folder not there yet is made (`sync enable ~/Sync` before Syncthing shares it).
            try chosen.makeIfMissing()
            try chosen.prepare(device: device.id, name: named)
        } catch {
            throw DBusMethodError(ContractNames.errorPrefix + BIOMATIMER_ERROR_SYNC_FOLDER, "\(error)")
        }
        return named
    }

    /// Turns sync off: nothing more is written or read; the folder stays as it is.
    func disable() throws {
        try publication.change(clock) { _ in
            stop()
            try tracker.sync.disable()
        }
    }

    /// Starts writing to and reading from `root`, whose identity check is done (at start-up by
    /// `renewIfCopied`, by `enable` when asked) and which the store has on: operations waiting
    /// in the store are appended, peers are merged, and the folder is watched.
    func start(folder root: String) throws {
        let folder = SyncFolder(root: root)
        let device = try tracker.sync.device()
        self.folder = folder
        tracker.onSyncOperations = { [weak self] operations in self?.append(operations) }
        catchUp()
        do {
            let watch = try FolderWatch(folder: folder, device: device.id)
            self.watch = watch
            watchHandle = bus.loop.watch(fd: watch.fd) { [weak self] _ in self?.peersChanged() }
        } catch {
            log("sync: cannot watch \(root) (\(error)); peers are read at the next change")
        }
        merge(peers: Set(folder.peers(except: device.id)))
    }

    /// At start-up, before the daemon takes its name (so no client reads the copied id), for
    /// the folder `attach` will start: when this device's log there went on without this
    /// store, a new id is taken and said, with nobody to answer. (`enable` answers it instead.)
    func renewIfCopied() {
        do {
            let device = try tracker.sync.device()
            guard let root = device.folder, configuredFolder == nil || configuredFolder == root else { return }
            let folder = SyncFolder(root: root)
            guard Self.isCopy(device, in: folder) else { return }
            let renewed = try tracker.sync.renewDevice()
            let text = "This data folder was copied from another machine that writes as \(device.id); this machine now writes as \(renewed.id)."
            notice = text
            log("sync: \(text)")
            try folder.prepare(device: renewed.id, name: renewed.name)
        } catch {
            identityError = error
        }
    }

    /// Whether `device`'s log in `folder` went on without this store (a copied data folder).
    static func isCopy(_ device: SyncDevice, in folder: SyncFolder) -> Bool {
        let local = device.lastOperation.map { (sequence: device.lastSequence, operation: $0) }
        return SyncMerge.identityIsShared(localLast: local, folderLast: folder.lastOperation(of: device.id))
    }

    func stop() {
        if let watchHandle { bus.loop.unwatch(watchHandle) }
        watchHandle = nil
        watch = nil
        folder = nil
        tracker.onSyncOperations = nil
        writeProblem = nil
        if let deadlines, let retry { deadlines.schedule(retry, at: nil) }
        behind = 0
        peerRows = []
        peersWaiting = []
        mergeRun = nil
        mergeQueued = false
        mergeSliceBytes = Self.firstMergeSlice
    }

    // MARK: - Writing

    /// Appends this device's new operations (right after the commit that made them, before
    /// the call is answered); if the folder cannot take them they wait in the store.
    func append(_ operations: [SyncOperation]) {
        guard let folder, let device = tracker.sync.knownDevice else { return }
        if writeProblem != nil {
            catchUp()
            return
        }
        do {
            try folder.append(operations, device: device.id)
            if let last = operations.last { tracker.sync.written(upTo: last.sequence) }
        } catch {
            failed(error)
        }
        drainBacklog()
    }

    /// A bulk change (an import, a history reset, the first snapshot) records more changes
    /// than one write makes into operations (`StoreSync.drainSlice`): the rest are made a slice
    /// per turn of the loop, each appended like any change's, so every call, deadline and
    /// peer's change is served between slices, and reads during them. A slice that fails (a
    /// full disk) leaves the rest in the store, in order, for the next write. `ReadUpTo` is
    /// published once, when the last slice is in the folder.
    func drainBacklog() {
        guard folder != nil, tracker.sync.hasBacklog, !drainQueued else { return }
        drainQueued = true
        bus.loop.later { [weak self] in
            guard let self else { return }
            drainQueued = false
            guard folder != nil else { return }
            // Made on a worker while the loop is held (`BulkWork`): reads are answered during
            // the slice, changes after it; the operations are appended when it has ended.
            bulk.write({ worker in
                let end = csystem_clock_us(CLOCK_MONOTONIC) + Self.drainBudget
                try worker.sync.drainBacklog { csystem_clock_us(CLOCK_MONOTONIC) >= end }
            }) { [weak self] result in
                guard let self else { return }
                if case .failure(let error) = result { log("sync: \(error)") }
                drained()
            }
        }
    }

    /// After a slice of the backlog: the next is queued by its append; after the last, the
    /// peers that waited are merged and `ReadUpTo` is published.
    func drained() {
        guard folder != nil, !tracker.sync.hasBacklog else { return }
        let waiting = peersWaiting
        peersWaiting = []
        // The peers that waited join a paused read (resumed here) or start one.
        merge(peers: waiting)
        if mergeRun != nil {
            queueMergeSlice()
        } else if waiting.isEmpty {
            publication.change(at: clock.now()) {}
        }
    }

    /// Appends whatever the folder does not have yet of this device's log.
    func catchUp() {
        guard let folder, let device = tracker.sync.knownDevice else { return }
        do {
            // Not knowing what is there (a link in its place, a last line unread) is a
            // failure: the outbox waits, rather than being appended again after it.
            let inFolder = try folder.lastWritten(of: device.id)?.sequence ?? 0
            let waiting = try tracker.sync.outbox(after: inFolder)
            if !waiting.isEmpty { try folder.append(waiting, device: device.id) }
            tracker.sync.written(upTo: waiting.last?.sequence ?? inFolder)
            if writeProblem != nil { log("sync: the folder takes this device's operations again") }
            writeProblem = nil
            retryAfter = Self.firstRetry
            if let deadlines, let retry { deadlines.schedule(retry, at: nil) }
        } catch {
            failed(error)
        }
        drainBacklog()
    }

    func failed(_ error: any Error) {
        let text = "cannot write to the sync folder (\(error)); changes are kept here and written when it can be"
        if writeProblem == nil { log("sync: " + text) }
        writeProblem = text
        // One retry waits at a time: a change that fails while one is waiting leaves it where
        // it is, so only the retries themselves lengthen the wait (many failed toggles used
        // to push the next look minutes away).
        if let deadlines, let retry, deadlines.instant(of: retry) == nil {
            deadlines.schedule(retry, at: clock.now() + retryAfter)
            retryAfter = min(retryAfter * 2, Self.lastRetry)
        }
    }
}
