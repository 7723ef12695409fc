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
public func processArguments() -> [String] { checkedProcessArguments().arguments }

/// `processArguments()`, and the place of the first argument that is not UTF-8 (nil when all
/// are): such an argument is given with U+FFFD where its bytes were, and a name or note made
/// from it would be stored as `�`, so the tool refuses the line instead.
public func checkedProcessArguments() -> (arguments: [String], notUTF8: Int?) {
    if let bytes = try? readWholeFile("/proc/self/cmdline"), !bytes.isEmpty {
        var parts = bytes.split(separator: 0, omittingEmptySubsequences: false)
        if bytes.last == 0 { parts.removeLast() }
        let invalid = parts.firstIndex { String(validating: $0, as: UTF8.self) == nil }
        return (parts.map { String(decoding: $0, as: UTF8.self) }, invalid)
    }
    return (CommandLine.arguments, nil)
}
