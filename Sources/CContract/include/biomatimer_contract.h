// The names, exit codes and messages of biomatimer's D-Bus contract and command line, in one
// place for both clients: the C front (`biomatimer`, which carries every command line to the
// daemon's Run) and the Swift client (`biomatimer-tool`, through BiomaContract, which imports
// this header). A test runs both on every failure and requires identical messages and exit codes.
// The contract itself is described in dbus/README.md.
#ifndef BIOMATIMER_CONTRACT_H
#define BIOMATIMER_CONTRACT_H

// The daemon's well-known name, its object and the interfaces on it.
#define BIOMATIMER_BUS_NAME "org.biomatimer.Timer1"
#define BIOMATIMER_OBJECT_PATH "/org/biomatimer/Timer1"
#define BIOMATIMER_TIMER_INTERFACE "org.biomatimer.Timer1"
#define BIOMATIMER_TASKS_INTERFACE "org.biomatimer.Tasks1"
#define BIOMATIMER_FOCUS_INTERFACE "org.biomatimer.Focus1"
#define BIOMATIMER_SYNC_INTERFACE "org.biomatimer.Sync1"
#define BIOMATIMER_HOOKS_INTERFACE "org.biomatimer.Hooks1"
// The front's interface: Run(as argv, a{sv} context, ah files) → (i exit, s out, s err).
#define BIOMATIMER_COMMAND_INTERFACE "org.biomatimer.Command1"
#define BIOMATIMER_COMMAND1_RUN "Run"
// Run's context keys: what the front says of its caller (dbus/README.md, "Running a command line").
#define BIOMATIMER_RUN_CWD "Cwd"
#define BIOMATIMER_RUN_STDIN_TTY "StdinTty"
#define BIOMATIMER_RUN_STDOUT_TTY "StdoutTty"
#define BIOMATIMER_RUN_STDERR_TTY "StderrTty"
#define BIOMATIMER_RUN_NO_COLOR "NoColor"
#define BIOMATIMER_RUN_COLUMNS "Columns"
#define BIOMATIMER_RUN_TERM "Term"
#define BIOMATIMER_RUN_TZ "TZ"
#define BIOMATIMER_RUN_ANSWER "Answer"
#define BIOMATIMER_RUN_OPEN_ERRORS "OpenErrors"
#define BIOMATIMER_RUN_COMPLETION_SHELL "CompletionShell"
#define BIOMATIMER_RUN_COMPLETION_SHELL_VERSION "CompletionShellVersion"
// Every error the daemon sends, on every interface, starts with this; its message is for a person.
#define BIOMATIMER_ERROR_PREFIX "org.biomatimer.Timer1.Error."

// Every method of the daemon's interfaces, by interface, as the clients call them and the
// daemon exports them (dbus/org.biomatimer.Timer1.xml; a test requires the same sets).
// org.biomatimer.Timer1
#define BIOMATIMER_TIMER1_START "Start"
#define BIOMATIMER_TIMER1_STOP "Stop"
#define BIOMATIMER_TIMER1_TOGGLE "Toggle"
#define BIOMATIMER_TIMER1_RESET "Reset"
#define BIOMATIMER_TIMER1_START_PROJECT "StartProject"
#define BIOMATIMER_TIMER1_STOP_PROJECT "StopProject"
#define BIOMATIMER_TIMER1_TOGGLE_PROJECT "ToggleProject"
#define BIOMATIMER_TIMER1_CYCLE_PROJECT "CycleProject"
#define BIOMATIMER_TIMER1_RESET_PROJECT "ResetProject"
#define BIOMATIMER_TIMER1_LIST_PROJECTS "ListProjects"
#define BIOMATIMER_TIMER1_ADD_PROJECT "AddProject"
#define BIOMATIMER_TIMER1_UPDATE_PROJECT "UpdateProject"
#define BIOMATIMER_TIMER1_DELETE_PROJECT "DeleteProject"
#define BIOMATIMER_TIMER1_REPORT "Report"
#define BIOMATIMER_TIMER1_PERIOD_DAYS "PeriodDays"
#define BIOMATIMER_TIMER1_REPORT_TEXT "ReportText"
#define BIOMATIMER_TIMER1_EXPORT_CSV "ExportCSV"
#define BIOMATIMER_TIMER1_IMPORT_CSV "ImportCSV"
#define BIOMATIMER_TIMER1_RESET_HISTORY "ResetHistory"
#define BIOMATIMER_TIMER1_AWAY_BEGIN "AwayBegin"
#define BIOMATIMER_TIMER1_AWAY_END "AwayEnd"
#define BIOMATIMER_TIMER1_KEEP_AWAY "KeepAway"
#define BIOMATIMER_TIMER1_KEEP_AWAY_FOR "KeepAwayFor"
#define BIOMATIMER_TIMER1_LIST_INTERVALS "ListIntervals"
#define BIOMATIMER_TIMER1_ADD_INTERVAL "AddInterval"
#define BIOMATIMER_TIMER1_UPDATE_INTERVAL "UpdateInterval"
#define BIOMATIMER_TIMER1_DELETE_INTERVAL "DeleteInterval"
#define BIOMATIMER_TIMER1_SPLIT_INTERVAL "SplitInterval"
#define BIOMATIMER_TIMER1_UNDO "Undo"
#define BIOMATIMER_TIMER1_IMPORT "Import"
#define BIOMATIMER_TIMER1_SET_NOTE "SetNote"
#define BIOMATIMER_TIMER1_EXPORT_ICS "ExportICS"
#define BIOMATIMER_TIMER1_EXPORT_CSV_ROUNDED "ExportCSVRounded"
#define BIOMATIMER_TIMER1_SET_TARGETS "SetTargets"
#define BIOMATIMER_TIMER1_LIST_TARGETS "ListTargets"
#define BIOMATIMER_TIMER1_LIST_CLIENTS "ListClients"
#define BIOMATIMER_TIMER1_ADD_CLIENT "AddClient"
#define BIOMATIMER_TIMER1_UPDATE_CLIENT "UpdateClient"
#define BIOMATIMER_TIMER1_DELETE_CLIENT "DeleteClient"
#define BIOMATIMER_TIMER1_TAG_RUNNING "TagRunning"
#define BIOMATIMER_TIMER1_CHECK_CONFIG "CheckConfig"
#define BIOMATIMER_TIMER1_LIST_BACKUPS "ListBackups"
#define BIOMATIMER_TIMER1_RESTORE_BACKUP "RestoreBackup"
// org.biomatimer.Tasks1
#define BIOMATIMER_TASKS1_ADD_TASK "AddTask"
#define BIOMATIMER_TASKS1_UPDATE_TASK "UpdateTask"
#define BIOMATIMER_TASKS1_COMPLETE_TASK "CompleteTask"
#define BIOMATIMER_TASKS1_REOPEN_TASK "ReopenTask"
#define BIOMATIMER_TASKS1_DELETE_TASK "DeleteTask"
#define BIOMATIMER_TASKS1_SNOOZE_TASK "SnoozeTask"
#define BIOMATIMER_TASKS1_LIST_TASKS "ListTasks"
// org.biomatimer.Focus1
#define BIOMATIMER_FOCUS1_START_POMODORO "StartPomodoro"
#define BIOMATIMER_FOCUS1_START_COUNTDOWN "StartCountdown"
#define BIOMATIMER_FOCUS1_START_INTERVALS "StartIntervals"
#define BIOMATIMER_FOCUS1_START_PRESET "StartPreset"
#define BIOMATIMER_FOCUS1_PAUSE "Pause"
#define BIOMATIMER_FOCUS1_RESUME "Resume"
#define BIOMATIMER_FOCUS1_TOGGLE_PAUSE "TogglePause"
#define BIOMATIMER_FOCUS1_SKIP "Skip"
#define BIOMATIMER_FOCUS1_EXTEND "Extend"
#define BIOMATIMER_FOCUS1_CONFIRM "Confirm"
#define BIOMATIMER_FOCUS1_STOP_FOCUS "StopFocus"
#define BIOMATIMER_FOCUS1_LIST_PRESETS "ListPresets"
#define BIOMATIMER_FOCUS1_ADD_PRESET "AddPreset"
#define BIOMATIMER_FOCUS1_UPDATE_PRESET "UpdatePreset"
#define BIOMATIMER_FOCUS1_DELETE_PRESET "DeletePreset"
#define BIOMATIMER_FOCUS1_FOCUS_HISTORY "FocusHistory"
#define BIOMATIMER_FOCUS1_PHASE_ENDED "PhaseEnded" /* a signal */
// org.biomatimer.Sync1
#define BIOMATIMER_SYNC1_ENABLE "Enable"
#define BIOMATIMER_SYNC1_DISABLE "Disable"
#define BIOMATIMER_SYNC1_MERGED "Merged" /* a signal */
// org.biomatimer.Hooks1
#define BIOMATIMER_HOOKS1_LIST_HOOKS "ListHooks"
#define BIOMATIMER_HOOKS1_RUN_HOOKS "RunHooks"
// Error names after BIOMATIMER_ERROR_PREFIX (dbus/README.md, "Errors").
#define BIOMATIMER_ERROR_NO_SUCH_PROJECT "NoSuchProject"
#define BIOMATIMER_ERROR_NO_SUCH_TASK "NoSuchTask"
#define BIOMATIMER_ERROR_NO_SUCH_PRESET "NoSuchPreset"
#define BIOMATIMER_ERROR_NO_FOCUS "NoFocus"
#define BIOMATIMER_ERROR_NO_SUCH_INTERVAL "NoSuchInterval"
#define BIOMATIMER_ERROR_OVERLAP "Overlap"
#define BIOMATIMER_ERROR_NOTHING_TO_UNDO "NothingToUndo"
#define BIOMATIMER_ERROR_INVALID_NAME "InvalidName"
#define BIOMATIMER_ERROR_INVALID_COLOR "InvalidColor"
#define BIOMATIMER_ERROR_NAME_TAKEN "NameTaken"
#define BIOMATIMER_ERROR_INVALID_ARGUMENT "InvalidArgument"
#define BIOMATIMER_ERROR_INVALID_IMPORT "InvalidImport"
#define BIOMATIMER_ERROR_STORAGE "Storage"
#define BIOMATIMER_ERROR_SYNC_FOLDER "SyncFolder"
#define BIOMATIMER_ERROR_SYNC_IDENTITY "SyncIdentity"

// Exit codes, a contract for scripts.
#define BIOMATIMER_EXIT_DONE 0
#define BIOMATIMER_EXIT_REFUSED 1
#define BIOMATIMER_EXIT_USAGE 2
#define BIOMATIMER_EXIT_UNAVAILABLE 3
// Run's answers that never reach a user: ask the question in err on the terminal and run again
// with the answer (context "Answer"); open the files listed in out (one a line: "r PATH", "i"
// for standard input, "d DIRECTORY") and run again with them (context "OpenErrors").
#define BIOMATIMER_EXIT_CONFIRM 64
#define BIOMATIMER_EXIT_FILES 65

// How long a command waits for the daemon's answer: BIOMATIMER_TIMEOUT seconds (a decimal
// number, more than 0), else BIOMATIMER_DEFAULT_TIMEOUT_MS.
#define BIOMATIMER_TIMEOUT_VARIABLE "BIOMATIMER_TIMEOUT"
#define BIOMATIMER_DEFAULT_TIMEOUT_MS 25000
// How long a shell completing a word (`biomatimer ---completion …`: project names, task ids)
// waits for the daemon; with no answer by then it completes nothing, and prints nothing.
#define BIOMATIMER_COMPLETION_TIMEOUT_MS 1500

// Every message is printed as "biomatimer: MESSAGE\n" on standard error.
#define BIOMATIMER_PROGRAM_PREFIX "biomatimer: "
// Exit 3: the bus cannot be reached. "…: <why> (address <address>)<advice>" or, without an
// address to try, the no-address text and then the advice.
#define BIOMATIMER_MSG_NO_BUS "cannot reach the D-Bus session bus: "
#define BIOMATIMER_MSG_NO_BUS_ADDRESS \
    "no session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus"
#define BIOMATIMER_MSG_NO_BUS_ADVICE ". Is a desktop session running? (Outside one, `dbus-run-session -- $SHELL` starts a shell with a bus of its own.)"
// Exit 3: the bus went away during the call: "…: <why>".
#define BIOMATIMER_MSG_LOST_BUS "lost the D-Bus session bus: "
#define BIOMATIMER_MSG_BUS_CLOSED "the bus closed the connection"
// Exit 3: nobody owns the name and the bus cannot start the daemon.
// (One string literal per macro: Swift imports no concatenations.)
#define BIOMATIMER_MSG_NOT_RUNNING "the biomatimer daemon is not running. Start it with `biomatimer daemon`, or run `biomatimer install` once so the bus starts it on demand."
// Exit 3: the bus tried to start the daemon and failed: "…<the bus's message>".
#define BIOMATIMER_MSG_SPAWN_FAILED "the bus could not start the biomatimer daemon: "
// Exit 3: no answer within the timeout.
#define BIOMATIMER_MSG_NO_ANSWER \
    "the biomatimer daemon did not answer: it stopped, or took longer than the call allows."
// Exit 1.
#define BIOMATIMER_MSG_OUT_OF_MEMORY "out of memory"

#endif
