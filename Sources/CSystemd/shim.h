#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
