import ArgumentParser
import BiomaSystem
import BiomaWidgets
import CContract
import DBusCore
import BiomaContract

/// What shells complete besides commands and options: a file or folder where one is taken
/// (`.file()`, `.directory`: the shell lists them itself), the bar formats (`.formats`, in the
/// script), and names and ids the daemon knows (`.projects`, `.tasks`, `.focusPresets`), for
/// which the script runs `biomatimer ---completion …`: the front hands that to the daemon like
/// any command line (or to `biomatimer-tool` when no daemon answers), and the tree calls these.
/// A daemon that does not answer within `BIOMATIMER_COMPLETION_TIMEOUT_MS` completes nothing.
extension CompletionKind {
    /// The projects' names.
    static var projects: CompletionKind {
        .custom { _, _, prefix in
            let projects = ProjectListing.rows(completionCall(BIOMATIMER_TIMER1_LIST_PROJECTS)?.first)
            return projects.map(\.name).filter { $0.hasPrefix(prefix) }
        }
    }

    /// The tasks' ids (`t1`): the open ones, or with `all` the done ones too.
    static func tasks(all: Bool) -> CompletionKind {
        .custom { _, _, prefix in
            let answer = completionCall(BIOMATIMER_TASKS1_LIST_TASKS, [.boolean(all)], interface: ContractNames.tasksInterface)
            return TaskListing.rows(answer?.first).map(\.id).filter { $0.hasPrefix(prefix) }
        }
    }

    /// The focus presets' names.
    static var focusPresets: CompletionKind {
        .custom { _, _, prefix in
            let answer = completionCall(BIOMATIMER_FOCUS1_LIST_PRESETS, interface: ContractNames.focusInterface)
            let presets = (answer?.first?.array ?? []).compactMap(\.vardict)
            return presets.compactMap { $0["Name"]?.string }.filter { $0.hasPrefix(prefix) }
        }
    }

    /// The bars' format names `--format` takes (a template is the user's own).
    static var formats: CompletionKind { .list(WidgetFormats.names) }
}

/// One call for a shell completing a word: in the daemon, to its own handlers; from the tool,
/// over the bus, waiting at most `BIOMATIMER_COMPLETION_TIMEOUT_MS`. Nil when nothing answers.
func completionCall(_ member: String, _ arguments: [DBusValue] = [], interface: String = ContractNames.interface) -> [DBusValue]? {
    let context = CommandContext.current
    let daemon: (any DaemonAccess)?
    if context.direct {
        var environment = processEnvironment()
        environment[BIOMATIMER_TIMEOUT_VARIABLE] = String(Double(BIOMATIMER_COMPLETION_TIMEOUT_MS) / 1000)
        daemon = try? DaemonClient(environment: environment)
    } else {
        daemon = try? context.daemon()
    }
    return try? daemon?.call(member, arguments, interface: interface)
}
