#ifndef BIOMATIMER_CDBUS_SHIM_H
#define BIOMATIMER_CDBUS_SHIM_H
#include <dbus/dbus.h>
#endif
