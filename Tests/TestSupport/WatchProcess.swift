import Foundation

/// `PROGRAM watch ARGS` (or any line-printing child), its lines read as they come and its
/// standard error kept.
public final class WatchProcess: @unchecked Sendable {
    public let process: ChildProcess
    public let lines: LineReader
    private let stderr: Drain

    public init(_ program: String, _ arguments: [String], environment: [String: String], pipeInput: Bool = false) throws {
        process = try ChildProcess(program, arguments, environment: environment, pipeInput: pipeInput)
        lines = LineReader(process)
        stderr = Drain(process.stderr)
    }

    public var errors: String { stderr.text }

    public func stop() { process.terminate(grace: 2) }
}
