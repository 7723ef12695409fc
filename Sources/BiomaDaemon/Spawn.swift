import Foundation

/// Starting a program the daemon does not wait for.
enum Spawn {
    /// Runs `arguments` detached: through an intermediate `/bin/sh` that puts it in the
    /// background and exits at once (reaped here, so no zombie is left), with the daemon's
    /// blocked signals unblocked and standard input from /dev/null. Returns a failure's
    /// description, or nil.
    static func detached(_ arguments: [String], environment: [String: String]) -> String? {
        // sh -c 'exec "$@" </dev/null &' sh ARGS…: the background child is the program itself.
        let argv = ["/bin/sh", "-c", "\"$@\" </dev/null &", "sh"] + arguments
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment { free(pointer) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, "/bin/sh", nil, &attributes, cArguments, cEnvironment)
        guard rc == 0 else { return String(cString: strerror(rc)) }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        return nil
    }
}
