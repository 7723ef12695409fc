import BiomaCore
import Foundation

/// Two devices' ids, and their operations as the folder tests write them.
let deviceA = "0a0a0a0a-0000-4000-8000-00000000000a"
let deviceB = "0b0b0b0b-0000-4000-8000-00000000000b"

/// A device's operations as a test writes them: sequence `n` at wall `n` µs, the note padded
/// by `padding` bytes.
func operations(_ sequences: ClosedRange<Int64>, device: String = deviceA, padding: Int = 0) -> [SyncOperation] {
    sequences.map { n in
        SyncOperation(
            sequence: n, id: String(format: "01900000-0000-7000-8000-%012llx", n),
            clock: HybridTime(wall: n, counter: 0, device: device), entity: .interval,
            entityID: "01900000-0000-7000-8000-000000000001",
            fields: ["end": .int(n), "note": .string("é \(n)" + String(repeating: "x", count: padding))])
    }
}

/// Operations as a log's lines.
func lines(_ operations: [SyncOperation]) -> String { operations.map { $0.line + "\n" }.joined() }
