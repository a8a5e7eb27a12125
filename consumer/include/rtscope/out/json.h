/* json: a JSON string as rtscope's reports write it (lib/out/json.c), for
 * other JSON writers: valid UTF-8 kept as it is, invalid bytes as the text
 * \xNN, '"' and '\' escaped, control characters, '<', '>', '&', U+2028 and
 * U+2029 as \u escapes (so the string is safe inside a <script> block
 * too). */
#ifndef RTSCOPE_OUT_JSON_H
#define RTSCOPE_OUT_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Write str[0..len) to f as a quoted JSON string. */
void report_json_str(FILE *f, const char *str, size_t len);

#endif
