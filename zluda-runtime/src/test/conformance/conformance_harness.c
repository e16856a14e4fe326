/*
 * Runs the instruction-conformance kernels (dev.zluda.runtime.emulator.conformance.Conformance) on an
 * NVIDIA GPU through the CUDA driver API and writes what the GPU computed.
 *
 * usage: conformance_harness DIR
 *   reads  DIR/forms.txt (lines "index n name"), DIR/ptx/NNNN.ptx, DIR/in.bin (n x 32 input bytes per form)
 *   writes DIR/out.bin (n x 16 output bytes per form, zero for forms that failed),
 *          DIR/status.txt (lines "index CUresult message"), DIR/info.txt (driver version, device)
 * Each form: cuModuleLoadDataEx of its PTX (the JIT error log is kept), cuLaunchKernel of "k" with
 * (in, out, n) on ceil(n/128) blocks of 128 threads, cuCtxSynchronize. A failed launch makes the context
 * unusable (sticky error), so the context is then created anew and the inputs uploaded again.
 * Build: gcc -O2 -o conformance_harness conformance_harness.c -I$CUDA_HOME/include -lcuda
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IN_BYTES 32
#define OUT_BYTES 16
#define MAX_FORMS 10000

static CUdevice dev;
static CUcontext ctx;
static CUdeviceptr din, dout;
static unsigned char *hin;
static size_t in_size, out_size;

static void die(const char *what, CUresult r) {
    const char *s = NULL;
    cuGetErrorName(r, &s);
    fprintf(stderr, "conformance_harness: %s failed: %d %s\n", what, (int) r, s ? s : "?");
    exit(1);
}

static void setup(void) {
    CUresult r;
    if ((r = cuCtxCreate(&ctx, NULL, 0, dev)) != CUDA_SUCCESS) die("cuCtxCreate", r);
    if ((r = cuMemAlloc(&din, in_size)) != CUDA_SUCCESS) die("cuMemAlloc(in)", r);
    if ((r = cuMemAlloc(&dout, out_size)) != CUDA_SUCCESS) die("cuMemAlloc(out)", r);
    if ((r = cuMemcpyHtoD(din, hin, in_size)) != CUDA_SUCCESS) die("cuMemcpyHtoD", r);
    if ((r = cuMemsetD8(dout, 0, out_size)) != CUDA_SUCCESS) die("cuMemsetD8", r);
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(n + 1);
    if (fread(b, 1, n, f) != (size_t) n) { perror(path); exit(1); }
    b[n] = 0;
    fclose(f);
    if (len) *len = n;
    return b;
}

static void oneline(char *s) {
    for (char *p = s; *p; p++) if (*p == '\n' || *p == '\r') *p = ' ';
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: conformance_harness DIR\n"); return 2; }
    const char *dir = argv[1];
    char path[4096];
    static int idx[MAX_FORMS], cnt[MAX_FORMS];
    int forms = 0;
    snprintf(path, sizeof path, "%s/forms.txt", dir);
    FILE *fl = fopen(path, "r");
    if (!fl) { perror(path); return 1; }
    char name[512];
    while (forms < MAX_FORMS && fscanf(fl, "%d %d %511[^\n]", &idx[forms], &cnt[forms], name) == 3) forms++;
    fclose(fl);
    size_t n_all = 0;
    for (int i = 0; i < forms; i++) n_all += cnt[i];
    snprintf(path, sizeof path, "%s/in.bin", dir);
    hin = (unsigned char *) slurp(path, &in_size);
    if (in_size != n_all * IN_BYTES) { fprintf(stderr, "in.bin has %zu bytes, expected %zu\n", in_size, n_all * IN_BYTES); return 1; }
    out_size = n_all * OUT_BYTES;
    unsigned char *hout = calloc(1, out_size);

    CUresult r;
    if ((r = cuInit(0)) != CUDA_SUCCESS) die("cuInit", r);
    if ((r = cuDeviceGet(&dev, 0)) != CUDA_SUCCESS) die("cuDeviceGet", r);
    int drv = 0, maj = 0, min = 0;
    char devname[256] = {0};
    cuDriverGetVersion(&drv);
    cuDeviceGetName(devname, sizeof devname, dev);
    cuDeviceGetAttribute(&maj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    cuDeviceGetAttribute(&min, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    snprintf(path, sizeof path, "%s/info.txt", dir);
    FILE *fi = fopen(path, "w");
    fprintf(fi, "device: %s (sm_%d%d)\ncuDriverGetVersion: %d\nforms: %d\n", devname, maj, min, drv, forms);
    fclose(fi);
    setup();

    snprintf(path, sizeof path, "%s/status.txt", dir);
    FILE *fs = fopen(path, "w");
    size_t inOff = 0, outOff = 0;
    int failed = 0;
    for (int i = 0; i < forms; i++) {
        snprintf(path, sizeof path, "%s/ptx/%04d.ptx", dir, idx[i]);
        char *ptx = slurp(path, NULL);
        char errlog[8192] = {0};
        CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
        void *vals[] = {errlog, (void *) (size_t) sizeof errlog};
        CUmodule mod = NULL;
        CUfunction fn;
        char msg[8400] = {0};
        r = cuModuleLoadDataEx(&mod, ptx, 2, opts, vals);
        free(ptx);
        if (r != CUDA_SUCCESS) {
            snprintf(msg, sizeof msg, "cuModuleLoadDataEx: %s", errlog);
        } else if ((r = cuModuleGetFunction(&fn, mod, "k")) != CUDA_SUCCESS) {
            snprintf(msg, sizeof msg, "cuModuleGetFunction");
        } else {
            CUdeviceptr pin = din + inOff, pout = dout + outOff;
            unsigned int n = (unsigned int) cnt[i];
            void *args[] = {&pin, &pout, &n};
            r = cuLaunchKernel(fn, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL);
            if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
            if (r == CUDA_SUCCESS) r = cuMemcpyDtoH(hout + outOff, pout, (size_t) n * OUT_BYTES);
            if (r != CUDA_SUCCESS) snprintf(msg, sizeof msg, "launch");
        }
        if (r != CUDA_SUCCESS) {
            const char *s = NULL;
            cuGetErrorName(r, &s);
            oneline(msg);
            fprintf(fs, "%d %d %s %s\n", idx[i], (int) r, s ? s : "?", msg);
            memset(hout + outOff, 0, (size_t) cnt[i] * OUT_BYTES);
            failed++;
            if (mod == NULL || strcmp(msg, "launch") == 0) {
                /* a launch failure is sticky: start again with a fresh context */
                if (strcmp(msg, "launch") == 0) {
                    cuCtxDestroy(ctx);
                    setup();
                    mod = NULL;
                }
            }
        } else {
            fprintf(fs, "%d 0\n", idx[i]);
        }
        if (mod) cuModuleUnload(mod);
        inOff += (size_t) cnt[i] * IN_BYTES;
        outOff += (size_t) cnt[i] * OUT_BYTES;
    }
    fclose(fs);
    snprintf(path, sizeof path, "%s/out.bin", dir);
    FILE *fo = fopen(path, "wb");
    fwrite(hout, 1, out_size, fo);
    fclose(fo);
    printf("conformance_harness: %d forms, %d failed, on %s (driver %d)\n", forms, failed, devname, drv);
    return 0;
}
