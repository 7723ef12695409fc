import DBusCore

#if canImport(Glibc)
import Glibc
#endif

/// The commands bound to keys and bar clicks, run without Foundation or the argument parser:
/// parse, one blocking call, print, exit — so a keybinding costs about what `dbus-send` does.
/// Anything else (help, options, typos) is left to the full command, which gives the same
/// results for these forms and the usual usage errors for the rest.
public enum QuickCommand {
    /// Runs `arguments` (without the program name) if it is one of the quick forms and
    /// returns the exit code; nil when the full command must handle it.
    public static func run(_ arguments: [String], address: BusAddress = .session) -> Int32? {
        guard let (member, callArguments, printsRunning) = parse(arguments) else { return nil }
        do {
            let reply = try TimerClient(address: address).call(member, callArguments)
            if printsRunning { writeOut(reply.first?.bool == true ? "running\n" : "stopped\n") }
            return 0
        } catch {
            writeErr("biomatimer: \(error.description)\n")
            return error.exitCode
        }
    }

    /// The method and arguments of a quick form, or nil.
    static func parse(_ a: [String]) -> (String, [DBusValue], Bool)? {
        func project(_ text: String) -> Bool { !text.hasPrefix("-") }
        switch a.count {
        case 1:
            switch a[0] {
            case "start": return ("Start", [], false)
            case "stop": return ("Stop", [], false)
            case "toggle": return ("Toggle", [], false)
            case "reset": return ("Reset", [], false)
            default: return nil
            }
        case 2:
            if a == ["toggle", "--print"] { return ("Toggle", [], true) }
            guard a[0] == "project" else { return nil }
            switch a[1] {
            case "stop": return ("StopProject", [], false)
            case "next": return ("CycleProject", [.int32(1)], false)
            case "prev": return ("CycleProject", [.int32(-1)], false)
            default: return nil
            }
        case 3:
            guard a[0] == "project", project(a[2]) else { return nil }
            switch a[1] {
            case "start": return ("StartProject", [.string(a[2])], false)
            case "toggle": return ("ToggleProject", [.string(a[2])], false)
            case "reset": return ("ResetProject", [.string(a[2])], false)
            default: return nil
            }
        default:
            return nil
        }
    }

    static func writeOut(_ text: String) { write(1, text) }
    static func writeErr(_ text: String) { write(2, text) }

    private static func write(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n <= 0 { return }
                offset += n
            }
        }
    }
}
