// Preloaded with binaries that glibc-compat.py marked: the functions of glibc 2.38 and libstdc++ 3.4.32
// they call, in terms of older ones (build: g++ -shared -fPIC -O2 -o libglibc-compat.so glibc-compat.cc).
//
// __isoc23_* are ISO C23's strtol/sscanf/fscanf (C23 adds the 0b prefix and %b, which the cuda-samples
// do not use; glibc 2.38's headers redirect the calls to them). std::ios_base_library_init is what
// GCC 13's <iostream> calls to have the standard streams built; with GCC 12's <iostream> included here,
// this library's own static ios_base::Init builds them before the program's constructors run.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <iostream>

extern "C" {
long __isoc23_strtol(const char *s, char **end, int base) { return std::strtol(s, end, base); }
unsigned long __isoc23_strtoul(const char *s, char **end, int base) { return std::strtoul(s, end, base); }
long long __isoc23_strtoll(const char *s, char **end, int base) { return std::strtoll(s, end, base); }
unsigned long long __isoc23_strtoull(const char *s, char **end, int base) { return std::strtoull(s, end, base); }
int __isoc23_sscanf(const char *s, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    int n = std::vsscanf(s, format, ap);
    va_end(ap);
    return n;
}
int __isoc23_fscanf(FILE *f, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    int n = std::vfscanf(f, format, ap);
    va_end(ap);
    return n;
}
int __isoc23_scanf(const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    int n = std::vscanf(format, ap);
    va_end(ap);
    return n;
}
}

namespace std {
__attribute__((init_priority(101))) static ios_base::Init compat_streams;
void ios_base_library_init() {}
}
