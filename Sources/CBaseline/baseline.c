#define _POSIX_C_SOURCE 200809L

#include "baseline.h"

#include <dbus/dbus.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct baseline_service {
    DBusConnection *connection;
    pthread_t thread;
    atomic_int stop;
};

struct baseline_client {
    DBusConnection *connection;
};

uint64_t baseline_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void close_connection(DBusConnection *connection) {
    dbus_connection_close(connection);
    dbus_connection_unref(connection);
}

// A private connection registered with the bus at `address`, or NULL (said on stderr).
static DBusConnection *open_connection(const char *address) {
    dbus_threads_init_default();
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *connection = dbus_connection_open_private(address, &error);
    if (connection == NULL) {
        fprintf(stderr, "baseline: cannot connect to %s: %s\n", address, error.message);
        dbus_error_free(&error);
        return NULL;
    }
    dbus_connection_set_exit_on_disconnect(connection, FALSE);
    if (!dbus_bus_register(connection, &error)) {
        fprintf(stderr, "baseline: cannot register: %s\n", error.message);
        dbus_error_free(&error);
        close_connection(connection);
        return NULL;
    }
    return connection;
}

static DBusHandlerResult handle_message(DBusConnection *connection, DBusMessage *message, void *data) {
    (void)data;
    if (!dbus_message_is_method_call(message, BASELINE_INTERFACE, "Echo")) {
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    }
    const char *text = NULL;
    DBusMessage *reply;
    if (dbus_message_get_args(message, NULL, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID)) {
        reply = dbus_message_new_method_return(message);
        if (reply != NULL) dbus_message_append_args(reply, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID);
    } else {
        reply = dbus_message_new_error(message, DBUS_ERROR_INVALID_ARGS, "Echo takes one string");
    }
    if (reply != NULL) {
        dbus_connection_send(connection, reply, NULL);
        dbus_message_unref(reply);
    }
    return DBUS_HANDLER_RESULT_HANDLED;
}

static void *service_loop(void *arg) {
    baseline_service *service = arg;
    // Wakes at least every 50 ms to see the stop flag; calls are answered as they arrive.
    while (!atomic_load(&service->stop)) {
        if (!dbus_connection_read_write_dispatch(service->connection, 50)) break;
    }
    return NULL;
}

baseline_service *baseline_service_start(const char *address, const char *name) {
    baseline_service *service = calloc(1, sizeof *service);
    if (service == NULL || (service->connection = open_connection(address)) == NULL) {
        free(service);
        return NULL;
    }
    static const DBusObjectPathVTable vtable = {.message_function = handle_message};
    DBusError error;
    dbus_error_init(&error);
    if (!dbus_connection_try_register_object_path(service->connection, BASELINE_PATH, &vtable, service, &error)) {
        fprintf(stderr, "baseline: cannot export %s: %s\n", BASELINE_PATH, error.message);
        goto fail;
    }
    int owned = dbus_bus_request_name(service->connection, name, DBUS_NAME_FLAG_DO_NOT_QUEUE, &error);
    if (owned != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
        fprintf(stderr, "baseline: cannot own %s: %s\n", name, dbus_error_is_set(&error) ? error.message : "taken");
        goto fail;
    }
    atomic_init(&service->stop, 0);
    if (pthread_create(&service->thread, NULL, service_loop, service) != 0) {
        fprintf(stderr, "baseline: pthread_create failed\n");
        goto fail;
    }
    return service;
fail:
    dbus_error_free(&error);
    close_connection(service->connection);
    free(service);
    return NULL;
}

void baseline_service_stop(baseline_service *service) {
    if (service == NULL) return;
    atomic_store(&service->stop, 1);
    pthread_join(service->thread, NULL);
    close_connection(service->connection);
    free(service);
}

baseline_client *baseline_client_open(const char *address) {
    baseline_client *client = calloc(1, sizeof *client);
    if (client != NULL && (client->connection = open_connection(address)) == NULL) {
        free(client);
        return NULL;
    }
    return client;
}

void baseline_client_close(baseline_client *client) {
    if (client == NULL) return;
    close_connection(client->connection);
    free(client);
}

int baseline_client_run(baseline_client *client, const char *destination, const char *text, int count,
                        uint64_t *nanos) {
    DBusError error;
    dbus_error_init(&error);
    for (int i = 0; i < count; i++) {
        uint64_t start = baseline_now_ns();
        DBusMessage *call = dbus_message_new_method_call(destination, BASELINE_PATH, BASELINE_INTERFACE, "Echo");
        if (call == NULL || !dbus_message_append_args(call, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID)) {
            fprintf(stderr, "baseline: out of memory\n");
            if (call != NULL) dbus_message_unref(call);
            return -1;
        }
        DBusMessage *reply = dbus_connection_send_with_reply_and_block(client->connection, call, 25000, &error);
        dbus_message_unref(call);
        if (reply == NULL) {
            fprintf(stderr, "baseline: Echo failed: %s: %s\n", error.name, error.message);
            dbus_error_free(&error);
            return -1;
        }
        const char *answer = NULL;
        int ok = dbus_message_get_args(reply, &error, DBUS_TYPE_STRING, &answer, DBUS_TYPE_INVALID) &&
                 strcmp(answer, text) == 0;
        dbus_message_unref(reply);
        if (!ok) {
            fprintf(stderr, "baseline: wrong reply to Echo\n");
            dbus_error_free(&error);
            return -1;
        }
        nanos[i] = baseline_now_ns() - start;
    }
    return 0;
}
