import CContract
import DBusKit
import BiomaSystem
import Glibc
import BiomaContract

/// Clicks: each is one call to the daemon (a click may start it by activation). A refused
/// call changes nothing here; its message is shown as a desktop notification.
extension TrayService {
    func perform(_ action: MenuAction) {
        switch action {
        case .toggleWork: click(ContractNames.interface, BIOMATIMER_TIMER1_TOGGLE)
        case .startProject(let id): click(ContractNames.interface, BIOMATIMER_TIMER1_START_PROJECT, [.string(id)])
        case .stopProject: click(ContractNames.interface, BIOMATIMER_TIMER1_STOP_PROJECT)
        case .cycle(let step): click(ContractNames.interface, BIOMATIMER_TIMER1_CYCLE_PROJECT, [.int32(step)])
        case .focus(let member, let arguments): click(ContractNames.focusInterface, member, arguments)
        case .completeTask(let id): click(ContractNames.tasksInterface, BIOMATIMER_TASKS1_COMPLETE_TASK, [.string(id)])
        case .snoozeTask(let id): click(ContractNames.tasksInterface, BIOMATIMER_TASKS1_SNOOZE_TASK, [.string(id), .int64(600_000_000)])
        case .report: report()
        case .quit: quit()
        }
    }

    func click(_ interface: String, _ member: String, _ arguments: [DBusValue] = []) {
        daemonCall(
            interface, member, arguments, autoStart: true,
            failure: { [self] error in notify("biomatimer", Self.message(of: error)) }, success: { _ in })
    }

    static func message(of error: BusError) -> String {
        if case .remote(_, let message) = error { return message }
        return error.description
    }

    /// A desktop notification (org.freedesktop.Notifications), sent without waiting.
    func notify(_ summary: String, _ body: String) {
        guard
            let message = try? BusMessage.methodCall(
                destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                interface: "org.freedesktop.Notifications", member: "Notify",
                arguments: [
                    "biomatimer", .uint32(0), "", .string(summary), .string(body), .strings([]), .vardict([:]), .int32(-1),
                ])
        else { return }
        bus.send(message, timeout: Self.callTimeout) { _ in }
    }

    /// "Report of today…": the daemon draws today's ring as SVG; it is written to the runtime
    /// folder and opened with `xdg-open`.
    func report() {
        let svg: DBusValue = .vardict(["Svg": true])
        daemonCall(
            ContractNames.interface, BIOMATIMER_TIMER1_REPORT_TEXT, [.string("day"), .string(""), svg], autoStart: true,
            failure: { [self] error in notify("biomatimer", Self.message(of: error)) },
            success: { [self] values in
                guard let text = values.first?.string else { return }
                let path = Self.reportPath()
                do throws(FileError) {
                    // Whole or not at all: the viewer never opens half a picture.
                    try AtomicFile.write(Array(text.utf8), to: path, mode: 0o600)
                    Self.spawn(["xdg-open", path])
                } catch {
                    notify("biomatimer", error.description)
                }
            })
    }

    static func reportPath() -> String {
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), runtime.hasPrefix("/") {
            return runtime + "/biomatimer-today.svg"
        }
        return "/tmp/biomatimer-today-\(getuid()).svg"
    }

    /// Starts a program found on PATH without waiting for it (SIGCHLD is ignored by the tray,
    /// so no zombie), its standard output and error the tray's.
    static func spawn(_ argv: [String]) {
        _ = try? Spawn.start(argv, environment: .inherited, options: Spawn.Options(output: .inherit, error: .inherit, searchPath: true))
    }
}
