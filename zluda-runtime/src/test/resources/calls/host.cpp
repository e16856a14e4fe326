// Loads PTX with the CUDA driver API, runs each kernel on 64 threads (2 CTAs of 32) and prints
// "kernel index input output" lines; inputs are in[i] = (i * 37 + 11) % 97.
#include <cuda.h>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <vector>
#include <string>

#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_ = 0; cuGetErrorName(r_, &s_); printf("error %s %d at %s\n", s_, (int) r_, #x); exit(1); } } while (0)

static std::string slurp(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) { printf("cannot open %s\n", path); exit(1); }
    std::string s; char buf[65536]; size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
    fclose(f);
    return s;
}

static CUmodule load(const char* path) {
    std::string src = slurp(path);
    CUmodule m;
    char log[8192] = {0};
    CUjit_option o[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* v[] = {log, (void*) (size_t) sizeof log};
    CUresult r = cuModuleLoadDataEx(&m, src.c_str(), 2, o, v);
    if (r != CUDA_SUCCESS) { printf("load %s failed %d: %s\n", path, (int) r, log); exit(1); }
    return m;
}

int main(int argc, char** argv) {
    const int N = 64;
    CK(cuInit(0));
    CUdevice dev; CK(cuDeviceGet(&dev, 0));
    CUcontext ctx; CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
    size_t stack = 0; CK(cuCtxGetLimit(&stack, CU_LIMIT_STACK_SIZE));
    printf("# CU_LIMIT_STACK_SIZE %zu\n", stack);
    int in[N];
    for (int i = 0; i < N; i++) in[i] = (i * 37 + 11) % 97;
    CUdeviceptr din, dout;
    CK(cuMemAlloc(&din, N * 4)); CK(cuMemAlloc(&dout, 3 * N * 4));
    CK(cuMemcpyHtoD(din, in, N * 4));
    struct K { const char* file; const char* name; int mod; char fmt; int outs; };
    std::vector<K> ks = {{"calls.ptx", "fib_kernel", 19, 'd', 1}, {"calls.ptx", "ack_kernel", 0, 'u', 1},
        {"calls.ptx", "rsum_kernel", 0, 'd', 1}, {"calls.ptx", "fptr_kernel", 0, 'f', 1},
        {"alloca.ptx", "alloca_kernel", 0, 'd', 1}, {"stack.ptx", "stack_kernel", 0, 'd', 3}};
    for (auto& k : ks) {
        FILE* t = fopen(k.file, "rb");
        if (!t) { printf("# %s: no %s\n", k.name, k.file); continue; }
        fclose(t);
        CUmodule m = load(k.file);
        CUfunction f; CK(cuModuleGetFunction(&f, m, k.name));
        int kin[N];
        for (int i = 0; i < N; i++) kin[i] = k.mod ? in[i] % k.mod : in[i];
        CK(cuMemcpyHtoD(din, kin, N * 4));
        CK(cuMemsetD8(dout, 0, 3 * N * 4));
        void* args[] = {&din, &dout};
        bool one = !strcmp(k.name, "stack_kernel");
        CK(cuLaunchKernel(f, one ? 1 : 2, 1, 1, one ? 64 : 32, 1, 1, 0, 0, args, 0));
        CK(cuCtxSynchronize());
        unsigned out[3 * N];
        CK(cuMemcpyDtoH(out, dout, 3 * N * 4));
        for (int j = 0; j < k.outs; j++)
            for (int i = 0; i < N; i++) {
                unsigned o = out[j * N + i];
                if (k.fmt == 'f') { float x; memcpy(&x, &o, 4); printf("%s %d %d %08x %.9g\n", k.name, j * N + i, kin[i], o, x); }
                else if (k.fmt == 'u') printf("%s %d %d %u\n", k.name, j * N + i, kin[i], o);
                else printf("%s %d %d %d\n", k.name, j * N + i, kin[i], (int) o);
            }
    }
    // stack overflow: deep recursion with a 64-byte local array per level, run last (the context is lost)
    {
        CUmodule m = load("calls.ptx");
        CUfunction f; CK(cuModuleGetFunction(&f, m, "overflow_kernel"));
        for (int depth : {5, 1000000}) {
            void* args[] = {&dout, &depth};
            CUresult r = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, args, 0);
            CUresult s = r == CUDA_SUCCESS ? cuCtxSynchronize() : r;
            const char* name = 0; cuGetErrorName(s, &name);
            if (s == CUDA_SUCCESS) {
                int out[32]; CK(cuMemcpyDtoH(out, dout, 32 * 4));
                printf("overflow_kernel depth %d result %s out0 %d out31 %d\n", depth, name, out[0], out[31]);
            } else {
                printf("overflow_kernel depth %d result %s %d\n", depth, name, (int) s);
            }
        }
    }
    return 0;
}
