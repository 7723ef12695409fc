// The names, exit codes and messages of biomatimer's D-Bus contract and command line, in one
// place for both clients: the C front (`biomatimer`, which carries every command line to the
// daemon's Run) and the Swift client (`biomatimer-tool`, through TimerControl, which imports
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
// The front's interface: Run(as argv, a{sv} context, ah files) → (i exit, s out, s err).
#define BIOMATIMER_COMMAND_INTERFACE "org.biomatimer.Command1"
// Every error the daemon sends, on every interface, starts with this; its message is for a person.
#define BIOMATIMER_ERROR_PREFIX "org.biomatimer.Timer1.Error."

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

// Every message is printed as "biomatimer: MESSAGE\n" on standard error.
#define BIOMATIMER_PROGRAM_PREFIX "biomatimer: "
// Exit 3: the bus cannot be reached. "…: <why> (address <address>)<advice>" or, without an
// address to try, the no-address text and then the advice.
#define BIOMATIMER_MSG_NO_BUS "cannot reach the D-Bus session bus: "
#define BIOMATIMER_MSG_NO_BUS_ADDRESS \
    "no session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus"
#define BIOMATIMER_MSG_NO_BUS_ADVICE ". Is a desktop session running? (`make run` starts a private bus.)"
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
