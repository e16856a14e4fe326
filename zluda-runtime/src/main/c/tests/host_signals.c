/*
 * host_signals: a host program whose own code faults after the zluda driver booted its JVM in the
 * process (HostSignalsTest). The fault must end the program as it would without zluda: its own
 * signal and exit status, or its own handler called; no JVM banner, no hs_err file.
 *
 * Usage: host_signals PATH/TO/libcuda.so.1 MODE
 *   segv          writes through a null pointer: dies of SIGSEGV
 *   fpe           divides an integer by zero: dies of SIGFPE
 *   handler       installs a SIGSEGV handler first, then faults: the handler prints the fault
 *                 address and exits 42
 *   pipe-default  writes to a pipe without a reader: dies of SIGPIPE
 *   pipe-ignored  ignores SIGPIPE first, then writes to a pipe without a reader: write fails
 *                 with EPIPE, prints "EPIPE", exits 0
 *   calls N       N rounds of driver calls (the JVM's own signals, e.g. safepoint polls, must keep
 *                 working), prints "calls ok" and whether a handler is installed for SIGSEGV
 * Every mode prints "booted" once the driver answered cuInit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*i_u)(unsigned);
typedef int (*i_pi_i)(int *, int);
typedef int (*i_pi_i_i)(int *, int, int);

static void on_segv(int sig, siginfo_t *info, void *uc) {
    (void)uc;
    char msg[96];
    int n = snprintf(msg, sizeof msg, "host handler: signal %d at %p\n", sig, info->si_addr);
    if (write(1, msg, (size_t)n) < 0) _exit(43);
    _exit(42);
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: host_signals LIBCUDA MODE [N]\n"); return 2; }
    const char *mode = argv[2];
    if (strcmp(mode, "handler") == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_segv;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, NULL);
    }
    if (strcmp(mode, "pipe-ignored") == 0) signal(SIGPIPE, SIG_IGN);
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) { printf("dlopen %s: %s\n", argv[1], dlerror()); return 3; }
    int r = ((i_u)dlsym(h, "cuInit"))(0);
    if (r != 0) { printf("cuInit -> %d\n", r); return 4; }
    int dev = -1;
    ((i_pi_i)dlsym(h, "cuDeviceGet"))(&dev, 0);
    printf("booted\n");
    fflush(stdout);
    if (strcmp(mode, "segv") == 0 || strcmp(mode, "handler") == 0) {
        volatile int *p = (volatile int *)(uintptr_t)strtoul("16", NULL, 10); /* an address no program maps */
        *p = 1;
        printf("not reached\n");
        return 5;
    }
    if (strcmp(mode, "fpe") == 0) {
        volatile int zero = 0;
        volatile int x = 7 / zero;
        printf("not reached %d\n", x);
        return 5;
    }
    if (strncmp(mode, "pipe-", 5) == 0) {
        int fd[2];
        if (pipe(fd) != 0) return 6;
        close(fd[0]);
        ssize_t w = write(fd[1], "x", 1);
        printf("%s\n", w < 0 && errno == EPIPE ? "EPIPE" : "write did not fail");
        return 0;
    }
    if (strcmp(mode, "calls") == 0) {
        long n = argc > 3 ? atol(argv[3]) : 100000;
        i_pi_i_i attr = (i_pi_i_i)dlsym(h, "cuDeviceGetAttribute");
        long sum = 0;
        for (long i = 0; i < n; i++) {
            int v = 0;
            if (attr(&v, 1 + (int)(i % 16), dev) != 0) { printf("cuDeviceGetAttribute failed at %ld\n", i); return 7; }
            sum += v;
        }
        struct sigaction cur;
        sigaction(SIGSEGV, NULL, &cur);
        int installed = (cur.sa_flags & SA_SIGINFO) ? cur.sa_sigaction != NULL : cur.sa_handler != SIG_DFL;
        printf("calls ok (%ld, sum %ld); SIGSEGV handler installed: %s\n", n, sum, installed ? "yes" : "no");
        return 0;
    }
    printf("unknown mode %s\n", mode);
    return 2;
}
