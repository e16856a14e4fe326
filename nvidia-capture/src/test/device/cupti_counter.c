/*
 * cupti_counter.so: counts the driver API calls of a process with NVIDIA's CUPTI callback API,
 * independently of zluda's tracer. Loaded by NVIDIA's driver at cuInit through
 * CUDA_INJECTION64_PATH; at exit writes "functionName<TAB>count" per driver function to
 * $CUPTI_COUNTS_OUT (default cupti_counts.tsv). Calls made before the driver loads it (before the
 * first cuInit returns) are not seen. Build: gcc -shared -fPIC -I$CUDA/include cupti_counter.c
 * -L$CUDA/lib64 -lcupti -o cupti_counter.so
 */
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_CBID 4096
static unsigned long long counts[MAX_CBID];
static const char *names[MAX_CBID];

static void CUPTIAPI on_call(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data) {
    (void)user;
    const CUpti_CallbackData *d = data;
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API || d->callbackSite != CUPTI_API_ENTER || cbid >= MAX_CBID) return;
    __atomic_fetch_add(&counts[cbid], 1, __ATOMIC_RELAXED);
    if (!names[cbid]) names[cbid] = d->functionName;
}

static void write_counts(void) {
    const char *path = getenv("CUPTI_COUNTS_OUT");
    FILE *f = fopen(path && *path ? path : "cupti_counts.tsv", "w");
    if (!f) return;
    for (int i = 0; i < MAX_CBID; i++) if (counts[i] && names[i]) fprintf(f, "%s\t%llu\n", names[i], counts[i]);
    fclose(f);
}

int InitializeInjection(void) {
    CUpti_SubscriberHandle s;
    if (cuptiSubscribe(&s, on_call, NULL) != CUPTI_SUCCESS) { fprintf(stderr, "cupti_counter: cuptiSubscribe failed\n"); return 0; }
    if (cuptiEnableDomain(1, s, CUPTI_CB_DOMAIN_DRIVER_API) != CUPTI_SUCCESS) { fprintf(stderr, "cupti_counter: cuptiEnableDomain failed\n"); return 0; }
    atexit(write_counts);
    return 1;
}
