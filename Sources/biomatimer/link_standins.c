// Stand-ins the linker needs and the front never calls, kept apart from the front's logic
// (main.c).

// swiftrt.o (swiftc links it into every executable) registers the image with the Swift runtime;
// with no Swift code here, these stand-ins keep the runtime and its start-up out.
void swift_addNewDSOImage(const void *header);
void swift_addNewDSOImage(const void *header) { (void)header; }
int _swift_backtrace_isThunkFunction(const char *name);
int _swift_backtrace_isThunkFunction(const char *name) { return (void)name, 0; }

// libdbus comes from its archive, so libsystemd (and the six libraries it loads) stays out;
// libdbus asks it only for sockets handed over by systemd, which a client never listens on.
int sd_listen_fds(int unset_environment);
int sd_listen_fds(int unset_environment) { return (void)unset_environment, 0; }
int sd_is_socket(int fd, int family, int type, int listening);
int sd_is_socket(int fd, int family, int type, int listening) {
    return (void)fd, (void)family, (void)type, (void)listening, 0;
}
