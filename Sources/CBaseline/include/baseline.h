#ifndef BASELINE_H
#define BASELINE_H

// A plain C libdbus loop, the baseline BenchDBus measures DBusKit against: a service thread
// answering Echo(s)->s with its own read_write_dispatch loop, and a client doing blocking calls.

#include <stdint.h>

#define BASELINE_PATH "/org/biomatimer/Bench"
#define BASELINE_INTERFACE "org.biomatimer.Bench"

typedef struct baseline_service baseline_service;

/// Connects to `address`, exports Echo(s)->s at BASELINE_PATH and owns `name`, on a thread of
/// its own. Returns NULL (and prints why) on failure.
baseline_service *baseline_service_start(const char *address, const char *name);

/// Stops the thread, closes the connection and frees the service.
void baseline_service_stop(baseline_service *service);

typedef struct baseline_client baseline_client;

/// A private connection to `address` for blocking calls; NULL (and prints why) on failure.
baseline_client *baseline_client_open(const char *address);
void baseline_client_close(baseline_client *client);

/// Calls `destination`'s Echo(`text`) `count` times with dbus_connection_send_with_reply_and_block,
/// storing each round trip in nanoseconds in `nanos` (room for `count`). Checks each reply.
/// Returns 0, or -1 (and prints why) on the first failure.
int baseline_client_run(baseline_client *client, const char *destination, const char *text, int count,
                        uint64_t *nanos);

/// CLOCK_MONOTONIC in nanoseconds.
uint64_t baseline_now_ns(void);

#endif
