import Foundation

/// The environment variable that marks every process a test starts through a bar, so the
/// test can stop exactly those (bars do not always stop their blocks).
public let tagVariable = "BIOMATIMER_TEST_TAG"

/// SIGTERM, then SIGKILL after 2 s, to every process whose environment carries `tag`.
public func stopTagged(_ tag: String) {
    func tagged() -> [pid_t] {
        let marker = Data("\(tagVariable)=\(tag)".utf8)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), pid != getpid(),
                let environ = FileManager.default.contents(atPath: "/proc/\(entry)/environ")
            else { return nil }
            return environ.split(separator: 0).contains { Data($0) == marker } ? pid : nil
        }
    }
    for pid in tagged() { kill(pid, SIGTERM) }
    if !waitUntil(timeout: 2, { tagged().isEmpty }) {
        for pid in tagged() { kill(pid, SIGKILL) }
    }
}
