#ifndef BIOMATIMER_CSYSTEM_H
#define BIOMATIMER_CSYSTEM_H
// Linux interfaces the daemon's event loop uses that Glibc's Swift module leaves out.
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <signal.h>
#include <malloc.h>
#endif
