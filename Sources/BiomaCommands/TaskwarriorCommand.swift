import ArgumentParser
import BiomaText
import CContract
import DBusCore
import BiomaContract

// `biomatimer taskwarrior OLD NEW`: what Taskwarrior's on-modify hook
// (Sources/BiomaInstall/taskwarrior/on-modify.biomatimer) calls with the task before and after a
// modification. Not listed in the help: people run `task N start`, not this.

struct TaskwarriorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "taskwarrior", abstract: "Follow a Taskwarrior modification (its on-modify hook calls this).",
        shouldDisplay: false)
    @Argument(help: "The task before the modification, as Taskwarrior's JSON line.") var old: String
    @Argument(help: "The task after it.") var new: String

    func run() throws {
        let change: TaskwarriorChange
        do {
            change = try TaskwarriorChange(old: old, new: new)
        } catch {
            throw ClientFailure(exitCode: ExitCode.usage, "cannot read Taskwarrior's task: \(error)")
        }
        switch change {
        case .none: return
        case .start(let project, let note):
            let running = try RunningTask.read()
            if running?.matches(project: project, note: note) == true { return }
            // The other task's interval ends here; this task's starts with its own note.
            if running != nil { _ = try callDaemon(BIOMATIMER_TIMER1_STOP) }
            if let project {
                _ = try callDaemon(BIOMATIMER_TIMER1_START_PROJECT, [.string(try projectID(named: project))])
            } else {
                // Start resumes the project that stopped with work: a task without one runs none.
                _ = try callDaemon(BIOMATIMER_TIMER1_START)
                if try !daemonClient().state(WorkStatus.self).activeProject.isEmpty { _ = try callDaemon(BIOMATIMER_TIMER1_STOP_PROJECT) }
            }
            if !note.isEmpty { _ = try callDaemon(BIOMATIMER_TIMER1_SET_NOTE, [.string(note)]) }
            say("biomatimer: tracking \(project.map { TextEscaping.singleLine($0) } ?? "work"): \(TextEscaping.singleLine(note))")
        case .stop(let project, let note):
            guard let running = try RunningTask.read(), running.matches(project: project, note: note) else { return }
            _ = try callDaemon(BIOMATIMER_TIMER1_STOP)
            say("biomatimer: stopped \(project.map { TextEscaping.singleLine($0) } ?? "work")")
        }
    }

    /// The project of that name, made (coloured from its name) when there is none.
    private func projectID(named name: String) throws -> String {
        let projects = ProjectListing.rows(try callDaemon(BIOMATIMER_TIMER1_LIST_PROJECTS).first)
        if let project = projects.first(where: { $0.name == name }) { return project.id }
        return try callDaemon(BIOMATIMER_TIMER1_ADD_PROJECT, [.string(name), .string(TaskwarriorChange.color(of: name))])
            .first?.string ?? name
    }
}

/// What runs now: the project's name (nil for work without one) and the running interval's note.
private struct RunningTask {
    var project: String?
    var note: String

    static func read() throws -> RunningTask? {
        let status = try daemonClient().state(WorkStatus.self)
        guard status.running else { return nil }
        let today = try callDaemon(BIOMATIMER_TIMER1_LIST_INTERVALS, [.string(status.day), .string(status.day)])
        let intervals = IntervalListing.rows(today.first)
        let open = intervals.last { $0.end == 0 }
        return RunningTask(project: status.activeProject.isEmpty ? nil : status.activeProjectName, note: open?.note ?? "")
    }

    func matches(project: String?, note: String) -> Bool { self.project == project && self.note == note }
}

/// What a Taskwarrior modification means for the timer: a task that became active (`start`
/// set, still pending) starts its project with its description as the note; an active task
/// that stopped, was done or deleted stops it (the caller checks it is the one running).
enum TaskwarriorChange: Equatable {
    case none
    case start(project: String?, note: String)
    case stop(project: String?, note: String)

    init(old: String, new: String) throws {
        let before = try Task(old)
        let after = try Task(new)
        if after.active && !(before.active && before.start == after.start) {
            self = .start(project: after.project, note: after.note)
        } else if before.active && !after.active {
            self = .stop(project: before.project, note: before.note)
        } else {
            self = .none
        }
    }

    /// The fields of a task the timer follows.
    struct Task {
        var project: String?
        var description: String
        var start: String?
        var status: String

        init(_ line: String) throws {
            let json = try StrictJSON.parse(line)
            guard case .object = json else { throw ValidationError("a task is a JSON object, not \(json.kind)") }
            func text(_ key: String) -> String? { json[key]?.string }
            project = text("project").flatMap { $0.isEmpty ? nil : $0 }
            description = text("description") ?? ""
            start = text("start")
            status = text("status") ?? "pending"
        }

        var active: Bool { start != nil && status == "pending" }
        /// The description as an interval's note: one line, at most 500 characters.
        var note: String {
            String(String(description.map { $0.isNewline ? " " : $0 }).prefix(500)).trimmingCharacters()
        }
    }

    /// A project's colour from a stable hash of its name (FNV-1a over its UTF-8), one of twelve
    /// that tell each other apart on a bar.
    static func color(of name: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in name.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return palette[Int(hash % UInt32(palette.count))]
    }

    static let palette = [
        "#E6194B", "#3CB44B", "#4363D8", "#F58231", "#911EB4", "#42D4F4", "#F032E6", "#9A6324", "#469990", "#800000",
        "#808000", "#000075",
    ]
}

extension String {
    fileprivate func trimmingCharacters() -> String {
        var text = Substring(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
