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

/// `clock`'s reading in microseconds (CLOCK_REALTIME: since the Unix epoch). The one place
/// the daemon, the loop and the bars read a clock.
static inline int64_t csystem_clock_us(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}
#endif
