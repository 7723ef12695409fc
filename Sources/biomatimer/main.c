// `biomatimer`: the front door, with no command grammar. The daemon parses and runs the command
// line (org.biomatimer.Command1.Run, with the ArgumentParser tree that gives help, usage errors
// and completions); this carries argv with the caller's context (cwd, terminals, NO_COLOR,
// COLUMNS, TERM, TZ) in one libdbus call, prints the answer and exits with its code. It opens
// the files a command needs, as the caller, and asks confirmations on the caller's terminal.
// `daemon` runs `biomatimerd`; the commands that run in the caller's process, and any command
// with no bus or no daemon (or argv not UTF-8), go to `biomatimer-tool` (the offline messages).
// Both live beside this binary or in ../libexec/biomatimer/; names, exit codes and messages
// come from biomatimer_contract.h.
#include "biomatimer_contract.h"
#include <dbus/dbus.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILES 8
static int fail(int code, const char *first, const char *second) {
    fprintf(stderr, BIOMATIMER_PROGRAM_PREFIX "%s%s\n", first, second ? second : "");
    return code;
}

/// The session bus address, as BusAddress.session resolves it.
static int session_address(char *buffer, size_t size) {
    const char *address = getenv("DBUS_SESSION_BUS_ADDRESS");
    if (address && *address) return snprintf(buffer, size, "%s", address) < (int)size;
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    struct stat info;
    if (!runtime || !*runtime || snprintf(buffer, size, "%s/bus", runtime) >= (int)size) return 0;
    if (stat(buffer, &info) != 0 || !S_ISSOCK(info.st_mode)) return 0;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", buffer);
    return snprintf(buffer, size, "unix:path=%s", path) < (int)size;
}

/// BIOMATIMER_TIMEOUT seconds when it is a number above 0, else the default (as DaemonClient).
/// A call that hands the daemon files to read waits as long as they take to arrive (a pipe, a
/// terminal being typed at): the daemon bounds that wait itself, by the input's silence.
static int call_timeout_ms(int reading) {
    const char *text = getenv(BIOMATIMER_TIMEOUT_VARIABLE);
    char *end = NULL;
    errno = 0;
    double seconds = text && *text ? strtod(text, &end) : 0;
    if (!text || !*text || errno != 0 || end == text || *end != '\0' || !(seconds > 0))
        return reading ? DBUS_TIMEOUT_INFINITE : BIOMATIMER_DEFAULT_TIMEOUT_MS;
    double ms = seconds * 1000;
    return ms > 2147483000.0 ? 2147483000 : ms < 1 ? 1 : (int)ms;
}

/// Hands the command to `program` (biomatimer-tool or biomatimerd), found beside this
/// executable or in ../libexec/biomatimer/, with argv as it is.
/// Returns only when neither place holds it (or exec failed), with the two paths tried.
static void try_sibling(const char *program, char **argv, char *beside, size_t bsize, char *libexec, size_t lsize) {
    char self[PATH_MAX] = ".";
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0 && (self[n] = '\0', strrchr(self, '/'))) *strrchr(self, '/') = '\0';
    snprintf(beside, bsize, "%s/%s", self, program);
    snprintf(libexec, lsize, "%s/../libexec/biomatimer/%s", self, program);
    if (access(beside, X_OK) == 0) execv(beside, argv);
    if (access(libexec, X_OK) == 0) execv(libexec, argv);
}

static int exec_sibling(const char *program, char **argv) {
    char beside[PATH_MAX + 32], libexec[PATH_MAX + 64];
    try_sibling(program, argv, beside, sizeof beside, libexec, sizeof libexec);
    fprintf(stderr, BIOMATIMER_PROGRAM_PREFIX "cannot find %s (looked in %s and %s); reinstall biomatimer.\n", program,
            beside, libexec);
    return BIOMATIMER_EXIT_REFUSED;
}

/// One `{sv}` entry of the context; `type` is a basic D-Bus type, or 'a' for an array of int32.
static int entry(DBusMessageIter *dict, const char *key, int type, const void *value, int count) {
    DBusMessageIter e, v, a;
    const char *signature = type == 'a' ? "ai" : type == 's' ? "s" : type == 'b' ? "b" : "u";
    if (!dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL, &e) ||
        !dbus_message_iter_append_basic(&e, DBUS_TYPE_STRING, &key) ||
        !dbus_message_iter_open_container(&e, DBUS_TYPE_VARIANT, signature, &v))
        return 0;
    if (type != 'a' && !dbus_message_iter_append_basic(&v, type, value)) return 0;
    if (type == 'a' && (!dbus_message_iter_open_container(&v, DBUS_TYPE_ARRAY, "i", &a) ||
                        !dbus_message_iter_append_fixed_array(&a, DBUS_TYPE_INT32, &value, count) ||
                        !dbus_message_iter_close_container(&v, &a)))
        return 0;
    return dbus_message_iter_close_container(&e, &v) && dbus_message_iter_close_container(dict, &e);
}

static int text_entry(DBusMessageIter *dict, const char *key, const char *text) {  // skipped when not UTF-8
    return !text || !dbus_validate_utf8(text, NULL) || entry(dict, key, 's', &text, 0);
}

static int flag_entry(DBusMessageIter *dict, const char *key, dbus_bool_t flag) {
    return flag = flag ? TRUE : FALSE, entry(dict, key, 'b', &flag, 0);
}

/// Run(argv, context, files): the caller's context, the answer to a question and the files
/// opened (`errors` one per request, -1 requests when none was asked for).
static DBusMessage *run_call(int argc, char **argv, const char *answer, int requests, const dbus_int32_t *errors,
                             const int *fds, int nfds) {
    DBusMessage *m = dbus_message_new_method_call(BIOMATIMER_BUS_NAME, BIOMATIMER_OBJECT_PATH,
                                                  BIOMATIMER_COMMAND_INTERFACE, BIOMATIMER_COMMAND1_RUN);
    DBusMessageIter args, list, dict;
    if (!m) return NULL;
    dbus_message_iter_init_append(m, &args);
    if (!dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "s", &list)) return NULL;
    for (int i = 1; i < argc; i++)
        if (!dbus_message_iter_append_basic(&list, DBUS_TYPE_STRING, &argv[i])) return NULL;
    if (!dbus_message_iter_close_container(&args, &list) ||
        !dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &dict))
        return NULL;
    char cwd[PATH_MAX];
    const char *no_color = getenv("NO_COLOR"), *columns = getenv("COLUMNS");
    struct winsize size;
    char *end = NULL;
    long width = columns && *columns ? strtol(columns, &end, 10) : 0;
    if (!(end && *end == '\0' && width > 0)) width = ioctl(1, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
    dbus_uint32_t width32 = (dbus_uint32_t)width;
    if (!text_entry(&dict, BIOMATIMER_RUN_CWD, getcwd(cwd, sizeof cwd)) || !flag_entry(&dict, BIOMATIMER_RUN_STDIN_TTY, isatty(0)) ||
        !flag_entry(&dict, BIOMATIMER_RUN_STDOUT_TTY, isatty(1)) || !flag_entry(&dict, BIOMATIMER_RUN_STDERR_TTY, isatty(2)) ||
        !flag_entry(&dict, BIOMATIMER_RUN_NO_COLOR, no_color && *no_color) || !text_entry(&dict, BIOMATIMER_RUN_TERM, getenv("TERM")) ||
        !text_entry(&dict, BIOMATIMER_RUN_TZ, getenv("TZ")) || !text_entry(&dict, BIOMATIMER_RUN_ANSWER, answer) ||
        !text_entry(&dict, BIOMATIMER_RUN_COMPLETION_SHELL, getenv("SAP_SHELL")) ||
        !text_entry(&dict, BIOMATIMER_RUN_COMPLETION_SHELL_VERSION, getenv("SAP_SHELL_VERSION")) ||
        (width32 > 0 && !entry(&dict, BIOMATIMER_RUN_COLUMNS, 'u', &width32, 0)) ||
        (requests >= 0 && !entry(&dict, BIOMATIMER_RUN_OPEN_ERRORS, 'a', errors, requests)) ||
        !dbus_message_iter_close_container(&args, &dict) ||
        !dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "h", &list))
        return NULL;
    for (int i = 0; i < nfds; i++)
        if (!dbus_message_iter_append_basic(&list, DBUS_TYPE_UNIX_FD, &fds[i])) return NULL;
    return dbus_message_iter_close_container(&args, &list) ? m : NULL;
}

int main(int argc, char **argv) {
    static const char *local[] = {"watch", "tray", "install", "uninstall"};
    if (argc >= 2 && strcmp(argv[1], "daemon") == 0) {
        argv[1] = "biomatimerd";  // `biomatimer daemon ARGS` is `biomatimerd ARGS`
        return exec_sibling("biomatimerd", argv + 1);
    }
    if (argc == 2 && strcmp(argv[1], "tray") == 0) {  // the tray alone, small (the tool when absent)
        char beside[PATH_MAX + 32], libexec[PATH_MAX + 64];
        try_sibling("biomatimer-tray", argv, beside, sizeof beside, libexec, sizeof libexec);
    }
    for (size_t i = 0; argc >= 2 && i < sizeof local / sizeof *local; i++)
        if (strcmp(argv[1], local[i]) == 0) return exec_sibling("biomatimer-tool", argv);
    for (int i = 1; i < argc; i++)  // libdbus aborts on invalid UTF-8; the tool repairs it
        if (!dbus_validate_utf8(argv[i], NULL)) return exec_sibling("biomatimer-tool", argv);
    char address[65536], answer[1024] = "", *asked = NULL;
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *connection = session_address(address, sizeof address) ? dbus_connection_open_private(address, &error) : NULL;
    if (!connection) return exec_sibling("biomatimer-tool", argv);  // no bus: the tool says so
    dbus_connection_set_exit_on_disconnect(connection, FALSE);       // a lost bus is reported
    if (!dbus_bus_register(connection, &error)) return exec_sibling("biomatimer-tool", argv);
    dbus_int32_t errors[MAX_FILES];
    int fds[MAX_FILES], requests = -1, nfds = 0, reading = 0;
    // A shell completing a word (`---completion …`, a project's name, a task's id) waits a
    // moment at most, and a daemon that does not answer completes nothing and says nothing.
    int completing = argc >= 2 && strcmp(argv[1], "---completion") == 0;
    for (;;) {
        DBusMessage *call = run_call(argc, argv, asked, requests, errors, fds, nfds);
        if (!call) return fail(BIOMATIMER_EXIT_REFUSED, BIOMATIMER_MSG_OUT_OF_MEMORY, NULL);
        int timeout = call_timeout_ms(reading);
        if (completing && (timeout < 0 || timeout > BIOMATIMER_COMPLETION_TIMEOUT_MS)) timeout = BIOMATIMER_COMPLETION_TIMEOUT_MS;
        DBusMessage *reply = dbus_connection_send_with_reply_and_block(connection, call, timeout, &error);
        if (!reply) {
            const char *name = error.name ? error.name : DBUS_ERROR_FAILED;
            const char *text = error.message ? error.message : name;
            // No daemon (the tool says so), or one without Run (the tool uses its methods).
            if (strcmp(name, DBUS_ERROR_SERVICE_UNKNOWN) == 0 || strcmp(name, DBUS_ERROR_NAME_HAS_NO_OWNER) == 0 ||
                strncmp(name, "org.freedesktop.DBus.Error.Spawn", 32) == 0 || strcmp(name, DBUS_ERROR_UNKNOWN_METHOD) == 0 ||
                strcmp(name, DBUS_ERROR_UNKNOWN_INTERFACE) == 0 || strcmp(name, DBUS_ERROR_UNKNOWN_OBJECT) == 0)
                return exec_sibling("biomatimer-tool", argv);
            if (completing) _exit(BIOMATIMER_EXIT_DONE);
            if (strcmp(name, DBUS_ERROR_NO_REPLY) == 0 && !dbus_connection_get_is_connected(connection))
                return fail(BIOMATIMER_EXIT_UNAVAILABLE, BIOMATIMER_MSG_LOST_BUS, BIOMATIMER_MSG_BUS_CLOSED);
            if (strcmp(name, DBUS_ERROR_NO_REPLY) == 0 || strcmp(name, DBUS_ERROR_TIMEOUT) == 0 ||
                strcmp(name, DBUS_ERROR_TIMED_OUT) == 0)
                return fail(BIOMATIMER_EXIT_UNAVAILABLE, BIOMATIMER_MSG_NO_ANSWER, NULL);
            if (strcmp(name, DBUS_ERROR_DISCONNECTED) == 0) return fail(BIOMATIMER_EXIT_UNAVAILABLE, BIOMATIMER_MSG_LOST_BUS, text);
            return fail(BIOMATIMER_EXIT_REFUSED, strcmp(name, DBUS_ERROR_NO_MEMORY) == 0 ? BIOMATIMER_MSG_OUT_OF_MEMORY : text, NULL);
        }
        dbus_int32_t code = BIOMATIMER_EXIT_REFUSED;
        const char *out = "", *err = "";
        if (!dbus_message_get_args(reply, NULL, DBUS_TYPE_INT32, &code, DBUS_TYPE_STRING, &out, DBUS_TYPE_STRING, &err,
                                   DBUS_TYPE_INVALID))
            return fail(BIOMATIMER_EXIT_REFUSED, "the daemon's answer to Run has the wrong type", NULL);
        if (code == BIOMATIMER_EXIT_FILES && requests < 0) {
            // One request a line: "r PATH" read it, "i" standard input, "d DIR" write into DIR,
            // "o" standard output (bytes that are not text).
            requests = 0;
            for (char *line = strtok(strdup(out), "\n"); line && requests < MAX_FILES; line = strtok(NULL, "\n")) {
                int fd = line[0] == 'i'   ? dup(0)
                         : line[0] == 'o' ? dup(1)
                                          : open(line + 2, O_RDONLY | O_CLOEXEC | (line[0] == 'd' ? O_DIRECTORY : 0));
                reading |= fd >= 0 && (line[0] == 'r' || line[0] == 'i');
                errors[requests++] = fd < 0 ? errno : 0;
                if (fd >= 0) fds[nfds++] = fd;
            }
            continue;
        }
        if (code == BIOMATIMER_EXIT_CONFIRM && !asked) {
            fputs(err, stderr), fflush(stderr);
            if (!fgets(answer, sizeof answer, stdin) || !dbus_validate_utf8(answer, NULL)) answer[0] = '\0';
            asked = answer;
            continue;
        }
        // A success's err is a progress line or a warning (before), a failure's its reason (after).
        fputs(code ? out : err, code ? stdout : stderr), fputs(code ? err : out, code ? stderr : stdout), fflush(NULL);
        _exit(code);  // nothing left to tear down that the kernel does not do faster
    }
}
