import CContract

/// The members of the contract's interfaces, read from the C header that the C front includes
/// too; a test requires them to be exactly the methods of dbus/org.biomatimer.Timer1.xml.
public enum Member {
    /// `org.biomatimer.Timer1`.
    public enum Timer1 {
        public static let start = BIOMATIMER_TIMER1_START
        public static let stop = BIOMATIMER_TIMER1_STOP
        public static let toggle = BIOMATIMER_TIMER1_TOGGLE
        public static let reset = BIOMATIMER_TIMER1_RESET
        public static let startProject = BIOMATIMER_TIMER1_START_PROJECT
        public static let stopProject = BIOMATIMER_TIMER1_STOP_PROJECT
        public static let toggleProject = BIOMATIMER_TIMER1_TOGGLE_PROJECT
        public static let cycleProject = BIOMATIMER_TIMER1_CYCLE_PROJECT
        public static let resetProject = BIOMATIMER_TIMER1_RESET_PROJECT
        public static let listProjects = BIOMATIMER_TIMER1_LIST_PROJECTS
        public static let addProject = BIOMATIMER_TIMER1_ADD_PROJECT
        public static let updateProject = BIOMATIMER_TIMER1_UPDATE_PROJECT
        public static let deleteProject = BIOMATIMER_TIMER1_DELETE_PROJECT
        public static let report = BIOMATIMER_TIMER1_REPORT
        public static let statusText = BIOMATIMER_TIMER1_STATUS_TEXT
        public static let reportText = BIOMATIMER_TIMER1_REPORT_TEXT
        public static let exportCSV = BIOMATIMER_TIMER1_EXPORT_CSV
        public static let importCSV = BIOMATIMER_TIMER1_IMPORT_CSV
        public static let resetHistory = BIOMATIMER_TIMER1_RESET_HISTORY
        public static let awayBegin = BIOMATIMER_TIMER1_AWAY_BEGIN
        public static let awayEnd = BIOMATIMER_TIMER1_AWAY_END
        public static let keepAway = BIOMATIMER_TIMER1_KEEP_AWAY
        public static let listIntervals = BIOMATIMER_TIMER1_LIST_INTERVALS
        public static let addInterval = BIOMATIMER_TIMER1_ADD_INTERVAL
        public static let updateInterval = BIOMATIMER_TIMER1_UPDATE_INTERVAL
        public static let deleteInterval = BIOMATIMER_TIMER1_DELETE_INTERVAL
        public static let splitInterval = BIOMATIMER_TIMER1_SPLIT_INTERVAL
        public static let undo = BIOMATIMER_TIMER1_UNDO
        public static let `import` = BIOMATIMER_TIMER1_IMPORT
        /// Every method, in the order the introspection data lists them.
        public static let all = [
            start, stop, toggle, reset, startProject, stopProject, toggleProject, cycleProject, resetProject,
            listProjects, addProject, updateProject, deleteProject, report, statusText, reportText, exportCSV,
            importCSV, resetHistory, awayBegin, awayEnd, keepAway, listIntervals, addInterval, updateInterval,
            deleteInterval, splitInterval, undo, `import`
        ]
    }
    /// `org.biomatimer.Tasks1`.
    public enum Tasks1 {
        public static let addTask = BIOMATIMER_TASKS1_ADD_TASK
        public static let updateTask = BIOMATIMER_TASKS1_UPDATE_TASK
        public static let completeTask = BIOMATIMER_TASKS1_COMPLETE_TASK
        public static let reopenTask = BIOMATIMER_TASKS1_REOPEN_TASK
        public static let deleteTask = BIOMATIMER_TASKS1_DELETE_TASK
        public static let snoozeTask = BIOMATIMER_TASKS1_SNOOZE_TASK
        public static let listTasks = BIOMATIMER_TASKS1_LIST_TASKS
        /// Every method, in the order the introspection data lists them.
        public static let all = [addTask, updateTask, completeTask, reopenTask, deleteTask, snoozeTask, listTasks]
    }
    /// `org.biomatimer.Focus1`.
    public enum Focus1 {
        public static let startPomodoro = BIOMATIMER_FOCUS1_START_POMODORO
        public static let startCountdown = BIOMATIMER_FOCUS1_START_COUNTDOWN
        public static let startIntervals = BIOMATIMER_FOCUS1_START_INTERVALS
        public static let startPreset = BIOMATIMER_FOCUS1_START_PRESET
        public static let pause = BIOMATIMER_FOCUS1_PAUSE
        public static let resume = BIOMATIMER_FOCUS1_RESUME
        public static let togglePause = BIOMATIMER_FOCUS1_TOGGLE_PAUSE
        public static let skip = BIOMATIMER_FOCUS1_SKIP
        public static let extend = BIOMATIMER_FOCUS1_EXTEND
        public static let confirm = BIOMATIMER_FOCUS1_CONFIRM
        public static let stopFocus = BIOMATIMER_FOCUS1_STOP_FOCUS
        public static let listPresets = BIOMATIMER_FOCUS1_LIST_PRESETS
        public static let addPreset = BIOMATIMER_FOCUS1_ADD_PRESET
        public static let updatePreset = BIOMATIMER_FOCUS1_UPDATE_PRESET
        public static let deletePreset = BIOMATIMER_FOCUS1_DELETE_PRESET
        public static let focusHistory = BIOMATIMER_FOCUS1_FOCUS_HISTORY
        /// Every method, in the order the introspection data lists them.
        public static let all = [
            startPomodoro, startCountdown, startIntervals, startPreset, pause, resume, togglePause, skip,
            extend, confirm, stopFocus, listPresets, addPreset, updatePreset, deletePreset, focusHistory
        ]
    }
}

/// The contract's error names, whole (`org.biomatimer.Timer1.Error.NoSuchProject`).
public enum ContractError {
    public static let noSuchProject = TimerNames.errorPrefix + BIOMATIMER_ERROR_NO_SUCH_PROJECT
    public static let noSuchTask = TimerNames.errorPrefix + BIOMATIMER_ERROR_NO_SUCH_TASK
    public static let noSuchPreset = TimerNames.errorPrefix + BIOMATIMER_ERROR_NO_SUCH_PRESET
    public static let noFocus = TimerNames.errorPrefix + BIOMATIMER_ERROR_NO_FOCUS
    public static let noSuchInterval = TimerNames.errorPrefix + BIOMATIMER_ERROR_NO_SUCH_INTERVAL
    public static let overlap = TimerNames.errorPrefix + BIOMATIMER_ERROR_OVERLAP
    public static let nothingToUndo = TimerNames.errorPrefix + BIOMATIMER_ERROR_NOTHING_TO_UNDO
    public static let invalidName = TimerNames.errorPrefix + BIOMATIMER_ERROR_INVALID_NAME
    public static let invalidColor = TimerNames.errorPrefix + BIOMATIMER_ERROR_INVALID_COLOR
    public static let nameTaken = TimerNames.errorPrefix + BIOMATIMER_ERROR_NAME_TAKEN
    public static let invalidArgument = TimerNames.errorPrefix + BIOMATIMER_ERROR_INVALID_ARGUMENT
    public static let invalidImport = TimerNames.errorPrefix + BIOMATIMER_ERROR_INVALID_IMPORT
    public static let storage = TimerNames.errorPrefix + BIOMATIMER_ERROR_STORAGE
    /// Every error name.
    public static let all = [
        noSuchProject, noSuchTask, noSuchPreset, noFocus, noSuchInterval, overlap, nothingToUndo, invalidName,
        invalidColor, nameTaken, invalidArgument, invalidImport, storage
    ]
}
