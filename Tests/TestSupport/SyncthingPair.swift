import Foundation

/// Two real Syncthing instances on loopback carrying a folder between two directories
/// (`Tests/harness/syncthing-pair.py`): started, and ready once a probe file has crossed both
/// ways; stopped when released.
public final class SyncthingPair: @unchecked Sendable {
    /// The two folders Syncthing keeps alike: the desk's and the laptop's copy.
    public let desk: String
    public let laptop: String
    let state: URL
    let process: ChildProcess

    public init() throws {
        state = try makeTemporaryDirectory("biomatimer-syncthing")
        (desk, laptop) = (state.path + "/desk", state.path + "/laptop")
        for path in [desk, laptop] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false) }
        process = try ChildProcess(
            "/usr/bin/python3", [repositoryRoot.appendingPathComponent("Tests/harness/syncthing-pair.py").path, state.path, desk, laptop])
        let ready = LineReader(process).next(timeout: 60)
        guard ready?.text.hasPrefix("ready ") == true else {
            process.terminate(grace: 15)
            throw TestSupportError("the Syncthing pair did not start: \(ready?.text ?? "nothing")")
        }
    }

    deinit {
        process.terminate(grace: 15)
        try? FileManager.default.removeItem(at: state)
    }
}
