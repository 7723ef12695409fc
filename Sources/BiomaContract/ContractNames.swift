import CContract

/// The fixed names of the D-Bus contract (described in dbus/README.md), read from the C header
/// that the C front includes too.
public enum ContractNames {
    public static let busName = BIOMATIMER_BUS_NAME
    public static let objectPath = BIOMATIMER_OBJECT_PATH
    public static let interface = BIOMATIMER_TIMER_INTERFACE
    public static let tasksInterface = BIOMATIMER_TASKS_INTERFACE
    public static let focusInterface = BIOMATIMER_FOCUS_INTERFACE
    public static let syncInterface = BIOMATIMER_SYNC_INTERFACE
    public static let hooksInterface = BIOMATIMER_HOOKS_INTERFACE
    public static let commandInterface = BIOMATIMER_COMMAND_INTERFACE
    public static let errorPrefix = BIOMATIMER_ERROR_PREFIX
}

/// The command line's exit codes, a contract for scripts.
public enum ExitCode {
    public static let done = Int32(BIOMATIMER_EXIT_DONE)
    public static let refused = Int32(BIOMATIMER_EXIT_REFUSED)
    public static let usage = Int32(BIOMATIMER_EXIT_USAGE)
    /// No session bus, or no daemon.
    public static let unavailable = Int32(BIOMATIMER_EXIT_UNAVAILABLE)
    /// `Run` only: the caller asks the question in `err` and runs again with the answer.
    public static let confirm = Int32(BIOMATIMER_EXIT_CONFIRM)
    /// `Run` only: the caller opens the files in `out` and runs again with them.
    public static let files = Int32(BIOMATIMER_EXIT_FILES)
}
