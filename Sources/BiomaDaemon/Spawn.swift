import Foundation

/// Starting the daemon's children: detached programs (the phase-end command) and hooks.
enum Spawn {
    /// Starts `arguments` (the program first, by path) with `environment` (`NAME=value`),
    /// `actions` for its descriptors, and no signal blocked (the daemon blocks its termination
    /// signals for its signalfd); `more` sets further attributes and returns their flags.
    /// The child's pid, or `posix_spawn`'s error.
    static func start(
        _ arguments: [String], environment: [String], actions: UnsafePointer<posix_spawn_file_actions_t>? = nil,
        more: (inout posix_spawnattr_t) -> Int32 = { _ in 0 }
    ) -> Result<pid_t, SpawnError> {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | more(&attributes)))
        let cArguments = arguments.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment { free(pointer) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, arguments[0], actions, &attributes, cArguments, cEnvironment)
        return rc == 0 ? .success(child) : .failure(SpawnError(code: rc))
    }

    /// `posix_spawn`'s error number.
    struct SpawnError: Error {
        let code: Int32
        var description: String { String(cString: strerror(code)) }
    }

    /// Runs `arguments` detached: through an intermediate `/bin/sh` that puts it in the
    /// background and exits at once (reaped here, so no zombie is left), with standard input
    /// from /dev/null. Returns a failure's description, or nil.
    static func detached(_ arguments: [String], environment: [String: String]) -> String? {
        // sh -c 'exec "$@" </dev/null &' sh ARGS…: the background child is the program itself.
        let argv = ["/bin/sh", "-c", "\"$@\" </dev/null &", "sh"] + arguments
        switch start(argv, environment: environment.map { "\($0.key)=\($0.value)" }) {
        case .failure(let error):
            return error.description
        case .success(let child):
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            return nil
        }
    }
}
