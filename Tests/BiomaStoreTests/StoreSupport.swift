import BiomaCore
import Foundation
import Testing
@_exported import TestSupport

@testable import BiomaStore
import StoreTestSupport

let boot = "boot-1"

/// A fresh directory, removed when `body` returns.
func withTemporaryDirectory<R>(_ body: (URL) throws -> R) rethrows -> R {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("biomastore-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}

/// The memory state and the store's rows, to prove a failed call changed nothing.
struct Fingerprint: Equatable {
    var snapshot: TrackerSnapshot
    var state: WorkTimer
    var rows: String
}

func fingerprint(_ tracker: Tracker, at now: Micros) throws -> Fingerprint {
    Fingerprint(snapshot: try tracker.history.snapshot(at: now), state: tracker.workTimer, rows: try tracker.dumpForTesting())
}

func storageMessage(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch let error as TrackerError {
        guard case .storage(let message) = error else { return "unexpected \(error)" }
        return message
    } catch {
        return "unexpected \(error)"
    }
}

/// The BenchStore executable built next to the test bundle.
func benchStoreExecutable() -> URL? {
    let candidates = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
    ]
    for directory in candidates {
        let url = directory.appendingPathComponent("BenchStore")
        if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    return nil
}
