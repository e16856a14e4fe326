/*
 * Runs the texture/surface/launch-state conformance cases (TextureCases, zluda-runtime test sources) on
 * an NVIDIA GPU through the CUDA driver API and writes what the GPU computed.
 *
 * usage: texture_harness DIR
 *   DIR/cases.txt       one line per case (TextureCases.Case#line)
 *   DIR/c/NNN.ptx       the case's module (entry "k")
 *   DIR/c/NNN.tex       texel data, rows packed
 *   DIR/c/NNN.arg       eight 32-bit words per thread
 * writes
 *   DIR/out.bin         per case, outBytes bytes (zeros when the case failed)
 *   DIR/status.txt      per case: name, the step that failed (or "ok") and its CUresult
 *   DIR/info.txt        driver version, device name and attributes
 *
 * build: gcc -O2 -o texture_harness texture_harness.c -I/usr/local/cuda/include -lcuda
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

static char dir[4096];
static CUcontext ctx;
static CUdevice dev;

static void *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) { *len = 0; return calloc(1, 1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(n + 1);
    if (fread(b, 1, n, f) != (size_t) n) n = 0;
    b[n] = 0;
    fclose(f);
    *len = n;
    return b;
}

typedef struct {
    char name[256];
    int res, dims, w, h, d, format, channels, obj, am[3], filter, flags;
    unsigned border[4];
    int grid[3], block[3], dynSmem, readback, outBytes, pitch;
} Case;

static int fmtSize(int f) {
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8: case CU_AD_FORMAT_SIGNED_INT8: return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16: case CU_AD_FORMAT_SIGNED_INT16: case CU_AD_FORMAT_HALF: return 2;
    default: return 4;
    }
}

#define STEP(s, call) do { step = s; rc = (call); if (rc != CUDA_SUCCESS) goto done; } while (0)

/* copies between host memory (rows packed) and a CUDA array of 1, 2 or 3 dimensions */
static CUresult arrayCopy(const Case *c, CUarray arr, void *host, int toArray) {
    size_t rowBytes = (size_t) c->w * fmtSize(c->format) * c->channels;
    if (c->dims == 1) {
        return toArray ? cuMemcpyHtoA(arr, 0, host, rowBytes) : cuMemcpyAtoH(host, arr, 0, rowBytes);
    }
    if (c->dims == 2) {
        CUDA_MEMCPY2D m;
        memset(&m, 0, sizeof m);
        if (toArray) {
            m.srcMemoryType = CU_MEMORYTYPE_HOST; m.srcHost = host; m.srcPitch = rowBytes;
            m.dstMemoryType = CU_MEMORYTYPE_ARRAY; m.dstArray = arr;
        } else {
            m.srcMemoryType = CU_MEMORYTYPE_ARRAY; m.srcArray = arr;
            m.dstMemoryType = CU_MEMORYTYPE_HOST; m.dstHost = host; m.dstPitch = rowBytes;
        }
        m.WidthInBytes = rowBytes;
        m.Height = c->h;
        return cuMemcpy2D(&m);
    }
    CUDA_MEMCPY3D m;
    memset(&m, 0, sizeof m);
    if (toArray) {
        m.srcMemoryType = CU_MEMORYTYPE_HOST; m.srcHost = host; m.srcPitch = rowBytes; m.srcHeight = c->h;
        m.dstMemoryType = CU_MEMORYTYPE_ARRAY; m.dstArray = arr;
    } else {
        m.srcMemoryType = CU_MEMORYTYPE_ARRAY; m.srcArray = arr;
        m.dstMemoryType = CU_MEMORYTYPE_HOST; m.dstHost = host; m.dstPitch = rowBytes; m.dstHeight = c->h;
    }
    m.WidthInBytes = rowBytes;
    m.Height = c->h;
    m.Depth = c->d;
    return cuMemcpy3D(&m);
}

static void resetContext(void) {
    cuCtxSetCurrent(NULL);
    cuDevicePrimaryCtxRelease(dev);
    cuDevicePrimaryCtxReset(dev);
    cuDevicePrimaryCtxRetain(&ctx, dev);
    cuCtxSetCurrent(ctx);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    char path[8192];
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx)) {
        fprintf(stderr, "no CUDA device\n");
        return 1;
    }
    snprintf(path, sizeof path, "%s/info.txt", dir);
    FILE *info = fopen(path, "w");
    int ver = 0;
    cuDriverGetVersion(&ver);
    char devName[256];
    cuDeviceGetName(devName, sizeof devName, dev);
    fprintf(info, "driver %d\ndevice %s\n", ver, devName);
    int attrs[] = {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT,
                   CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH,
                   CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH,
                   CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
                   CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR};
    const char *attrNames[] = {"MULTIPROCESSOR_COUNT", "TEXTURE_ALIGNMENT", "TEXTURE_PITCH_ALIGNMENT", "SURFACE_ALIGNMENT",
                               "MAXIMUM_TEXTURE1D_WIDTH", "MAXIMUM_TEXTURE2D_WIDTH", "MAXIMUM_TEXTURE2D_HEIGHT", "MAXIMUM_TEXTURE3D_WIDTH",
                               "MAXIMUM_TEXTURE1D_LINEAR_WIDTH", "MAXIMUM_SHARED_MEMORY_PER_MULTIPROCESSOR", "MAX_THREADS_PER_MULTIPROCESSOR"};
    for (unsigned i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        int v = 0;
        cuDeviceGetAttribute(&v, attrs[i], dev);
        fprintf(info, "%s %d\n", attrNames[i], v);
    }

    snprintf(path, sizeof path, "%s/cases.txt", dir);
    FILE *cf = fopen(path, "r");
    snprintf(path, sizeof path, "%s/out.bin", dir);
    FILE *out = fopen(path, "wb");
    snprintf(path, sizeof path, "%s/status.txt", dir);
    FILE *status = fopen(path, "w");
    if (!cf || !out || !status) { fprintf(stderr, "cannot open files in %s\n", dir); return 1; }
    Case c;
    int index = 0, failed = 0;
    while (fscanf(cf, "%255s %d %d %d %d %d %d %d %d %d %d %d %d %d %u %u %u %u %d %d %d %d %d %d %d %d %d %d",
                  c.name, &c.res, &c.dims, &c.w, &c.h, &c.d, &c.format, &c.channels, &c.obj, &c.am[0], &c.am[1], &c.am[2],
                  &c.filter, &c.flags, &c.border[0], &c.border[1], &c.border[2], &c.border[3], &c.grid[0], &c.grid[1], &c.grid[2],
                  &c.block[0], &c.block[1], &c.block[2], &c.dynSmem, &c.readback, &c.outBytes, &c.pitch) == 28) {
        size_t texLen, argLen, ptxLen;
        snprintf(path, sizeof path, "%s/c/%03d.tex", dir, index);
        void *tex = slurp(path, &texLen);
        snprintf(path, sizeof path, "%s/c/%03d.arg", dir, index);
        void *args = slurp(path, &argLen);
        snprintf(path, sizeof path, "%s/c/%03d.ptx", dir, index);
        char *ptx = slurp(path, &ptxLen);
        index++;
        unsigned char *result = calloc(1, c.outBytes + 16);
        const char *step = "ok";
        CUresult rc = CUDA_SUCCESS;
        CUarray arr = NULL;
        CUdeviceptr mem = 0, dArgs = 0, dOut = 0;
        CUtexObject tobj = 0;
        CUsurfObject sobj = 0;
        CUmodule mod = NULL;
        CUfunction fn;
        int es = fmtSize(c.format) * c.channels;
        unsigned long long objHandle = 0;
        char log[8192] = "";
        CUDA_RESOURCE_DESC rd;
        memset(&rd, 0, sizeof rd);
        if (c.res == 1) {
            if (c.obj == 2 || c.dims == 3) {
                CUDA_ARRAY3D_DESCRIPTOR ad;
                memset(&ad, 0, sizeof ad);
                ad.Width = c.w;
                ad.Height = c.dims >= 2 ? c.h : 0;
                ad.Depth = c.dims == 3 ? c.d : 0;
                ad.Format = c.format;
                ad.NumChannels = c.channels;
                ad.Flags = c.obj == 2 ? CUDA_ARRAY3D_SURFACE_LDST : 0;
                STEP("cuArray3DCreate", cuArray3DCreate(&arr, &ad));
            } else {
                CUDA_ARRAY_DESCRIPTOR ad;
                memset(&ad, 0, sizeof ad);
                ad.Width = c.w;
                ad.Height = c.dims == 2 ? c.h : 1;
                ad.Format = c.format;
                ad.NumChannels = c.channels;
                STEP("cuArrayCreate", cuArrayCreate(&arr, &ad));
            }
            STEP("copy to array", arrayCopy(&c, arr, tex, 1));
            rd.resType = CU_RESOURCE_TYPE_ARRAY;
            rd.res.array.hArray = arr;
        } else if (c.res == 2) {
            STEP("cuMemAlloc", cuMemAlloc(&mem, texLen));
            STEP("cuMemcpyHtoD", cuMemcpyHtoD(mem, tex, texLen));
            rd.resType = CU_RESOURCE_TYPE_LINEAR;
            rd.res.linear.devPtr = mem;
            rd.res.linear.format = c.format;
            rd.res.linear.numChannels = c.channels;
            rd.res.linear.sizeInBytes = texLen;
        } else if (c.res == 3) {
            STEP("cuMemAlloc", cuMemAlloc(&mem, (size_t) c.pitch * c.h + 512));
            CUdeviceptr base = (mem + 511) & ~(CUdeviceptr) 511;
            CUDA_MEMCPY2D m;
            memset(&m, 0, sizeof m);
            m.srcMemoryType = CU_MEMORYTYPE_HOST; m.srcHost = tex; m.srcPitch = (size_t) c.w * es;
            m.dstMemoryType = CU_MEMORYTYPE_DEVICE; m.dstDevice = base; m.dstPitch = c.pitch;
            m.WidthInBytes = (size_t) c.w * es;
            m.Height = c.h;
            STEP("cuMemcpy2D HtoD", cuMemcpy2D(&m));
            rd.resType = CU_RESOURCE_TYPE_PITCH2D;
            rd.res.pitch2D.devPtr = base;
            rd.res.pitch2D.format = c.format;
            rd.res.pitch2D.numChannels = c.channels;
            rd.res.pitch2D.width = c.w;
            rd.res.pitch2D.height = c.h;
            rd.res.pitch2D.pitchInBytes = c.pitch;
        }
        if (c.obj == 1) {
            CUDA_TEXTURE_DESC td;
            memset(&td, 0, sizeof td);
            for (int i = 0; i < 3; i++) td.addressMode[i] = c.am[i];
            td.filterMode = c.filter;
            td.flags = c.flags;
            for (int i = 0; i < 4; i++) memcpy(&td.borderColor[i], &c.border[i], 4);
            STEP("cuTexObjectCreate", cuTexObjectCreate(&tobj, &rd, &td, NULL));
            objHandle = tobj;
        } else if (c.obj == 2) {
            STEP("cuSurfObjectCreate", cuSurfObjectCreate(&sobj, &rd));
            objHandle = sobj;
        }
        {
            CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
            void *vals[] = {log, (void *) (uintptr_t) sizeof log};
            STEP("cuModuleLoadDataEx", cuModuleLoadDataEx(&mod, ptx, 2, opts, vals));
        }
        STEP("cuModuleGetFunction", cuModuleGetFunction(&fn, mod, "k"));
        STEP("cuMemAlloc args", cuMemAlloc(&dArgs, argLen ? argLen : 32));
        if (argLen) STEP("cuMemcpyHtoD args", cuMemcpyHtoD(dArgs, args, argLen));
        STEP("cuMemAlloc out", cuMemAlloc(&dOut, c.outBytes + 16));
        STEP("cuMemsetD8 out", cuMemsetD8(dOut, 0, c.outBytes + 16));
        if (c.dynSmem > 0) STEP("cuFuncSetAttribute", cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, c.dynSmem));
        {
            void *params[] = {&objHandle, &dArgs, &dOut};
            STEP("cuLaunchKernel", cuLaunchKernel(fn, c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1], c.block[2], c.dynSmem, 0, params, NULL));
        }
        STEP("cuCtxSynchronize", cuCtxSynchronize());
        if (c.readback) STEP("copy from array", arrayCopy(&c, arr, result, 0));
        else STEP("cuMemcpyDtoH out", cuMemcpyDtoH(result, dOut, c.outBytes));
    done:
        if (rc != CUDA_SUCCESS) {
            const char *en = "?";
            cuGetErrorName(rc, &en);
            fprintf(status, "%s %s %d %s\n", c.name, step, rc, en);
            if (log[0]) fprintf(status, "  log: %s\n", log);
            memset(result, 0, c.outBytes);
            failed++;
        } else {
            fprintf(status, "%s ok 0\n", c.name);
        }
        fwrite(result, 1, c.outBytes, out);
        if (tobj) cuTexObjectDestroy(tobj);
        if (sobj) cuSurfObjectDestroy(sobj);
        if (arr) cuArrayDestroy(arr);
        if (mem) cuMemFree(mem);
        if (dArgs) cuMemFree(dArgs);
        if (dOut) cuMemFree(dOut);
        if (mod) cuModuleUnload(mod);
        if (rc == CUDA_ERROR_ILLEGAL_ADDRESS || rc == CUDA_ERROR_LAUNCH_FAILED || rc == CUDA_ERROR_ILLEGAL_INSTRUCTION
            || rc == CUDA_ERROR_MISALIGNED_ADDRESS || rc == CUDA_ERROR_HARDWARE_STACK_ERROR) resetContext();
        free(result);
        free(tex);
        free(args);
        free(ptx);
    }
    fclose(out);
    fclose(status);
    fclose(info);
    printf("%d cases, %d failed\n", index, failed);
    return 0;
}
