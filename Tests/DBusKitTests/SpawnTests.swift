import BiomaSystem
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `Spawn` (BiomaSystem), the one way the programs start a child: whatever the parent blocks
/// or ignores, the child starts with no signal blocked and every signal at its default; it
/// keeps no descriptor but its standard streams; its environment is the caller's choice;
/// pipes to it are handed back.
@Suite(.serialized)
struct SpawnTests {
    /// The parent ignores SIGPIPE and SIGQUIT and blocks SIGTERM and SIGUSR2 on the spawning
    /// thread (as the daemon blocks its termination signals for its signalfd), and holds a
    /// descriptor without close-on-exec: the child, reading its own `/proc/PID/status` and
    /// looking for that descriptor, sees none of it.
    @Test func theChildStartsCleanWhateverTheParentHolds() throws {
        let oldPipe = signal(SIGPIPE, SIG_IGN)
        let oldQuit = signal(SIGQUIT, SIG_IGN)
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        sigaddset(&blocked, SIGUSR2)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        let leaked = open("/dev/null", O_RDONLY)  // no O_CLOEXEC
        defer {
            close(leaked)
            pthread_sigmask(SIG_SETMASK, &previous, nil)
            signal(SIGPIPE, oldPipe)
            signal(SIGQUIT, oldQuit)
        }
        // The shell's own state only as it execs grep: while it waits for a child, dash blocks
        // every signal.
        let script = "[ -e /proc/$$/fd/\(leaked) ] && echo open || echo closed; exec grep -E '^(SigBlk|SigIgn)' /proc/self/status"
        let (status, output) = try Spawn.run(["/bin/sh", "-c", script], environment: .inherited, searchPath: false)
        #expect(Spawn.succeeded(status))
        #expect(String(decoding: output, as: UTF8.self) == "closed\nSigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n")
    }

    /// The environment is exactly what the caller gives; standard input, output and error are
    /// pipes handed back; a program looked up on PATH is found; one that does not exist is
    /// the error `posix_spawn` gives.
    @Test func environmentAndPipesAreTheCallers() throws {
        var child = try Spawn.start(
            ["sh", "-c", "echo \"[$ONLY][$HOME]\"; cat; echo to-stderr >&2"], environment: .exactly(["ONLY=one", "PATH=/usr/bin:/bin"]),
            options: Spawn.Options(input: .pipe, output: .pipe, error: .pipe, searchPath: true))
        #expect(writeAll("from the parent\n", to: child.input!.fd) == nil)
        child.input = nil  // its one owner gone, it is closed: the child's cat sees its end
        let output = try readAll(from: child.output!.fd)
        let error = try readAll(from: child.error!.fd)
        #expect(Spawn.succeeded(child.wait()))
        #expect(String(decoding: output, as: UTF8.self) == "[one][]\nfrom the parent\n")
        #expect(String(decoding: error, as: UTF8.self) == "to-stderr\n")
        #expect(throws: SystemError.self) { try Spawn.start(["/nonexistent/program"], environment: .inherited) }
    }
}
