/* LD_PRELOAD diagnostic for exit-time crashes: logs every __cxa_atexit registration (atexit calls it) and
 * dlopen with the DSO of the handler, the order the handlers run in at exit, and a backtrace on SIGABRT.
 * Built with -DABRT_ONLY it only prints the backtrace of an abort (for loops that count aborts). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
static void say(const char *s);
static void say(const char *s) { if (write(2, s, strlen(s)) < 0) return; }
#ifndef ABRT_ONLY
struct ent { void (*f)(void *); void *arg; int n; char name[200]; };
static int count;
static void where(void *f, char *buf, size_t n) {
    Dl_info i;
    if (dladdr(f, &i) && i.dli_fname) snprintf(buf, n, "%s+%#lx (%s)", strrchr(i.dli_fname, '/') ? strrchr(i.dli_fname, '/') + 1 : i.dli_fname,
                                               (unsigned long)((char *)f - (char *)i.dli_fbase), i.dli_sname ? i.dli_sname : "?");
    else snprintf(buf, n, "%p", f);
}
static void tramp(void *p) {
    struct ent *e = p;
    char b[300];
    snprintf(b, sizeof b, "[atexit] run #%d %s\n", e->n, e->name);
    say(b);
    e->f(e->arg);
}
int __cxa_atexit(void (*f)(void *), void *arg, void *dso) {
    static int (*real)(void (*)(void *), void *, void *);
    if (!real) real = (int (*)(void (*)(void *), void *, void *))dlsym(RTLD_NEXT, "__cxa_atexit");
    struct ent *e = malloc(sizeof *e);
    if (!e) return real(f, arg, dso);
    e->f = f; e->arg = arg; e->n = ++count;
    where((void *)f, e->name, sizeof e->name);
    char b[300];
    snprintf(b, sizeof b, "[atexit] reg #%d %s\n", e->n, e->name);
    say(b);
    return real(tramp, e, dso);
}
void *dlopen(const char *name, int flags) {
    static void *(*real)(const char *, int);
    if (!real) real = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
    char b[400];
    snprintf(b, sizeof b, "[atexit] dlopen %s\n", name ? name : "(null)");
    say(b);
    void *h = real(name, flags);
    snprintf(b, sizeof b, "[atexit] dlopen %s done\n", name ? name : "(null)");
    say(b);
    return h;
}
#endif
static void on_abrt(int sig) {
    char b[128];
    snprintf(b, sizeof b, "[atexit] SIGABRT in thread %ld (pid %d); backtrace:\n", (long)syscall(SYS_gettid), getpid());
    say(b);
    void *bt[64];
    int n = backtrace(bt, 64);
    backtrace_symbols_fd(bt, n, 2);
    signal(sig, SIG_DFL);
    raise(sig);
}
__attribute__((constructor)) static void start(void) { signal(SIGABRT, on_abrt); 
#ifndef ABRT_ONLY
    say("[atexit] logger loaded\n");
#endif
 }
