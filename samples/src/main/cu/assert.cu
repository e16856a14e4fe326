// Device-side assert. A kernel checks its input with assert(); one element is bad on purpose.
// CUDA's rules (Programming Guide, "Assertion"): the failing thread prints
// "file:line: function: block: [x,y,z], thread: [x,y,z] Assertion `cond` failed." on stderr, the
// kernel stops, and the next synchronisation returns cudaErrorAssert (710). The error is sticky:
// every later call fails until cudaDeviceReset, after which the device works again.
#include "common.cuh"
#include <cassert>
#include <string>
#include <unistd.h>

static const int assertLine = __LINE__ + 5;  // the line of the assert below
__global__ void checkPositive(const int *data, int n, int *sum) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        // every element must be positive
        assert(data[i] > 0);
        atomicAdd(sum, data[i]);
    }
}

static int run(int n, int bad, int *result) {
    int *h = new int[n];
    for (int i = 0; i < n; i++) h[i] = (i == bad || (bad >= 0 && i == bad + 1)) ? -5 : 1;
    int *d, *sum;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    CHECK(cudaMalloc(&sum, sizeof(int)));
    CHECK(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(sum, 0, sizeof(int)));
    checkPositive<<<(n + 63) / 64, 64>>>(d, n, sum);
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    delete[] h;
    if (launch != cudaSuccess) return launch;
    if (sync != cudaSuccess) return sync;
    CHECK(cudaMemcpy(result, sum, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    CHECK(cudaFree(sum));
    return cudaSuccess;
}

int main() {
    start("assert");
    int sum = 0;
    int r = run(200, -1, &sum);
    EXPECT(r == cudaSuccess && sum == 200, "all positive: status %d, sum %d (expected 0, 200)", r, sum);

    printf("failing assertions in block 2, threads 5 and 6 (elements 133, 134) follow\n");
    // stderr goes to a temporary file while the kernel runs, so the messages can be checked
    char path[] = "/tmp/assert-sample-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) { perror("mkstemp"); return 2; }
    fflush(stderr);
    int savedErr = dup(2);
    dup2(fd, 2);
    r = run(200, 133, &sum);
    fflush(stderr);
    dup2(savedErr, 2);
    close(savedErr);
    std::string err;
    char b[4096];
    lseek(fd, 0, SEEK_SET);
    ssize_t k;
    while ((k = read(fd, b, sizeof b)) > 0) err.append(b, (size_t)k);
    close(fd);
    unlink(path);
    fputs(err.c_str(), stderr);  // show them
    EXPECT(r == cudaErrorAssert, "the failed assertion gives %s (%d), expected cudaErrorAssert (710)", cudaGetErrorName((cudaError_t)r), r);
    printf("cudaDeviceSynchronize after the assertion: %s\n", cudaGetErrorName((cudaError_t)r));
    for (int t = 5; t <= 6; t++) {
        char want[256];
        snprintf(want, sizeof want, "%s:%d: void checkPositive(const int *, int, int *): block: [2,0,0], thread: [%d,0,0] Assertion `data[i] > 0` failed.",
                 __FILE__, assertLine, t);
        EXPECT(err.find(want) != std::string::npos, "stderr lacks the message of thread %d:\n  expected %s\n  stderr was:\n%s", t, want, err.c_str());
    }
    printf("assertion messages on stderr: %s\n", g_failures ? "missing" : "one per failing thread");

    // sticky: the context is unusable until it is reset
    int *p = nullptr;
    cudaError_t again = cudaMalloc(&p, 16);
    EXPECT(again == cudaErrorAssert, "cudaMalloc after the assertion gives %s, expected cudaErrorAssert (the error is sticky)", cudaGetErrorName(again));
    CHECK(cudaDeviceReset());
    cudaGetLastError();  // cudart keeps the last error of the calls above; take it before the next run
    printf("cudaDeviceReset: ok\n");

    // the device works again, the kernel's module is loaded anew
    r = run(300, -1, &sum);
    EXPECT(r == cudaSuccess && sum == 300, "after cudaDeviceReset: status %d, sum %d (expected 0, 300)", r, sum);
    printf("kernel after the reset: sum %d\n", sum);
    return finish("assert");
}
