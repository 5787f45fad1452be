#ifndef TRIPTO_CALSA_SHIM_H
#define TRIPTO_CALSA_SHIM_H

#include <alsa/asoundlib.h>

/* alsa-lib prints every failure to stderr through a variadic handler, which Swift cannot define.
   The box reports failures itself, once, so this handler drops alsa-lib's own lines. */
static void tripto_alsa_quiet(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static inline void tripto_alsa_silence_errors(void) { snd_lib_error_set_handler(tripto_alsa_quiet); }

#endif
