/*
 * A diagnostic for a program that dies of SIGSEGV/SIGBUS under zluda (exit 139 / 135), loaded with
 * LD_PRELOAD. Its constructor installs a handler for both signals before zluda's driver boots the JVM;
 * zluda's entry (zluda-runtime/src/main/c/entry.c) keeps that handler as the host's and hands it every
 * fault HotSpot does not claim as its own (HotSpot's implicit null checks, safepoint polls and stack
 * banging never reach it). The handler prints, on stderr: the signal, si_code, the faulting address, the
 * program counter and thread, the /proc/self/maps lines that hold the PC and the address (a PC in an
 * anonymous executable mapping is HotSpot's code cache: JIT-compiled Java, the emulator itself), and
 * backtrace(3) of the thread; then restores the default disposition and returns, so that the fault
 * recurs and the process dies of it as it would have.
 *
 *   gcc -O1 -shared -fPIC -o segvlog.so samples/llama/segvlog.c
 *   LD_PRELOAD=$PWD/segvlog.so samples/llama/run-backend-ops-zluda.sh BIN OUT OP...
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static char maps[1 << 20];

static void segvlog(int sig, siginfo_t *si, void *uc) {
    unsigned long pc = (unsigned long)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
    unsigned long addr = (unsigned long)si->si_addr;
    char buf[256];
    int n = snprintf(buf, sizeof buf, "\n[segvlog] signal %d code %d addr 0x%lx pc 0x%lx tid %d\n", sig, si->si_code, addr, pc, (int)gettid());
    write(2, buf, n);
    int fd = open("/proc/self/maps", O_RDONLY);
    if (fd >= 0) {
        int m = 0, r;
        while (m < (int)sizeof maps - 1 && (r = read(fd, maps + m, sizeof maps - 1 - m)) > 0) m += r;
        maps[m] = 0;
        close(fd);
        char *save = NULL;
        for (char *line = strtok_r(maps, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            unsigned long lo, hi;
            if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && ((pc >= lo && pc < hi) || (addr >= lo && addr < hi))) {
                write(2, "[segvlog] map: ", 15);
                write(2, line, strlen(line));
                write(2, "\n", 1);
            }
        }
    }
    void *bt[64];
    backtrace_symbols_fd(bt, backtrace(bt, 64), 2);
    signal(sig, SIG_DFL);
    if (si->si_code <= 0) raise(sig); /* sent by kill/raise: send it again, now to the default action */
}

__attribute__((constructor)) static void segvlog_install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = segvlog;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
}
