// `biomatimer`: the front door.
//
// What keybindings, bar clicks and bar polls run is answered here with one D-Bus call, in C,
// so that it costs about what `dbus-send` does (a Swift binary spends milliseconds just
// starting): toggle, start, stop, reset, project start|stop|toggle|next|prev|reset,
// focus toggle|pause|resume|skip|confirm|stop|start PRESET, and the text of `status` and
// `report`, which the daemon renders (StatusText, ReportText).
// `biomatimer daemon …` runs `biomatimerd`; everything else — help, options, watch, projects,
// export — is handed to `biomatimer-tool`. Both live beside this binary, or in
// ../libexec/biomatimer/, and get the arguments untouched by exec.
//
// Names, exit codes and messages come from biomatimer_contract.h, which the Swift client
// (TimerControl) imports too; `biomatimer-tool` implements the same commands, and tests run
// both side by side, on success and on every failure, and require the same output.
#include "biomatimer_contract.h"
#include <dbus/dbus.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum argument_kind { NO_ARGUMENT, STRING_ARGUMENT, INT32_ARGUMENT };

struct quick_call {
    const char *interface;
    const char *member;
    enum argument_kind kind;
    const char *string;
    dbus_int32_t number;
    int print_running;
};

/// The quick forms, exactly; anything else (including --help) goes to the tool.
static int parse(int argc, char **argv, struct quick_call *call) {
    memset(call, 0, sizeof *call);
    call->interface = BIOMATIMER_TIMER_INTERFACE;
    if (argc >= 3 && strcmp(argv[1], "focus") == 0) {
        call->interface = BIOMATIMER_FOCUS_INTERFACE;
        if (argc == 3) {
            if (strcmp(argv[2], "toggle") == 0) call->member = "TogglePause";
            else if (strcmp(argv[2], "pause") == 0) call->member = "Pause";
            else if (strcmp(argv[2], "resume") == 0) call->member = "Resume";
            else if (strcmp(argv[2], "skip") == 0) call->member = "Skip";
            else if (strcmp(argv[2], "confirm") == 0) call->member = "Confirm";
            else if (strcmp(argv[2], "stop") == 0) call->member = "StopFocus";
            return call->member != NULL;
        }
        // libdbus aborts on invalid UTF-8: leave such names to the tool, which repairs them.
        if (argc == 4 && strcmp(argv[2], "start") == 0 && argv[3][0] != '-' && dbus_validate_utf8(argv[3], NULL)) {
            call->member = "StartPreset";
            call->kind = STRING_ARGUMENT;
            call->string = argv[3];
            return 1;
        }
        return 0;
    }
    if (argc == 2) {
        if (strcmp(argv[1], "start") == 0) call->member = "Start";
        else if (strcmp(argv[1], "stop") == 0) call->member = "Stop";
        else if (strcmp(argv[1], "toggle") == 0) call->member = "Toggle";
        else if (strcmp(argv[1], "reset") == 0) call->member = "Reset";
        return call->member != NULL;
    }
    if (argc == 3) {
        if (strcmp(argv[1], "toggle") == 0 && strcmp(argv[2], "--print") == 0) {
            call->member = "Toggle";
            call->print_running = 1;
            return 1;
        }
        if (strcmp(argv[1], "project") != 0) return 0;
        if (strcmp(argv[2], "stop") == 0) call->member = "StopProject";
        else if (strcmp(argv[2], "next") == 0 || strcmp(argv[2], "prev") == 0) {
            call->member = "CycleProject";
            call->kind = INT32_ARGUMENT;
            call->number = strcmp(argv[2], "next") == 0 ? 1 : -1;
        }
        return call->member != NULL;
    }
    if (argc == 4 && strcmp(argv[1], "project") == 0 && argv[3][0] != '-') {
        // libdbus aborts on invalid UTF-8: leave such names to the tool, which repairs them.
        if (!dbus_validate_utf8(argv[3], NULL)) return 0;
        if (strcmp(argv[2], "start") == 0) call->member = "StartProject";
        else if (strcmp(argv[2], "toggle") == 0) call->member = "ToggleProject";
        else if (strcmp(argv[2], "reset") == 0) call->member = "ResetProject";
        call->kind = STRING_ARGUMENT;
        call->string = argv[3];
        return call->member != NULL;
    }
    return 0;
}

static int fail(int code, const char *first, const char *second, const char *third) {
    fprintf(stderr, BIOMATIMER_PROGRAM_PREFIX "%s%s%s\n", first, second ? second : "", third ? third : "");
    return code;
}

static int no_bus(const char *why, const char *address) {
    fprintf(stderr, BIOMATIMER_PROGRAM_PREFIX BIOMATIMER_MSG_NO_BUS "%s (address %s)" BIOMATIMER_MSG_NO_BUS_ADVICE "\n",
            why, address);
    return BIOMATIMER_EXIT_UNAVAILABLE;
}

/// The session bus address, as BusAddress.session resolves it.
static int session_address(char *buffer, size_t size) {
    const char *address = getenv("DBUS_SESSION_BUS_ADDRESS");
    if (address && *address) {
        snprintf(buffer, size, "%s", address);
        return strlen(address) < size;
    }
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    if (runtime && *runtime) {
        char socket_path[PATH_MAX];
        struct stat info;
        if (snprintf(socket_path, sizeof socket_path, "%s/bus", runtime) < (int)sizeof socket_path &&
            stat(socket_path, &info) == 0 && S_ISSOCK(info.st_mode) &&
            snprintf(buffer, size, "unix:path=%s", socket_path) < (int)size)
            return 1;
    }
    return 0;
}

/// BIOMATIMER_TIMEOUT seconds when it is a number above 0, else the default (as TimerClient
/// reads it).
static int call_timeout_ms(void) {
    const char *text = getenv(BIOMATIMER_TIMEOUT_VARIABLE);
    if (!text || !*text) return BIOMATIMER_DEFAULT_TIMEOUT_MS;
    char *end = NULL;
    errno = 0;
    double seconds = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !(seconds > 0)) return BIOMATIMER_DEFAULT_TIMEOUT_MS;
    double ms = seconds * 1000;
    if (ms > 2147483000.0) return 2147483000;
    return ms < 1 ? 1 : (int)ms;
}

static const char *error_text(const DBusError *error) {
    if (error->message) return error->message;
    if (error->name) return error->name;
    return "unknown error";
}

/// The exit code and message for a failed call, as ClientFailure classifies a BusError.
static int call_failed(const DBusError *error, DBusConnection *connection) {
    const char *name = error->name ? error->name : "org.freedesktop.DBus.Error.Failed";
    const char *text = error_text(error);
    if (strcmp(name, DBUS_ERROR_NO_REPLY) == 0) {
        if (!dbus_connection_get_is_connected(connection))
            return fail(BIOMATIMER_EXIT_UNAVAILABLE, BIOMATIMER_MSG_LOST_BUS, BIOMATIMER_MSG_BUS_CLOSED, NULL);
        return fail(BIOMATIMER_EXIT_UNAVAILABLE, BIOMATIMER_MSG_NO_ANSWER, NULL, NULL);
    }
    if (strcmp(name, DBUS_ERROR_NO_MEMORY) == 0) return fail(BIOMATIMER_EXIT_REFUSED, BIOMATIMER_MSG_OUT_OF_MEMORY, NULL, NULL);
    if (strcmp(name, DBUS_ERROR_DISCONNECTED) == 0)
        return fail(BIOMATIMER_EXIT_UNAVAILABLE, BIOMATIMER_MSG_LOST_BUS, text, NULL);
    if (strcmp(name, DBUS_ERROR_TIMEOUT) == 0 || strcmp(name, DBUS_ERROR_TIMED_OUT) == 0)
        return fail(BIOMATIMER_EXIT_UNAVAILABLE, BIOMATIMER_MSG_NO_ANSWER, NULL, NULL);
    if (strncmp(name, BIOMATIMER_ERROR_PREFIX, strlen(BIOMATIMER_ERROR_PREFIX)) == 0)
        return fail(BIOMATIMER_EXIT_REFUSED, text, NULL, NULL);
    if (strcmp(name, DBUS_ERROR_SERVICE_UNKNOWN) == 0 || strcmp(name, DBUS_ERROR_NAME_HAS_NO_OWNER) == 0)
        return fail(BIOMATIMER_EXIT_UNAVAILABLE, BIOMATIMER_MSG_NOT_RUNNING, NULL, NULL);
    if (strncmp(name, "org.freedesktop.DBus.Error.Spawn", strlen("org.freedesktop.DBus.Error.Spawn")) == 0)
        return fail(BIOMATIMER_EXIT_UNAVAILABLE, BIOMATIMER_MSG_SPAWN_FAILED, text, NULL);
    return fail(BIOMATIMER_EXIT_REFUSED, text, NULL, NULL);
}

/// A private, registered connection to the session bus, or an exit code (with the message
/// printed) when there is none.
static int connect_session(DBusConnection **out) {
    char address[65536];
    if (!session_address(address, sizeof address))
        return fail(BIOMATIMER_EXIT_UNAVAILABLE, BIOMATIMER_MSG_NO_BUS, BIOMATIMER_MSG_NO_BUS_ADDRESS,
                    BIOMATIMER_MSG_NO_BUS_ADVICE);
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *connection = dbus_connection_open_private(address, &error);
    if (!connection) return no_bus(error_text(&error), address);
    // A lost bus is reported, never an _exit inside libdbus.
    dbus_connection_set_exit_on_disconnect(connection, FALSE);
    if (!dbus_bus_register(connection, &error)) return no_bus(error_text(&error), address);
    *out = connection;
    return BIOMATIMER_EXIT_DONE;
}

static int run_quick(const struct quick_call *call) {
    DBusConnection *connection = NULL;
    int code = connect_session(&connection);
    if (code != BIOMATIMER_EXIT_DONE) return code;
    DBusMessage *message =
        dbus_message_new_method_call(BIOMATIMER_BUS_NAME, BIOMATIMER_OBJECT_PATH, call->interface, call->member);
    if (!message) return fail(BIOMATIMER_EXIT_REFUSED, BIOMATIMER_MSG_OUT_OF_MEMORY, NULL, NULL);
    int appended = 1;
    if (call->kind == STRING_ARGUMENT)
        appended = dbus_message_append_args(message, DBUS_TYPE_STRING, &call->string, DBUS_TYPE_INVALID);
    else if (call->kind == INT32_ARGUMENT)
        appended = dbus_message_append_args(message, DBUS_TYPE_INT32, &call->number, DBUS_TYPE_INVALID);
    if (!appended) return fail(BIOMATIMER_EXIT_REFUSED, BIOMATIMER_MSG_OUT_OF_MEMORY, NULL, NULL);

    DBusError error;
    dbus_error_init(&error);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(connection, message, call_timeout_ms(), &error);
    if (!reply) return call_failed(&error, connection);
    if (call->print_running) {
        dbus_bool_t running = FALSE;
        if (!dbus_message_get_args(reply, NULL, DBUS_TYPE_BOOLEAN, &running, DBUS_TYPE_INVALID)) running = FALSE;
        fputs(running ? "running\n" : "stopped\n", stdout);
    }
    return BIOMATIMER_EXIT_DONE;
}

// ---------------------------------------------------------------- status and report text
//
// What a bar or a script polls — `status [--json | --format F] [--ascii]` and
// `report [--day|--week|--month|--year] [--date D] [--json]` — is rendered by the daemon
// (StatusText, ReportText: the same Swift code biomatimer-tool runs) and printed here. Any
// failure, and any other form, is left to biomatimer-tool, which says what went wrong.

struct text_call {
    const char *member;
    const char *first;  // format, or period
    const char *second; // day (ReportText only)
    const char *keys[2];
    dbus_bool_t values[2];
    int count;
};

static void add_flag(struct text_call *call, const char *key, int value) {
    call->keys[call->count] = key;
    call->values[call->count] = value ? TRUE : FALSE;
    call->count++;
}

/// An option's value as `--name VALUE` or `--name=VALUE`; advances *index past it.
static const char *option_value(int argc, char **argv, int *index, const char *name) {
    size_t length = strlen(name);
    const char *arg = argv[*index];
    if (strncmp(arg, name, length) != 0) return NULL;
    if (arg[length] == '=') return arg + length + 1;
    if (arg[length] == '\0' && *index + 1 < argc) return argv[++*index];
    return NULL;
}

/// Colour as Terminal.style decides it: on a terminal, without NO_COLOR, TERM not dumb.
static int terminal_color(void) {
    const char *no_color = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    return isatty(1) && !(no_color && *no_color) && !(term && strcmp(term, "dumb") == 0);
}

static int parse_text(int argc, char **argv, struct text_call *call) {
    memset(call, 0, sizeof *call);
    if (argc < 2) return 0;
    int json = 0, ascii = 0;
    const char *format = NULL, *period = NULL, *date = NULL;
    if (strcmp(argv[1], "status") == 0) {
        for (int i = 2; i < argc; i++) {
            const char *value;
            if (strcmp(argv[i], "--json") == 0 && !json) json = 1;
            else if (strcmp(argv[i], "--ascii") == 0 && !ascii) ascii = 1;
            else if (!format && (value = option_value(argc, argv, &i, "--format")) != NULL) format = value;
            else return 0;
        }
        if (format && !dbus_validate_utf8(format, NULL)) return 0;
        call->member = "StatusText";
        call->first = json ? "json" : format ? format : "";
        add_flag(call, "Ascii", ascii);
        return 1;
    }
    if (strcmp(argv[1], "report") == 0) {
        for (int i = 2; i < argc; i++) {
            const char *value;
            const char *arg = argv[i];
            if (strcmp(arg, "--json") == 0 && !json) json = 1;
            else if (!period && (strcmp(arg, "--day") == 0 || strcmp(arg, "--week") == 0 ||
                                 strcmp(arg, "--month") == 0 || strcmp(arg, "--year") == 0))
                period = arg + 2;
            else if (!date && (value = option_value(argc, argv, &i, "--date")) != NULL) date = value;
            else return 0;
        }
        if (date && !dbus_validate_utf8(date, NULL)) return 0;
        call->member = "ReportText";
        call->first = period ? period : "day";
        call->second = date ? date : "";
        add_flag(call, "Color", !json && terminal_color());
        add_flag(call, "Json", json);
        return 1;
    }
    return 0;
}

/// The daemon's text, printed; -1 when anything failed (the tool then takes over).
static int run_text(const struct text_call *call) {
    DBusConnection *connection = NULL;
    {
        // Quietly: a missing bus is reported by the tool, with the bar's offline line.
        char address[65536];
        DBusError error;
        dbus_error_init(&error);
        if (!session_address(address, sizeof address)) return -1;
        connection = dbus_connection_open_private(address, &error);
        if (!connection) return -1;
        dbus_connection_set_exit_on_disconnect(connection, FALSE);
        if (!dbus_bus_register(connection, &error)) return -1;
    }
    DBusMessage *message =
        dbus_message_new_method_call(BIOMATIMER_BUS_NAME, BIOMATIMER_OBJECT_PATH, BIOMATIMER_TIMER_INTERFACE, call->member);
    if (!message) return -1;
    DBusMessageIter args, map, entry, variant;
    dbus_message_iter_init_append(message, &args);
    if (!dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &call->first)) return -1;
    if (call->second && !dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &call->second)) return -1;
    if (!dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &map)) return -1;
    for (int i = 0; i < call->count; i++) {
        if (!dbus_message_iter_open_container(&map, DBUS_TYPE_DICT_ENTRY, NULL, &entry) ||
            !dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &call->keys[i]) ||
            !dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "b", &variant) ||
            !dbus_message_iter_append_basic(&variant, DBUS_TYPE_BOOLEAN, &call->values[i]) ||
            !dbus_message_iter_close_container(&entry, &variant) || !dbus_message_iter_close_container(&map, &entry))
            return -1;
    }
    if (!dbus_message_iter_close_container(&args, &map)) return -1;
    DBusError error;
    dbus_error_init(&error);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(connection, message, call_timeout_ms(), &error);
    if (!reply) return -1;
    const char *text = NULL;
    if (!dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID) || !text) return -1;
    fputs(text, stdout);
    return BIOMATIMER_EXIT_DONE;
}

/// Hands the command to `program` (biomatimer-tool or biomatimerd), found beside this
/// executable or in ../libexec/biomatimer/, with argv as it is.
static int exec_sibling(const char *program, char **argv) {
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) n = 0;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) *slash = '\0';
    else strcpy(self, ".");
    char beside[PATH_MAX + 32], libexec[PATH_MAX + 64];
    snprintf(beside, sizeof beside, "%s/%s", self, program);
    snprintf(libexec, sizeof libexec, "%s/../libexec/biomatimer/%s", self, program);
    const char *candidates[] = {beside, libexec};
    for (size_t i = 0; i < 2; i++) {
        if (access(candidates[i], X_OK) == 0) execv(candidates[i], argv);
    }
    fprintf(stderr, BIOMATIMER_PROGRAM_PREFIX "cannot find %s (looked in %s and %s); reinstall biomatimer.\n", program,
            beside, libexec);
    return BIOMATIMER_EXIT_REFUSED;
}

// SwiftPM links every executable through swiftc, which adds swiftrt.o, whose constructor
// registers the image with the Swift runtime. This program has no Swift code: these
// stand-ins keep the Swift runtime — and its start-up — out of the binary.
void swift_addNewDSOImage(const void *header);
void swift_addNewDSOImage(const void *header) { (void)header; }
int _swift_backtrace_isThunkFunction(const char *name);
int _swift_backtrace_isThunkFunction(const char *name) {
    (void)name;
    return 0;
}

int main(int argc, char **argv) {
    struct quick_call call;
    // The daemon is its own program: `biomatimer daemon ARGS` is `biomatimerd ARGS`.
    if (argc >= 2 && strcmp(argv[1], "daemon") == 0) {
        argv[1] = "biomatimerd";
        return exec_sibling("biomatimerd", argv + 1);
    }
    struct text_call text;
    if (parse_text(argc, argv, &text)) {
        int code = run_text(&text);
        if (code < 0) return exec_sibling("biomatimer-tool", argv);
        fflush(stdout);
        _exit(code);
    }
    if (!parse(argc, argv, &call)) return exec_sibling("biomatimer-tool", argv);
    int code = run_quick(&call);
    fflush(stdout);
    fflush(stderr);
    // Nothing left to tear down that the kernel does not do faster.
    _exit(code);
}
