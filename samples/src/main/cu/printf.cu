// Device-side printf. The program sends its own stdout to a temporary file for a while and reads
// back what the kernels printed, then compares it with what the host's printf makes of the same
// formats and values. CUDA's rule (Programming Guide, "Formatted Output"): a kernel's output is
// printed when the host next synchronises (cudaDeviceSynchronize, cudaStreamSynchronize,
// cudaEventSynchronize, a blocking cudaMemcpy, the next launch starting, ...), through the
// process's stdout, so host lines printed between the launch and the synchronisation come first.
#include "common.cuh"
#include <algorithm>
#include <string>
#include <vector>
#include <unistd.h>
#include <sys/stat.h>

// Every printf of the single-thread kernel, usable on the host (P = snprintf into a buffer) and
// on the device (P = printf).
#define ALL_PRINTS(P)                                                                                  \
    P("integers: %d %i %u %x %X %o\n", -42, 17, 3000000000u, 0xbeef, 0xBEEF, 8);                       \
    P("widths: [%5d] [%-5d] [%05d] [%+d] [% d] [%#x] [%#o]\n", 42, 42, 42, 42, 42, 255, 8);            \
    P("64-bit: %lld %llu %llx %ld\n", -123456789012345LL, 18446744073709551615ULL, 0x123456789abcdefULL, \
      -7L);                                                                                            \
    P("floats: %f %.3f %10.4f %-10.2f| %e %.2E\n", 3.14159f, 2.71828, 1.5, -0.25, 12345.678, 0.000123);\
    P("g: %g %g %g %G %g\n", 0.5, 1e20, 2.5e-5, 1e-10, 100.0);                                        \
    P("chars and strings: %c%c [%s] [%8s] [%-8s] [%.3s]\n", 'o', 'k', "device", "pad", "left",         \
      "truncate");                                                                                     \
    P("percent: 100%% done, %d%%\n", 50);                                                              \
    P("no arguments at all\n");

__global__ void formats() {
    ALL_PRINTS(printf)
}

__global__ void manyThreads(int tag) {
    printf("tag %d block %d thread %d: %d\n", tag, blockIdx.x, threadIdx.x, blockIdx.x * 1000 + threadIdx.x * threadIdx.x);
}

static std::string expectedFormats() {
    char buf[4096];
    size_t pos = 0;
#define HOST_P(...) pos += snprintf(buf + pos, sizeof buf - pos, __VA_ARGS__)
    ALL_PRINTS(HOST_P)
#undef HOST_P
    return std::string(buf, pos);
}

static std::vector<std::string> lines(const std::string &s) {
    std::vector<std::string> out;
    size_t a = 0;
    while (a < s.size()) {
        size_t b = s.find('\n', a);
        if (b == std::string::npos) b = s.size();
        out.push_back(s.substr(a, b - a));
        a = b + 1;
    }
    return out;
}

static int savedStdout = -1, captureFd = -1;
static char capturePath[] = "/tmp/printf-sample-XXXXXX";

static void beginCapture() {
    fflush(stdout);
    captureFd = mkstemp(capturePath);
    if (captureFd < 0) { perror("mkstemp"); exit(2); }
    savedStdout = dup(1);
    dup2(captureFd, 1);
}

static long capturedSize() {
    fflush(stdout);
    struct stat st;
    fstat(captureFd, &st);
    return (long)st.st_size;
}

static std::string endCapture() {
    fflush(stdout);
    dup2(savedStdout, 1);
    close(savedStdout);
    std::string text;
    char b[4096];
    lseek(captureFd, 0, SEEK_SET);
    ssize_t k;
    while ((k = read(captureFd, b, sizeof b)) > 0) text.append(b, (size_t)k);
    close(captureFd);
    unlink(capturePath);
    return text;
}

int main() {
    start("printf");
    std::string want = expectedFormats();

    beginCapture();
    printf("host: before the launch\n");
    formats<<<1, 1>>>();
    cudaError_t launch = cudaGetLastError();
    long afterLaunch = capturedSize();
    printf("host: after the launch\n");
    cudaError_t sync = cudaDeviceSynchronize();
    long afterSync = capturedSize();
    manyThreads<<<3, 40>>>(1);
    cudaError_t sync2 = cudaStreamSynchronize(0);
    std::string got = endCapture();

    CHECK(launch);
    CHECK(sync);
    CHECK(sync2);
    EXPECT(afterLaunch == (long)strlen("host: before the launch\n"),
           "before any synchronisation the capture holds %ld bytes, expected only the host's first line", afterLaunch);
    EXPECT(afterSync > afterLaunch, "nothing printed by the kernel after cudaDeviceSynchronize");
    std::string head = "host: before the launch\nhost: after the launch\n";
    EXPECT(got.compare(0, head.size(), head) == 0, "the host's lines do not come first:\n%s", got.c_str());
    std::string body = got.size() >= head.size() ? got.substr(head.size(), want.size()) : "";
    if (body != want) {
        std::vector<std::string> g = lines(body), w = lines(want);
        for (size_t i = 0; i < std::max(g.size(), w.size()); i++) {
            std::string gl = i < g.size() ? g[i] : "(missing)", wl = i < w.size() ? w[i] : "(missing)";
            if (gl != wl) EXPECT(false, "device printf line %zu:\n  got      [%s]\n  expected [%s]", i + 1, gl.c_str(), wl.c_str());
        }
    } else {
        printf("formats: %zu lines as the host's printf prints them\n", lines(want).size());
    }

    // 120 threads, one line each, in no particular order
    std::vector<std::string> rest = lines(got.size() >= head.size() + want.size() ? got.substr(head.size() + want.size()) : "");
    std::vector<std::string> expectLines;
    for (int b = 0; b < 3; b++)
        for (int t = 0; t < 40; t++) {
            char l[128];
            snprintf(l, sizeof l, "tag 1 block %d thread %d: %d", b, t, b * 1000 + t * t);
            expectLines.push_back(l);
        }
    std::sort(rest.begin(), rest.end());
    std::sort(expectLines.begin(), expectLines.end());
    EXPECT(rest == expectLines, "manyThreads printed %zu lines, expected the %zu lines of 3 blocks x 40 threads", rest.size(), expectLines.size());
    if (rest == expectLines) printf("manyThreads: 120 lines, one per thread\n");

    // without a synchronisation nothing appears; a blocking copy flushes the output
    manyThreads<<<1, 2>>>(2);
    int *d, h = 0;
    CHECK(cudaMalloc(&d, sizeof(int)));
    CHECK(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    return finish("printf");
}
