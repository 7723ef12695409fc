#if canImport(Glibc)
import Glibc
#endif

/// The process environment, read without Foundation.
public func processEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var cursor = environ
    while let entry = cursor.pointee {
        let text = String(cString: entry)
        if let equals = text.firstIndex(of: "=") {
            result[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        cursor += 1
    }
    return result
}

/// The process's arguments, the program first, as the kernel keeps them
/// (`/proc/self/cmdline`). Swift's `CommandLine.arguments` is sometimes empty when a library
/// is preloaded beside the program (libfaketime, which the end-to-end tests use to move the
/// clock, left it empty in about one start in five), and a command run without its arguments
/// is another command; this reads them where they always are.
public func processArguments() -> [String] {
    if let bytes = try? readWholeFile("/proc/self/cmdline"), !bytes.isEmpty {
        var arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if bytes.last == 0 { arguments.removeLast() }
        return arguments
    }
    return CommandLine.arguments
}
