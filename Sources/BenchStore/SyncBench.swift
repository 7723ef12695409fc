import BiomaCore
import BiomaStore
import BiomaSync
import Foundation

// `BenchStore sync`: a peer's ten years replayed. Device A records the history with sync on
// (every interval an operation in its log, in a real folder); device B reads that log and
// merges it, batch by batch as the daemon does. The baseline is the same history recorded
// directly into a fresh store with sync off.
/// Returns whether the replayed history is the one written.
func syncBenchmark() throws -> Bool {
    let folder = SyncFolder(root: base.appendingPathComponent("folder").path)
    try FileManager.default.createDirectory(atPath: folder.root, withIntermediateDirectories: true)
    let a = try Tracker(dataDirectory: base.appendingPathComponent("a"), rules: rules, now: start, bootID: bootID)
    let deviceA = try a.sync.device().id
    try folder.prepare(device: deviceA, name: "A")
    var pending: [SyncOperation] = []
    a.onSyncOperations = { pending += $0 }
    try a.sync.enable(folder: folder.root, name: "A")
    let ids = try projectNames.map { try a.catalog.addProject(name: $0, color: "", at: start) }
    let intervals = history(projectIDs: ids)
    var written = 0
    let writeTime = try measure {
        _ = try a.history.append(intervals, at: start)
        // What the daemon makes a slice per turn of its loop, made here in a row.
        while a.sync.hasBacklog { try a.sync.drainBacklog() }
        try folder.append(pending, device: deviceA)
        written = pending.count
    }
    pending = []
    let baseline = try Tracker(dataDirectory: base.appendingPathComponent("direct"), rules: rules, now: start, bootID: bootID)
    let baselineIDs = try projectNames.map { try baseline.catalog.addProject(name: $0, color: "", at: start) }
    let directCPU = cpuMillis()
    let direct = try measure { _ = try baseline.history.append(history(projectIDs: baselineIDs), at: start) }
    let directCPUTime = cpuMillis() - directCPU
    let b = try Tracker(dataDirectory: base.appendingPathComponent("b"), rules: rules, now: start, bootID: bootID)
    let deviceB = try b.sync.device().id
    try folder.prepare(device: deviceB, name: "B")
    try b.sync.enable(folder: folder.root, name: "B")
    var applied = 0
    var batches = 0
    let replayCPU = cpuMillis()
    // On a worker's connection, as the daemon merges (its triggers off meanwhile).
    let worker = try Tracker(workerFor: b) { false }
    let replay = try measure {
        var peer = SyncPeerState(device: deviceA)
        while true {
            let batch = folder.read(deviceA, from: SyncCursor(segment: peer.segment, offset: peer.offset, sequence: peer.sequence))
            if let problem = batch.problem { fatalError("the log is damaged: \(problem)") }
            guard !batch.operations.isEmpty else { break }
            (peer.segment, peer.offset, peer.sequence) = (batch.cursor.segment, batch.cursor.offset, batch.cursor.sequence)
            applied += try worker.sync.merge(batch.operations, peer: peer, at: start).operations
            batches += 1
            if !batch.more { break }
        }
    }
    let replayCPUTime = cpuMillis() - replayCPU
    b.adopt(worker.state)
    worker.close()
    let same = try a.history.exportCSV(from: nil, to: nil, at: start) == b.history.exportCSV(from: nil, to: nil, at: start)
    print("| sync: a peer's ten years replayed            | time          | vs baseline | aim    |")
    print("|----------------------------------------------|---------------|-------------|--------|")
    print("| baseline: the same history recorded directly | \(ms(direct)) |       1.00× |        |")
    print("| written as operations, appended and fsynced  | \(ms(writeTime)) | \(String(format: "%10.2f", writeTime / direct))× |        |")
    print("| replayed from the folder (\(batches) batches)       | \(ms(replay)) | \(String(format: "%10.2f", replay / direct))× | ≤ 3 s  |")
    print(
        "  CPU time (user + system, less disturbed by a busy machine): the baseline \(ms(directCPUTime)), the replay \(ms(replayCPUTime)) (\(String(format: "%.2f", replayCPUTime / directCPUTime))×)")
    print("  \(intervals.count) intervals, \(written) operations written, \(applied) applied; histories identical: \(same)")
    return same && applied == written
}
