#ifndef BIOMATIMER_CDBUS_SHIM_H
#define BIOMATIMER_CDBUS_SHIM_H
#include <dbus/dbus.h>
// The event loop's wake-up descriptor; not in Glibc's Swift module.
#include <sys/eventfd.h>
#endif
