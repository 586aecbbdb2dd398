/* The one way common/ reports what is wrong: a sentence for the user. */
#ifndef SD_MESSAGE_H
#define SD_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>

/* Writes the sentence into msg (when msg is not NULL and size not 0) and
 * returns false, so that a check can end with `return sd_message (...)`. */
bool sd_message (char *msg, size_t size, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

#endif
