/*
 * Lets llama.cpp binaries built on a newer Linux (glibc >= 2.38, e.g. Ubuntu 24.04, as on the NVIDIA
 * H200 machine) run on an older one (Debian 12, glibc 2.36), where zluda's driver runs them.
 *
 * glibc 2.38 made the strtol family accept C23's "0b" prefix and, for any _GNU_SOURCE build (g++
 * always defines it), redirects strtol, strtoul, strtoll, strtoull and the scanf family to new
 * symbols (__isoc23_strtol, ... versioned GLIBC_2.38) that glibc 2.36 lacks. Linked into each binary
 * and shared library (hidden, so each binds its own), these definitions forward to the older
 * entry points. The only difference, "0b101" read as binary, does not matter to the numbers
 * llama.cpp parses (command-line integers, GGUF metadata is binary). build-llama.sh lists any
 * symbol still needing a glibc newer than 2.36 after the link.
 *
 * glibc 2.38 also gave fmod and fmodf a new version (errno of fmod(x, 0), fmod(inf, y)); the
 * definitions below compute them with fmodl (GLIBC_2.2.5), whose result is exact and so the same
 * after rounding to double or float.
 *
 * Compiled without _GNU_SOURCE and as C11 so that the names below are not themselves redirected.
 */
#undef _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define HIDDEN __attribute__((visibility("hidden")))

HIDDEN long __isoc23_strtol(const char *s, char **end, int base) { return strtol(s, end, base); }
HIDDEN unsigned long __isoc23_strtoul(const char *s, char **end, int base) { return strtoul(s, end, base); }
HIDDEN long long __isoc23_strtoll(const char *s, char **end, int base) { return strtoll(s, end, base); }
HIDDEN unsigned long long __isoc23_strtoull(const char *s, char **end, int base) { return strtoull(s, end, base); }

HIDDEN int __isoc23_vsscanf(const char *s, const char *fmt, va_list ap) { return vsscanf(s, fmt, ap); }
HIDDEN int __isoc23_vfscanf(FILE *f, const char *fmt, va_list ap) { return vfscanf(f, fmt, ap); }

HIDDEN int __isoc23_sscanf(const char *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsscanf(s, fmt, ap);
    va_end(ap);
    return n;
}

HIDDEN int __isoc23_fscanf(FILE *f, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vfscanf(f, fmt, ap);
    va_end(ap);
    return n;
}

HIDDEN int __isoc23_scanf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vfscanf(stdin, fmt, ap);
    va_end(ap);
    return n;
}

HIDDEN double fmod(double x, double y) { return (double)fmodl(x, y); }
HIDDEN float fmodf(float x, float y) { return (float)fmodl(x, y); }
