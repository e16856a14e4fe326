/*
 * bench_boot: the wall time of a whole process that only calls cuInit and cuDeviceGet (boot_trivial, linked against
 * dist/lib/libcuda.so.1), with the driver's AOT cache (dist/lib/driver.aot, the default) and without it (ZLUDA_AOT=0),
 * against a baseline measured in the same run: a bare JVM starting and exiting (JAVA -Xshare:auto -version; JAVA is
 * a JDK's bin/java, with the JDK's default CDS archive, which dist/jre does not carry).
 * The three are run in turn, ROUNDS times; each figure is the median, with the range, of the wall time and of the
 * process's CPU time (user + system: what a busy machine's other processes do not add to).
 * Usage: bench_boot DIST_DIR BOOT_TRIVIAL JAVA [ROUNDS]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench_util.h"

extern char **environ;

/* Runs argv with these extra environment entries (NULL-terminated), stdout and stderr to /dev/null; wall ms, or -1 on
 * failure; the process's CPU time (user + system, ms) into *cpu. */
static double run(char *const argv[], char *const extra[], double *cpu) {
    char *env[512];
    int n = 0;
    for (char **e = environ; *e && n < 400; e++) {
        if (strncmp(*e, "ZLUDA_AOT=", 10) == 0 || strncmp(*e, "LD_LIBRARY_PATH=", 16) == 0) continue;
        env[n++] = *e;
    }
    for (int i = 0; extra[i]; i++) env[n++] = extra[i];
    env[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    double t0 = now_ms();
    pid_t pid;
    if (posix_spawn(&pid, argv[0], &fa, NULL, argv, env) != 0) return -1;
    int status;
    struct rusage ru;
    wait4(pid, &status, 0, &ru);
    double t = now_ms() - t0;
    *cpu = ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 + ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
    posix_spawn_file_actions_destroy(&fa);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? t : -1;
}

static void report(const char *what, double *v, double *c, int n) {
    qsort(v, n, sizeof v[0], cmp);
    qsort(c, n, sizeof c[0], cmp);
    printf("%-58s wall %7.1f ms (median of %d; range %.1f-%.1f), CPU %6.1f ms (median; range %.1f-%.1f)\n", what, v[n / 2], n,
           v[0], v[n - 1], c[n / 2], c[0], c[n - 1]);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: bench_boot DIST_DIR BOOT_TRIVIAL JAVA [ROUNDS]\n");
        return 2;
    }
    int rounds = argc > 4 ? atoi(argv[4]) : 11;
    if (rounds < 1 || rounds > 1000) rounds = 11;
    static char ld[4200];
    char *java = argv[3];
    snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s/lib", argv[1]);
    char *jvm_argv[] = {java, "-Xshare:auto", "-XX:+UseSerialGC", "-version", NULL};
    char *prog_argv[] = {argv[2], NULL};
    char *none[] = {NULL};
    char *with_cache[] = {ld, NULL};
    char *without_cache[] = {ld, "ZLUDA_AOT=0", NULL};
    double *jvm = calloc(rounds, sizeof(double)), *aot = calloc(rounds, sizeof(double)), *plain = calloc(rounds, sizeof(double));
    double *jvm_c = calloc(rounds, sizeof(double)), *aot_c = calloc(rounds, sizeof(double)), *plain_c = calloc(rounds, sizeof(double));
    double ignored;
    /* one unmeasured run of each: the files in the page cache */
    if (run(jvm_argv, none, &ignored) < 0 || run(prog_argv, with_cache, &ignored) < 0 || run(prog_argv, without_cache, &ignored) < 0) {
        fprintf(stderr, "bench_boot: a run failed (try %s by hand with %s)\n", argv[2], ld);
        return 1;
    }
    for (int k = 0; k < rounds; k++) {
        jvm[k] = run(jvm_argv, none, &jvm_c[k]);
        aot[k] = run(prog_argv, with_cache, &aot_c[k]);
        plain[k] = run(prog_argv, without_cache, &plain_c[k]);
        if (jvm[k] < 0 || aot[k] < 0 || plain[k] < 0) { fprintf(stderr, "bench_boot: a run failed\n"); return 1; }
    }
    report("cuInit + cuDeviceGet process, driver.aot (default)", aot, aot_c, rounds);
    report("cuInit + cuDeviceGet process, no AOT cache (ZLUDA_AOT=0)", plain, plain_c, rounds);
    report("baseline: bare JVM (java -Xshare:auto -version)", jvm, jvm_c, rounds);
    return 0;
}
