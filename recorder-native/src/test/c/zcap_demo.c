/*
 * zcap_demo PATH THREADS CALLS close|kill
 *
 * Writes a capture with THREADS threads making CALLS calls each, with a fixed pattern that the
 * Java interop test (cli NativeCaptureInteropTest) checks value by value. Thread t, call i:
 *   i%4 == 0: cuInit(Flags = i)                                                  -> 0
 *   i%4 == 1: cuCtxGetCurrent(pctx = 0x7ffc0000 + 16t)   out *pctx = 0x5555000000 + t      -> 0
 *   i%4 == 2: cuMemAlloc_v2(dptr = 0x7ffc1000 + 16t, bytesize = 1024(i+1))
 *                                                       out *dptr = 0x7f0000000000 + (t<<32) + 4096i
 *                                                       -> 2 (CUDA_ERROR_OUT_OF_MEMORY) when i%10 == 6, else 0
 *   i%4 == 3: cuModuleGetFunction(hfunc = 0x7ffc2000, hmod = 0x5556000000 + t, name = 0x400000 + i%3)
 *             in name: STRING "kernel_<i%3>"            out *hfunc = 0x5557000000 + i%3   -> 0
 * Each thread names itself "worker-<t>" and stores the blob "shared blob" (one BLOB in all).
 * The main thread writes MARKER "demo" first. "close" ends with zcap_close(EXIT, 0); "kill": thread
 * 0 then enters cuInit(Flags = 999) and the process SIGKILLs itself while that call is in flight.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "zcap.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const zcap_function FNS[] = {
    {"cuInit", 1}, {"cuCtxGetCurrent", 1}, {"cuMemAlloc_v2", 2}, {"cuLaunchKernel", 11}, {"cuModuleGetFunction", 3}};

static zcap_writer *W;
static int CALLS, KILL;
static pthread_barrier_t done;

static void *worker(void *arg) {
    uint64_t t = (uint64_t)(uintptr_t)arg;
    zcap_thread *th = zcap_thread_current(W);
    char name[32];
    snprintf(name, sizeof name, "worker-%lu", (unsigned long)t);
    zcap_thread_name(th, 0, name, zcap_now());
    zcap_blob(th, "shared blob", 11, zcap_now());
    for (int i = 0; i < CALLS; i++) {
        uint64_t args[3] = {0};
        uint64_t out = 0;
        zcap_item in[1], o[1];
        size_t nin = 0, nout = 0;
        uint32_t fid, result = 0;
        switch (i % 4) {
        case 0: fid = 0; args[0] = (uint64_t)i; break;
        case 1: fid = 1; args[0] = 0x7ffc0000 + 16 * t; out = 0x5555000000ull + t; nout = 1; break;
        case 2:
            fid = 2; args[0] = 0x7ffc1000 + 16 * t; args[1] = 1024ull * (uint64_t)(i + 1);
            out = 0x7f0000000000ull + (t << 32) + 4096ull * (uint64_t)i; nout = 1;
            if (i % 10 == 6) result = 2;
            break;
        default: {
            fid = 4; args[0] = 0x7ffc2000; args[1] = 0x5556000000ull + t; args[2] = 0x400000 + (uint64_t)(i % 3);
            char kn[16];
            snprintf(kn, sizeof kn, "kernel_%d", i % 3);
            in[0] = (zcap_item){.param = 2, .kind = ZCAP_STRING, .string_id = zcap_intern(th, kn, zcap_now())};
            nin = 1;
            out = 0x5557000000ull + (uint64_t)(i % 3); nout = 1;
        }
        }
        int64_t e = zcap_enter(th, fid, 0, zcap_now(), args, in, nin);
        o[0] = (zcap_item){.param = 0, .kind = ZCAP_INLINE, .data = &out, .len = 8};
        zcap_leave(th, (uint64_t)e, zcap_now(), result, o, nout);
    }
    if (KILL && t == 0) {
        uint64_t a = 999;
        zcap_enter(th, 0, 0, zcap_now(), &a, NULL, 0);
        pthread_barrier_wait(&done);
        for (;;) pause();
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: zcap_demo PATH THREADS CALLS close|kill\n");
        return 2;
    }
    int threads = atoi(argv[2]);
    CALLS = atoi(argv[3]);
    KILL = strcmp(argv[4], "kill") == 0;
    char err[256];
    zcap_options o = {.chunk_size = 64 * 1024, .grow_step = 4u << 20};
    W = zcap_open(argv[1], &o, FNS, sizeof FNS / sizeof FNS[0], err, sizeof err);
    if (!W) { fprintf(stderr, "zcap_demo: %s\n", err); return 1; }
    zcap_marker(zcap_thread_current(W), "demo", zcap_now());
    pthread_barrier_init(&done, NULL, 2);
    pthread_t *ts = calloc((size_t)threads, sizeof *ts);
    for (int t = 0; t < threads; t++) pthread_create(&ts[t], NULL, worker, (void *)(uintptr_t)t);
    if (KILL) {
        for (int t = 1; t < threads; t++) pthread_join(ts[t], NULL);
        pthread_barrier_wait(&done);
        kill(getpid(), SIGKILL);
    }
    for (int t = 0; t < threads; t++) pthread_join(ts[t], NULL);
    if (zcap_close(W, ZCAP_END_EXIT, 0) != 0) { perror("zcap_close"); return 1; }
    free(ts);
    return 0;
}
