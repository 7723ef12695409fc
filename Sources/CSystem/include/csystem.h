#ifndef BIOMATIMER_CSYSTEM_H
#define BIOMATIMER_CSYSTEM_H
// Linux interfaces the daemon's event loop uses that Glibc's Swift module leaves out, and
// the clocks read in microseconds.
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <signal.h>
#include <malloc.h>
#include <stdint.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <fcntl.h>
#include <spawn.h>

/// How many bytes a pipe, FIFO or terminal holds ready to read now (FIONREAD), or -1. A read
/// of at most that many never blocks, without setting O_NONBLOCK on a description the caller
/// shares (its terminal, its shell's pipe).
static inline int csystem_bytes_ready(int fd) {
    int n = 0;
    return ioctl(fd, FIONREAD, &n) == 0 ? n : -1;
}

/// A pipe whose two ends are close-on-exec from the start (pipe2 with O_CLOEXEC, which
/// <unistd.h> declares only with _GNU_SOURCE): a child another thread spawns meanwhile inherits
/// neither end. 0, or -1 with errno.
static inline int csystem_pipe_cloexec(int fds[2]) {
    return (int)syscall(SYS_pipe2, fds, O_CLOEXEC);
}

/// `clock`'s reading in microseconds (CLOCK_REALTIME: since the Unix epoch). The one place
/// the daemon, the loop and the bars read a clock.
static inline int64_t csystem_clock_us(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}
/// SCHED_BATCH, which <sched.h> declares only with _GNU_SOURCE (Linux's value since 2.6.16).
#define CSYSTEM_SCHED_BATCH 3

/// A descriptor for the child `pid` (pidfd_open(2), Linux 5.3): readable once the child has
/// exited, so the loop reaps it without SIGCHLD or a blocking waitpid. -1 with errno on failure.
static inline int csystem_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34), which <spawn.h> declares only with
/// _GNU_SOURCE: the child closes every descriptor from `from` on, so it keeps only the
/// standard streams it was given, whatever the parent holds without close-on-exec.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int);
static inline int csystem_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
#endif
