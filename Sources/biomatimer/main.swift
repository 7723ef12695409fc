// `biomatimer`: the front door. Keybinding commands (toggle, start, stop, project next, …)
// are answered here with one D-Bus call, without Foundation, so they start in a few
// milliseconds; everything else is handed to `biomatimer-tool` (found next to this binary,
// or in ../libexec/biomatimer/) by exec, which keeps the arguments and exit codes as they are.
import TimerControl

#if canImport(Glibc)
import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
if let code = QuickCommand.run(arguments) { exit(code) }

/// The directory this executable lives in.
func ownDirectory() -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard n > 0 else { return "." }
    let path = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return String(path[..<slash])
}

let directory = ownDirectory()
let candidates = [directory + "/biomatimer-tool", directory + "/../libexec/biomatimer/biomatimer-tool"]
for tool in candidates where access(tool, X_OK) == 0 {
    var argv: [UnsafeMutablePointer<CChar>?] = CommandLine.arguments.map { strdup($0) } + [nil]
    execv(tool, &argv)
}
let message = "biomatimer: cannot find biomatimer-tool (looked in \(candidates.joined(separator: " and "))); reinstall with `biomatimer-tool install`.\n"
_ = message.withCString { write(2, $0, strlen($0)) }
exit(1)
