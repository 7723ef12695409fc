import BiomaContract

extension CommandContext {
    /// Where a command reads "now" (relative times it parses, `today`/`yesterday` it prints,
    /// a running interval's length): the wall clock, or the clock of whoever runs the command
    /// (a test, a daemon with its own clock).
    @TaskLocal public static var clock: any TimeSource = SystemClock()
}

/// Now, by the running command's clock.
func commandNow() -> Int64 { CommandContext.clock.now() }
