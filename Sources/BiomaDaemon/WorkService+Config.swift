import CContract
import DBusKit
import Foundation

/// The settings file as the daemon read it at start: where it is and the lines it could not
/// use (`Settings.problems`), which Timer1 publishes as `ConfigProblems` until a restart.
public struct ConfigFileState: Sendable, Equatable {
    public var path = ""
    public var problems: [String] = []

    public init(path: String = "", problems: [String] = []) { (self.path, self.problems) = (path, problems) }
}

/// `CheckConfig`: the settings file read again now, with the same reader as at start (what
/// `biomatimer config check` says), without applying anything.
extension WorkService {
    func configMethods() -> [DBusMethod] {
        [
            DBusMethod(
                BIOMATIMER_TIMER1_CHECK_CONFIG, out: [.init("file", "s"), .init("present", "b"), .init("problems", "as")]
            ) { [self] _ in
                let file = URL(fileURLWithPath: config.path)
                let present = FileManager.default.fileExists(atPath: file.path)
                return [.string(file.path), .boolean(present), .strings(Settings.load(from: file).problems)]
            }.reading()
        ]
    }
}
