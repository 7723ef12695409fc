// The test suite's check on descriptor ownership, preloaded (LD_PRELOAD) into the daemons the
// suite starts: a close(2) of a descriptor number that fails with EBADF means the number was
// closed twice or was never this part's to close, and then another part's descriptor (the
// store's, the bus's) may be the one closed. Each such close is written, with the process id
// and a backtrace, to the file named by BIOMATIMER_CLOSE_LOG; the suite fails the test whose
// daemon wrote it. The close itself is passed on unchanged.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int (*next_close)(int);

int close(int fd) {
    if (!next_close) next_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    int rc = next_close(fd);
    if (rc == -1 && errno == EBADF && fd >= 0) {
        int saved = errno;
        const char *path = getenv("BIOMATIMER_CLOSE_LOG");
        int log = path ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : -1;
        if (log >= 0) {
            void *frames[48];
            int n = backtrace(frames, 48);
            dprintf(log, "pid %d: close(%d) failed with EBADF (closed twice, or not its own), from:\n", getpid(), fd);
            backtrace_symbols_fd(frames, n, log);
            next_close(log);
        }
        errno = saved;
    }
    return rc;
}
