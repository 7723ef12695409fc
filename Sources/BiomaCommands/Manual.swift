import ArgumentParser
import BiomaText
import BiomaWidgets
import CContract

#if canImport(Glibc)
import Glibc
#endif

/// The manual page, `biomatimer(1)`, in roff with the man(7) macros. Its COMMANDS are made from
/// the command tree as ArgumentParser describes it (names, arguments, abstracts, discussions)
/// and written as prose, a paragraph per family of commands and a synopsis and a sentence or two
/// per command, so a command added or changed is in the page as it is; its TEMPLATE FIELDS are
/// `TemplateField`'s and its exit codes the contract header's. The settings file's keys, the
/// files and the examples are written here (a test holds the keys to README.md's).
public enum Manual {
    /// The page of `version`, dated `date` (YYYY-MM-DD), with its text lines filled to 80
    /// columns.
    public static func page(version: String, date: String) -> String {
        let root = ManualCommand(tree: Biomatimer._dumpHelp())
        var out = ".TH BIOMATIMER 1 \(date) \"biomatimer \(text(version))\" \"User Commands\"\n"
        // No hyphenation and no justification: options and names are read as typed.
        out += ".nh\n.ad l\n"
        out += ".SH NAME\nbiomatimer \\- \(text(lowercasedFirst(root.abstract.trimmingSuffix("."))))\n"
        out += #"""
            .SH SYNOPSIS
            \fBbiomatimer\fR \fIcommand\fR [\fIargument\fR ...]
            .br
            \fBbiomatimer\fR \fIcommand\fR \fB\-\-help\fR
            .br
            \fBbiomatimer\fR [\fB\-\-help\fR|\fB\-\-version\fR]
            .SH DESCRIPTION

            """#
        out += prose(root.discussion.paragraphs.filter { !$0.hasPrefix("Exit codes:") }.joined(separator: "\n\n"))
        out += #"""
            .PP
            \fBbiomatimer\fR is a small program that hands its command line, with its working
            directory, its terminals, \fBTZ\fR, \fBNO_COLOR\fR and \fBCOLUMNS\fR, to the daemon,
            \fBbiomatimerd\fR, in one D\-Bus call, prints the answer and exits with its code. It
            opens the files a command reads or writes as the caller, and asks a command's questions
            on the caller's terminal. \fBwatch\fR, \fBtray\fR, \fBinstall\fR and \fBuninstall\fR run
            in the caller's process, in \fBbiomatimer\-tool\fR, and so does every command when no
            daemon answers, to say what is wrong.
            .PP
            Every command takes \fB\-h\fR or \fB\-\-help\fR, which shows its options;
            \fBbiomatimer help\fR \fIcommand\fR does the same.
            .SH OPTIONS
            .TP
            .BR \-h ", " \-\-help
            Show help information: the commands, or after a command its arguments and options.
            .TP
            .B \-\-version

            """#
        out += text(root.versionAbstract) + "\n"
        out += ".SH COMMANDS\n"
        out += commands(root)
        out += templateFields()
        out += exitStatus()
        out += environment()
        out += files()
        out += examples()
        out += #"""
            .SH SEE ALSO
            .BR biomatimerd (1),
            .BR busctl (1),
            .BR dbus\-send (1),
            .BR timew (1),
            .BR task (1),
            .BR syncthing (1),
            .BR waybar (5),
            .BR i3blocks (1),
            .BR polybar (1),
            .BR tmux (1)

            """#
        return filled(out)
    }

    /// The page's date: `SOURCE_DATE_EPOCH`'s day when it is set (a reproducible package),
    /// else the day this program was built (its file's time), in UTC.
    public static func date(environment: [String: String]) -> String {
        var seconds = time_t(0)
        if let epoch = environment["SOURCE_DATE_EPOCH"].flatMap({ time_t($0) }) {
            seconds = epoch
        } else {
            var info = stat()
            seconds = stat("/proc/self/exe", &info) == 0 ? info.st_mtim.tv_sec : time(nil)
        }
        var parts = tm()
        var buffer = [CChar](repeating: 0, count: 16)
        guard gmtime_r(&seconds, &parts) != nil, strftime(&buffer, buffer.count, "%Y-%m-%d", &parts) > 0 else { return "1970-01-01" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: COMMANDS

    /// Each family a subsection: a group (`project`, `focus`…) with its abstract and discussion
    /// and an entry per subcommand; top-level commands without subcommands in runs as the tree
    /// lists them, each run with its own paragraph.
    private static func commands(_ root: ManualCommand) -> String {
        var out = ""
        var run: [ManualCommand] = []
        func endRun() {
            guard let first = run.first else { return }
            let family = leafFamilies[first.name] ?? (heading: run.map(\.name).joined(separator: ", "), paragraph: "")
            out += ".SS \(quoted(family.heading))\n"
            out += prose(family.paragraph)
            for (index, command) in run.enumerated() { out += entry(command, first: index == 0 && family.paragraph.isEmpty) }
            run = []
        }
        for command in root.subcommands where command.shouldDisplay && command.name != "help" {
            if command.subcommands.isEmpty {
                run.append(command)
                continue
            }
            endRun()
            out += ".SS \(quoted(command.path.dropFirst().joined(separator: " ")))\n"
            out += prose(command.familyParagraph)
            out += entries(command)
        }
        endRun()
        return out
    }

    /// The paragraph of the runs of top-level commands, by the run's first command; a run that
    /// starts with another command is headed by its names.
    private static let leafFamilies: [String: (heading: String, paragraph: String)] = [
        "start": (
            "work",
            """
            Work is one stopwatch: its session spans pauses and may run past midnight, and the \
            daily total is all work recorded in the current day, so `reset` never changes it. At \
            most one project runs inside it; starting one starts work too. These are the \
            commands a key or a bar click runs, and the status bars' line.
            """
        ),
        "log": (
            "recorded time",
            """
            Recorded time is a list of intervals, each with an id that `log` shows and `edit`, \
            `split` and `delete` take. Times are read in the caller's time zone (`TZ`): 09:00 is \
            today (or the day --date names), yesterday 17:30, 2026-11-20T09:00. Time already \
            recorded in the way is refused, naming it; `undo` takes back the last edit.
            """
        ),
        "report": (
            "reports, export and import",
            """
            Reports total a day, week, month or year per project and per day, as text, JSON, a \
            chart, or a timesheet to hand over; `export` and `import` move recorded time as CSV \
            (and `export` as iCalendar), and `import` reads Timewarrior's and Watson's too. A \
            FILE given as - is standard input or output.
            """
        ),
        "daemon": (
            "the daemon and its installation",
            """
            The daemon is started by the session bus on the first call once `biomatimer install` \
            has run (or by the Debian package); `biomatimer daemon` runs it by hand.
            """
        ),
    ]

    /// The entries of a group's subcommands; a group inside it (`focus preset`) is an entry
    /// with its whole paragraph, followed by its own.
    private static func entries(_ group: ManualCommand) -> String {
        var out = ""
        for command in group.subcommands where command.shouldDisplay {
            if command.subcommands.isEmpty {
                out += entry(command)
            } else {
                out += entry(command, words: command.familyParagraph) + entries(command)
            }
        }
        return out
    }

    /// One command: its synopsis, then, indented, its abstract and the first sentence of its
    /// discussion (or `words`). `first` right after a heading, which is a paragraph's start.
    private static func entry(_ command: ManualCommand, words: String? = nil, first: Bool = false) -> String {
        var about = command.abstract
        if let sentence = command.discussion.firstSentence { about += " " + sentence }
        return (first ? "" : ".PP\n") + synopsis(command) + "\n.RS\n" + prose(words ?? about) + ".RE\n"
    }

    /// The command's names in bold and its arguments as its usage has them: optional ones in
    /// brackets, repeatable ones with `...`, values in italics (or their choices in bold). An
    /// argument is never broken across output lines (its spaces are `\ `).
    static func synopsis(_ command: ManualCommand) -> String {
        var words = [bold(command.path.joined(separator: " "))]
        let arguments = command.arguments
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            var word: String
            switch argument.kind {
            case .positional:
                word = italic(argument.valueName.uppercased()) + (argument.isRepeating ? " ..." : "")
            case .flag:
                // --x and --no-x, side by side: one word, --[no-]x.
                if index < arguments.count, arguments[index].kind == .flag, let long = argument.long,
                    arguments[index].long == "no-" + long
                {
                    index += 1
                    word = bold("--") + "[" + bold("no-") + "]" + bold(long)
                } else {
                    word = argument.names.map(bold).joined(separator: "|")
                }
            case .option:
                let value =
                    argument.allValues.isEmpty || argument.allValues.count > 8
                    ? italic(argument.valueName.uppercased()) : argument.allValues.map(bold).joined(separator: "|")
                word = argument.names.map(bold).joined(separator: "|") + " " + value + (argument.isRepeating ? " ..." : "")
            }
            word = word.replacing(" ", with: "\\ ")
            words.append(argument.isOptional ? "[" + word + "]" : word)
        }
        return guardLine(words.joined(separator: " "))
    }

    // MARK: TEMPLATE FIELDS, EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES

    private static func templateFields() -> String {
        var out = #"""
            .SH TEMPLATE FIELDS
            \fBwatch \-\-format\fR and \fBstatus \-\-format\fR take a bar's name
            (
            """#
        out += WidgetFormats.names.map(bold).joined(separator: ", ")
        out += #"""
            ) or a template: any text with fields in braces, such as
            \fB\(aq{session} ({daily}) {project}\(aq\fR.
            \fB{{\fR and \fB}}\fR are literal braces; an unknown field, a \fB{\fR never closed or a
            lone \fB}\fR is a usage error naming the fields. The line is plain text on one line.
            A watch with a template wakes only for the times it shows.

            """#
        for field in TemplateField.allCases {
            out += ".TP\n" + bold("{\(field.rawValue)}") + "\n" + prose(field.summary)
        }
        return out
    }

    private static func exitStatus() -> String {
        let codes: [(Int32, String)] = [
            (BIOMATIMER_EXIT_DONE, "Done."),
            (
                BIOMATIMER_EXIT_REFUSED,
                "The daemon refused the command, or it failed (`config check` found a problem); the reason is on standard error."
            ),
            (BIOMATIMER_EXIT_USAGE, "A usage error: the message and the command's usage are on standard error."),
            (
                BIOMATIMER_EXIT_UNAVAILABLE,
                "No session bus, no daemon (and the bus cannot start one), or no answer in time: what to do about it is on standard error."
            ),
        ]
        var out = ".SH EXIT STATUS\n"
        for (code, meaning) in codes { out += ".TP\n.B \(code)\n" + prose(meaning) }
        return out
    }

    private static func environment() -> String {
        """
        .SH ENVIRONMENT
        .TP
        .B DBUS_SESSION_BUS_ADDRESS
        The session bus (else \\fI$XDG_RUNTIME_DIR/bus\\fR).
        .TP
        .B \(BIOMATIMER_TIMEOUT_VARIABLE)
        Seconds a command waits for the daemon's answer (default \(BIOMATIMER_DEFAULT_TIMEOUT_MS / 1000)).
        .TP
        .B TZ
        The zone the times a command reads and prints are in.
        .TP
        .B NO_COLOR
        No colours in reports.
        .TP
        .B COLUMNS
        The width of help and usage text (else the terminal's).
        .TP
        .BR XDG_CONFIG_HOME ", " XDG_DATA_HOME
        Where the settings and hooks, and the data, are (default \\fI~/.config\\fR and \\fI~/.local/share\\fR).

        """
    }

    /// The settings file's keys, each with the form of its value and a line on what it does.
    static let settings: [(key: String, value: String, meaning: String)] = [
        ("day_start", "HH:MM", "When a day begins, local time (default 00:00): with 04:00 a day runs from 04:00 to 04:00."),
        ("week_start", "monday|sunday", "The first day of a week (default monday)."),
        ("data_dir", "DIR", "The data folder instead of $XDG_DATA_HOME/biomatimer (~/ is your home)."),
        ("notifications", "on|off", "Desktop notifications: reminders, phase ends, targets, budgets (default on)."),
        ("away", "stop|pause|keep", "Away time: stop work at its start (default), pause it and resume on return, or keep it as work."),
        ("away_after", "DURATION", "Locks and idle spells shorter than this count as work (default 10m)."),
        ("input_timeout", "DURATION", "An `import -` from a pipe or terminal that sends nothing this long ends (default 30s)."),
        ("hook_timeout", "DURATION", "A hook still running this long gets SIGTERM, and SIGKILL 2 s later (default 10s)."),
        (
            "short_interval", "DURATION",
            "An interval left by switching away within this long is not recorded; its seconds go to the interval that stays (default 5s, 0 to 10m)."
        ),
        ("phase_end_command", "COMMAND", "Run by /bin/sh at each focus phase end, with the phase in BIOMATIMER_* variables."),
        ("export_ics", "FILE", "An iCalendar file the daemon keeps fresh: this week and the 8 before it, as `export --format ics` writes."),
        ("target", "LENGTH", "A work target Monday to Friday (8h, 7h30m, 7:30; 0 is none); `target set` beats it."),
        (
            "target_mon", "LENGTH",
            "target_mon, target_tue, target_wed, target_thu, target_fri, target_sat and target_sun beat `target` for their weekday (target_sat = 4h adds Saturdays)."
        ),
        ("balance_since", "YYYY-MM-DD", "The balance counts every target from this day (default: the day each was set)."),
        ("sync_dir", "DIR", "Sync is turned on for this folder at start, as `sync enable DIR` does."),
    ]

    private static func files() -> String {
        var out = #"""
            .SH FILES
            .TP
            .I $XDG_CONFIG_HOME/biomatimer/config
            The daemon's settings (default \fI~/.config/biomatimer/config\fR), read when it starts:
            one \fIkey\fR = \fIvalue\fR a line; \fB#\fR begins a comment. A line the daemon cannot
            use leaves its setting at its default and every command names it on standard error until
            the file is fixed and the daemon started again; \fBbiomatimer config check\fR reads the
            file again. DURATION is 10m, 1h30m, 90s or 1:30:00. The keys:
            .RS

            """#
        for setting in settings {
            out += ".TP\n" + bold(setting.key) + " = " + italic(setting.value) + "\n" + prose(setting.meaning)
        }
        out += #"""
            .RE
            .TP
            .I $XDG_CONFIG_HOME/biomatimer/hooks/
            Executables run on events (default \fI~/.config/biomatimer/hooks/\fR): every file whose
            name starts with an event's (\fBon\-start\fR, \fBon\-focus\-start.dnd\fR...) runs, in name
            order, with the event as one JSON object on its standard input. Only your own files that
            no one else can write run. \fBbiomatimer hooks\fR lists them and their last runs.
            .TP
            .I $XDG_DATA_HOME/biomatimer/
            The data (default \fI~/.local/share/biomatimer/\fR, or \fBdata_dir\fR):
            \fIbiomatimer.sqlite\fR, the database (SQLite), with its write\-ahead log;
            \fIdaemon.lock\fR, held by the running daemon (one a folder); and \fIbackups/\fR,
            copies of the database made once a day and before \fBproject delete\fR and
            \fBreset\-history\fR, the newest seven of each kind kept.

            """#
        return out
    }

    private static func examples() -> String {
        let lines: [(String, String)] = [
            ("biomatimer toggle", "Start or stop work; bind it to a key."),
            ("biomatimer project add \"Client A\" --color '#FF8800'", "Add a project with its colour."),
            ("biomatimer project start \"client a\"", "Run it (names ignore case); work starts too."),
            ("biomatimer status", "Print 0:05:30 (2:45:15), or Client A 0:02:15 (1:30:45) with a project."),
            ("biomatimer watch --format waybar", "One line per change for waybar's custom module."),
            ("biomatimer status --format '{session} {project}'", "Once, as a template."),
            ("biomatimer report --week", "Per project this week: colour, hours, percent, bar."),
            ("biomatimer report --month --client ACME --pdf march.pdf", "A timesheet to hand over."),
            ("biomatimer export -o week.csv --from 2026-11-16 --to 2026-11-22", "A week as CSV."),
            ("timew export | biomatimer import --format timewarrior -", "Timewarrior's history, all or nothing."),
            ("biomatimer add 09:00-12:30 --date 2026-11-20 --project \"Client A\"", "Work you did not time."),
            ("biomatimer task add \"Call the bank\" --due 15:00", "A desktop notification at 15:00."),
            ("biomatimer focus pomodoro --project \"Client A\"", "25 minutes of work on the project, then a break."),
            ("biomatimer sync enable ~/Sync/biomatimer", "One history across your machines."),
        ]
        var out = ".SH EXAMPLES\n"
        for (index, (line, meaning)) in lines.enumerated() {
            out += (index == 0 ? "" : ".PP\n") + prose(meaning) + ".RS\n.nf\n" + guardLine(bold(line)) + "\n.fi\n.RE\n"
        }
        return out
    }
}
