#ifndef CLIBUSB_SHIM_H
#define CLIBUSB_SHIM_H
#include <libusb.h>

// libusb_set_option is variadic, which Swift cannot call: this sets the log level (libusb
// otherwise prints its own warnings on labeld's stderr, outside the journald prefixes).
static inline int clibusb_set_log_level(libusb_context *ctx, int level) {
  return libusb_set_option(ctx, LIBUSB_OPTION_LOG_LEVEL, level);
}

#endif
