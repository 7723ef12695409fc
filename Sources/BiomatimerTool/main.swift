import ArgumentParser
import TimerControl

#if canImport(Glibc)
import Glibc
#endif

// Exit codes are a contract for scripts: 0 done, 1 refused, 2 usage, 3 no bus or no daemon.
// ArgumentParser's own usage code (64) is mapped to 2.
do {
    var command = try Biomatimer.parseAsRoot()
    try command.run()
    exit(0)
} catch let failure as ClientFailure {
    writeStandardError("biomatimer: \(failure.description)\n")
    exit(failure.exitCode)
} catch {
    let code = Biomatimer.exitCode(for: error)
    if code == .success {
        Biomatimer.exit(withError: error)  // --help, --version
    }
    if code == .validationFailure {
        writeStandardError(Biomatimer.fullMessage(for: error) + "\n")
        exit(2)
    }
    Biomatimer.exit(withError: error)
}
