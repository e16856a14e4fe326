/*
 * Runs the instruction sweep (dev.zluda.runtime.emulator.conformance.Sweep) on an NVIDIA GPU through the CUDA
 * driver API: for each form, generates its inputs (the same counter-based generator as SweepValues.java: the
 * inputs are never shipped), runs its PTX as compiled by the driver's JIT, hashes the outputs per block of 1024
 * tuples (CRC-32, as java.util.zip.CRC32), and runs the LLVM lowering of the same form (PTX that LLVM's NVPTX
 * back end made of the IR zluda's PTX compiler emits; "llvm" and "amd" variants) on the same inputs, comparing its
 * outputs with the native ones tuple by tuple.
 *
 * usage: sweep_harness DIR OUTDIR SHARD NSHARDS [FROM]
 *   DIR/classes.txt  value classes: "id bits kind param div nspecials special..." (hex specials)
 *   DIR/forms.txt    "index tuples inStride wordBytes outStride mode seed k (class uniform)*k dump llvm amd ulp"
 *                    (ulp: 0 for an exact form, else the format of an approximate one's slot 0: 1 f32, 2 f64, 3 f16,
 *                    4 bf16, 5 f16x2, 6 bf16x2, as Conformance.Ulp)
 *   DIR/ptx/N.ptx    the form's PTX (kernel k); DIR/llvm/N.ptx, DIR/amd/N.ptx its lowerings (when llvm/amd is 1)
 *   DIR/want.txt     optional "index block" lines: raw output blocks to dump as well
 *   DIR/emu.bin      optional: the emulator's CRC-32 of each block of each form (SweepEmulatorRun: u32 index, u32
 *                    blocks, u32 crc[blocks]); the blocks in which the GPU computed something else are dumped
 *                    (at most MAX_EMU_DUMPS a form)
 * writes, for the forms with index % NSHARDS == SHARD (from FROM on):
 *   OUTDIR/results-SHARD.tsv  "index native-status input-crc output-crc llvm-status llvm-differ llvm-ulp amd-status
 *                             amd-differ amd-ulp emu-differ" (emu-differ: blocks whose CRC differs from the emulator's,
 *                             -1 without emulator CRCs) (status: 0, or "CUresult:NAME:message"; differ: tuples whose outputs
 *                             differ from native; ulp: for an approximate form the largest distance from native in
 *                             units in the last place, -1 for a NaN disagreement or a differing second slot)
 *   OUTDIR/blocks-SHARD.bin   per form: u32 index, u32 blocks, u32 crc[blocks] (native outputs)
 *   OUTDIR/raw-SHARD.bin      records u32 index, u32 block, u32 bytes, bytes: native outputs of every block of forms
 *                             with dump=1, of the blocks that differ from the emulator's, and of those want.txt names
 *   OUTDIR/differ-SHARD.txt   the first differing tuples of each lowering: inputs, native and lowered outputs
 *   OUTDIR/progress-SHARD.txt the form being run (so that a driver can skip a form that hangs)
 * A form that runs longer than FORM_SECONDS ends the process with status 3 (its driver, record-sweep-h200.sh,
 * records it as a timeout and starts the shard again after it).
 * Build: gcc -O2 -o sweep_harness sweep_harness.c -I$CUDA_HOME/include -lcuda
 *        (gcc -O2 -DINPUTS_ONLY -o sweep_inputs sweep_harness.c: prints "index input-crc" per form, no GPU needed)
 */
#ifndef INPUTS_ONLY
#include <cuda.h>
#endif
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK 1024
#define PRODUCT_CAP 8192
#define CROSS 128
#define RANDOM 16384
#define MAXCLS 256
#define MAXOPS 16

enum { INT = 0, FLOAT = 1, PAIR = 2, SH = 3, BF = 4, BOOL = 5, SEL = 6, ANY = 7, RANGE = 8, ENUM = 9, ENUMSPEC = 10 };

typedef struct {
    int bits, kind;
    long long param, div;
    int ns;
    uint64_t *sp;
} cls_t;

static cls_t C[MAXCLS];

typedef struct {
    int index;
    long long tuples;
    int inStride, wordBytes, outStride, mode;
    uint64_t seed;
    int k, cls[MAXOPS], uni[MAXOPS];
    int dump, llvm, amd, ulp;
} form_t;

/* ------------------------------------------------------------------ CRC-32 (IEEE 802.3, as java.util.zip.CRC32) */
static uint32_t crct[8][256];
static void crc_init(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crct[0][i] = c;
    }
    for (int t = 1; t < 8; t++)
        for (int i = 0; i < 256; i++) crct[t][i] = (crct[t - 1][i] >> 8) ^ crct[0][crct[t - 1][i] & 0xff];
}
static uint32_t crc32u(uint32_t crc, const unsigned char *p, size_t n) {
    crc = ~crc;
    while (n >= 8) {
        uint32_t a = crc ^ ((uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24);
        uint32_t b = (uint32_t) p[4] | (uint32_t) p[5] << 8 | (uint32_t) p[6] << 16 | (uint32_t) p[7] << 24;
        crc = crct[7][a & 0xff] ^ crct[6][(a >> 8) & 0xff] ^ crct[5][(a >> 16) & 0xff] ^ crct[4][a >> 24] ^ crct[3][b & 0xff] ^ crct[2][(b >> 8) & 0xff]
              ^ crct[1][(b >> 16) & 0xff] ^ crct[0][b >> 24];
        p += 8;
        n -= 8;
    }
    while (n--) crc = crct[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

/* ------------------------------------------------------------------ the generator (SweepValues.java) */
static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static inline uint64_t draw(uint64_t seed, uint64_t i, int j, int k) {
    return mix64(seed + i * 0x9E3779B97F4A7C15ULL + (uint64_t) (j * 64 + k + 1) * 0xD1B54A32D192ED03ULL);
}
static inline uint64_t mask(int bits) { return bits == 64 ? ~0ULL : ((1ULL << bits) - 1); }
static inline long long lmax(long long a, long long b) { return a > b ? a : b; }
static inline long long lmin(long long a, long long b) { return a < b ? a : b; }
static int exhaustible(const cls_t *c) { return c->bits <= 16 && (c->kind == INT || c->kind == FLOAT || c->kind == ANY); }

static uint64_t rnd(int cid, uint64_t seed, uint64_t i, int j, int sub, uint64_t prev, int prevCls) {
    const cls_t *c = &C[cid];
    uint64_t r0 = draw(seed, i, j, sub), r1 = draw(seed, i, j, sub + 1), r2 = draw(seed, i, j, sub + 2);
    uint64_t m = mask(c->bits);
    switch (c->kind) {
        case INT: {
            uint64_t s = r0 % 4;
            if (s == 0) return ((uint64_t) ((long long) (r1 % 512) - 256)) & m;
            if (s == 1) return (r1 & m) >> (r2 % (uint64_t) c->bits);
            return r1 & m;
        }
        case FLOAT: {
            int e = (int) c->param, f = c->bits - 1 - e;
            uint64_t fm = (1ULL << f) - 1, sign = (draw(seed, i, j, sub + 3) & 1) ? 1ULL << (c->bits - 1) : 0;
            uint64_t r4 = draw(seed, i, j, sub + 4);
            long long bias = (1LL << (e - 1)) - 1, emax = (1LL << e) - 1;
            switch ((int) (r0 % 6)) {
                case 0: return r1 & m;
                case 1: {
                    long long ex = lmax(0, lmin(emax, bias + (long long) (r2 % 33) - 16));
                    return sign | (uint64_t) ex << f | (r1 & fm);
                }
                case 2: {
                    uint64_t ex = r2 % 3;
                    return sign | ex << f | (r1 & fm) >> (r4 % (uint64_t) f);
                }
                case 3: {
                    long long ex = lmax(1, lmin(emax - 1, bias + (long long) (r2 % 61) - 30));
                    long long keep = lmax(0, f - 1 - (long long) (r4 % 6));
                    return sign | (uint64_t) ex << f | ((r1 & fm) & ~((1ULL << keep) - 1));
                }
                case 4: {
                    uint64_t ex = (uint64_t) (emax - 1) - r2 % (uint64_t) lmin(70, bias);
                    return sign | ex << f | (r1 & fm);
                }
                default: {
                    if (prevCls != cid) return r1 & m;
                    uint64_t sb = 1ULL << (c->bits - 1);
                    uint64_t d = (uint64_t) ((long long) (r4 % 5) - 2);
                    switch ((int) (r2 % 3)) {
                        case 0: return prev ^ sb;
                        case 1: return ((prev ^ sb) + d) & m;
                        default: return (prev + d) & m;
                    }
                }
            }
        }
        case PAIR: {
            int h = (int) c->param;
            int pc = prevCls == cid ? h : -1;
            uint64_t lo = rnd(h, seed, i, j, sub, prev & 0xffff, pc);
            uint64_t hi = rnd(h, seed, i, j, sub + 16, (prev >> 16) & 0xffff, pc);
            return lo | hi << 16;
        }
        case SH: return r0 % 4 == 0 ? r1 & 0xffffffffULL : r1 % 80;
        case BF: return r0 % 8 == 0 ? r1 & 0xffffffffULL : r1 % 70;
        case BOOL: return r1 & 1;
        case SEL: return r0 % 3 == 0 ? r1 & 0xffffffffULL : r1 & 0xffff;
        case RANGE: return r1 % (uint64_t) c->param;
        default: return r1 & m;
    }
}

static uint64_t special(int cid, uint64_t seed, uint64_t i, int j, int k) {
    const cls_t *c = &C[cid];
    return c->sp[draw(seed, i, j, k) % (uint64_t) c->ns];
}

static uint64_t mixed(int cid, uint64_t seed, uint64_t i, int j, int oneIn, uint64_t prev, int prevCls) {
    if (draw(seed, i, j, 41) % (uint64_t) oneIn == 0) return special(cid, seed, i, j, 40);
    return rnd(cid, seed, i, j, 0, prev, prevCls);
}

static int fullProduct(const form_t *f) {
    long long prod = 1;
    for (int j = 0; j < f->k; j++) prod = lmin(0x7fffffffffffffffLL / 1024, prod * C[f->cls[j]].ns);
    return prod <= PRODUCT_CAP;
}

static void segments(const form_t *f, long long s[4]) {
    int k = f->k;
    s[0] = s[1] = s[2] = s[3] = 0;
    if (f->mode == 1) { s[3] = lmax(1, f->tuples); return; }
    if (k == 0) { s[3] = BLOCK; return; }
    if (k == 1 && exhaustible(&C[f->cls[0]])) { s[0] = 1LL << C[f->cls[0]].bits; return; }
    if (fullProduct(f)) {
        long long prod = 1;
        for (int j = 0; j < k; j++) prod *= C[f->cls[j]].ns;
        s[0] = prod;
    } else {
        for (int p = 0; p < k; p++)
            for (int q = p + 1; q < k; q++) s[0] += (long long) C[f->cls[p]].ns * C[f->cls[q]].ns;
    }
    if (k >= 2 && f->mode == 0) {
        for (int j = 0; j < k; j++) {
            if (exhaustible(&C[f->cls[j]])) s[1] += 65536;
            else s[2] += (long long) C[f->cls[j]].ns * CROSS;
        }
    }
    s[3] = RANDOM;
}

static void tuple(const form_t *f, const long long seg[4], uint64_t i, uint64_t *v) {
    int k = f->k;
    uint64_t t = i;
    int which = 3;
    for (int s = 0; s < 4; s++) {
        if ((long long) t < seg[s] || s == 3) { which = s; break; }
        t -= (uint64_t) seg[s];
    }
    uint64_t seed = f->seed, prev = 0;
    int prevCls = -1;
    if (which == 0) {
        if (k == 1 && exhaustible(&C[f->cls[0]])) {
            v[0] = t;
        } else if (fullProduct(f)) {
            uint64_t r = t;
            for (int j = 0; j < k; j++) {
                const cls_t *c = &C[f->cls[j]];
                v[j] = c->sp[r % (uint64_t) c->ns];
                r /= (uint64_t) c->ns;
            }
        } else {
            int pp = -1, qq = -1;
            uint64_t r = t;
            for (int a = 0; a < k && pp < 0; a++)
                for (int b = a + 1; b < k; b++) {
                    uint64_t n = (uint64_t) C[f->cls[a]].ns * (uint64_t) C[f->cls[b]].ns;
                    if (r < n) { pp = a; qq = b; break; }
                    r -= n;
                }
            for (int j = 0; j < k; j++) {
                const cls_t *c = &C[f->cls[j]];
                if (j == pp) v[j] = c->sp[r % (uint64_t) c->ns];
                else if (j == qq) v[j] = c->sp[r / (uint64_t) C[f->cls[pp]].ns];
                else v[j] = special(f->cls[j], seed, i, j, 40);
            }
        }
    } else if (which == 1) {
        int sel = -1;
        uint64_t r = t;
        for (int j = 0; j < k; j++) {
            if (!exhaustible(&C[f->cls[j]])) continue;
            if (r < 65536) { sel = j; break; }
            r -= 65536;
        }
        for (int j = 0; j < k; j++) {
            v[j] = j == sel ? r : mixed(f->cls[j], seed, i, j, 4, prev, prevCls);
            prev = v[j];
            prevCls = f->cls[j];
        }
    } else if (which == 2) {
        int sel = -1;
        uint64_t r = t;
        for (int j = 0; j < k; j++) {
            const cls_t *c = &C[f->cls[j]];
            if (exhaustible(c)) continue;
            uint64_t n = (uint64_t) c->ns * CROSS;
            if (r < n) { sel = j; break; }
            r -= n;
        }
        for (int j = 0; j < k; j++) {
            const cls_t *c = &C[f->cls[j]];
            v[j] = j == sel ? c->sp[r / CROSS] : mixed(f->cls[j], seed, i, j, 8, prev, prevCls);
            prev = v[j];
            prevCls = f->cls[j];
        }
    } else {
        for (int j = 0; j < k; j++) {
            const cls_t *c = &C[f->cls[j]];
            uint64_t idx = f->uni[j] ? i >> 5 : i;
            if (c->kind == ENUM) v[j] = (idx / (uint64_t) c->div) % (uint64_t) c->param;
            else if (c->kind == ENUMSPEC) v[j] = c->sp[(idx / (uint64_t) c->div) % (uint64_t) c->ns];
            else v[j] = mixed(f->cls[j], seed, idx, j, 8, prev, prevCls);
            prev = v[j];
            prevCls = f->cls[j];
        }
    }
}

static void fill(const form_t *f, unsigned char *buf) {
    long long seg[4];
    segments(f, seg);
    uint64_t v[MAXOPS];
    memset(buf, 0, (size_t) f->tuples * f->inStride);
    for (long long i = 0; i < f->tuples; i++) {
        tuple(f, seg, (uint64_t) i, v);
        unsigned char *p = buf + (size_t) i * f->inStride;
        for (int j = 0; j < f->k; j++) {
            uint64_t x = v[j];
            for (int b = 0; b < f->wordBytes; b++) p[j * f->wordBytes + b] = (unsigned char) (x >> (8 * b));
        }
    }
}

/* ------------------------------------------------------------------ distance in ulp (Conformance.ulps) */
static long long ulp1(uint64_t a, uint64_t b, int bits, int expBits) {
    uint64_t sign = 1ULL << (bits - 1);
    uint64_t mag = bits == 64 ? 0x7fffffffffffffffULL : sign - 1;
    uint64_t expMask = ((1ULL << expBits) - 1) << (bits - 1 - expBits);
    int an = (a & mag & expMask) == expMask && (a & mag & ~expMask) != 0;
    int bn = (b & mag & expMask) == expMask && (b & mag & ~expMask) != 0;
    if (an || bn) return an && bn ? 0 : -1;
    long long ia = (a & sign) ? -(long long) (a & mag) : (long long) (a & mag), ib = (b & sign) ? -(long long) (b & mag) : (long long) (b & mag);
    long long d = ia - ib;
    return d < 0 ? -d : d;
}
static long long ulps(int fmt, uint64_t a, uint64_t b) {
    switch (fmt) {
        case 1: return ulp1(a & 0xffffffffULL, b & 0xffffffffULL, 32, 8);
        case 2: return ulp1(a, b, 64, 11);
        case 3: return ulp1(a & 0xffff, b & 0xffff, 16, 5);
        case 4: return ulp1(a & 0xffff, b & 0xffff, 16, 8);
        case 5:
        case 6: {
            int e = fmt == 5 ? 5 : 8;
            long long x = ulp1(a & 0xffff, b & 0xffff, 16, e), y = ulp1((a >> 16) & 0xffff, (b >> 16) & 0xffff, 16, e);
            if (x < 0 || y < 0) return -1;
            return x > y ? x : y;
        }
        default: return -1;
    }
}

/* ------------------------------------------------------------------ files */
static char *slurp(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *b = malloc(n + 1);
    if (fread(b, 1, n, fp) != (size_t) n) { fclose(fp); free(b); return NULL; }
    b[n] = 0;
    fclose(fp);
    if (len) *len = n;
    return b;
}

static void read_classes(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/classes.txt", dir);
    FILE *fp = fopen(path, "r");
    if (!fp) { perror(path); exit(1); }
    int id;
    while (fscanf(fp, "%d", &id) == 1) {
        cls_t *c = &C[id];
        if (fscanf(fp, "%d %d %lld %lld %d", &c->bits, &c->kind, &c->param, &c->div, &c->ns) != 5) { fprintf(stderr, "bad classes.txt\n"); exit(1); }
        c->sp = malloc(sizeof(uint64_t) * (c->ns > 0 ? c->ns : 1));
        for (int s = 0; s < c->ns; s++) {
            unsigned long long x;
            if (fscanf(fp, "%llx", &x) != 1) { fprintf(stderr, "bad classes.txt\n"); exit(1); }
            c->sp[s] = x;
        }
    }
    fclose(fp);
}

static int read_form(FILE *fp, form_t *f) {
    unsigned long long seed;
    if (fscanf(fp, "%d %lld %d %d %d %d %llu %d", &f->index, &f->tuples, &f->inStride, &f->wordBytes, &f->outStride, &f->mode, &seed, &f->k) != 8) return 0;
    f->seed = seed;
    for (int j = 0; j < f->k; j++)
        if (fscanf(fp, "%d %d", &f->cls[j], &f->uni[j]) != 2) return 0;
    if (fscanf(fp, "%d %d %d %d", &f->dump, &f->llvm, &f->amd, &f->ulp) != 4) return 0;
    return 1;
}

#ifdef INPUTS_ONLY
int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: sweep_inputs DIR [INDEX...]\n"); return 2; }
    crc_init();
    read_classes(argv[1]);
    char path[4096];
    snprintf(path, sizeof path, "%s/forms.txt", argv[1]);
    FILE *fp = fopen(path, "r");
    if (!fp) { perror(path); return 1; }
    form_t f;
    while (read_form(fp, &f)) {
        int want = argc == 2;
        for (int a = 2; a < argc; a++) if (atoi(argv[a]) == f.index) want = 1;
        if (!want) continue;
        unsigned char *buf = malloc((size_t) f.tuples * f.inStride);
        fill(&f, buf);
        printf("%d %08x\n", f.index, crc32u(0, buf, (size_t) f.tuples * f.inStride));
        free(buf);
    }
    return 0;
}
#else
/* ------------------------------------------------------------------ the GPU */
static CUdevice dev;
static CUcontext ctx;

static void die(const char *what, CUresult r) {
    const char *s = NULL;
    cuGetErrorName(r, &s);
    fprintf(stderr, "sweep_harness: %s failed: %d %s\n", what, (int) r, s ? s : "?");
    exit(1);
}

static void oneline(char *s) {
    for (char *p = s; *p; p++) if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
}

/* Runs one PTX module on (in, out, n); status text in st (empty: success). Returns the CUresult. */
static CUresult run(const char *ptx, CUdeviceptr din, CUdeviceptr dout, size_t outBytes, unsigned n, unsigned char *hout, char *st, size_t stlen) {
    char errlog[8192] = {0};
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {errlog, (void *) (size_t) sizeof errlog};
    CUmodule mod = NULL;
    CUfunction fn;
    CUresult r;
    const char *name = NULL;
    st[0] = 0;
    if ((r = cuMemsetD8(dout, 0, outBytes)) != CUDA_SUCCESS) { cuGetErrorName(r, &name); snprintf(st, stlen, "%d:%s:memset", (int) r, name ? name : "?"); return r; }
    r = cuModuleLoadDataEx(&mod, ptx, 2, opts, vals);
    if (r != CUDA_SUCCESS) {
        cuGetErrorName(r, &name);
        oneline(errlog);
        snprintf(st, stlen, "%d:%s:load: %.600s", (int) r, name ? name : "?", errlog);
        return r;
    }
    if ((r = cuModuleGetFunction(&fn, mod, "k")) != CUDA_SUCCESS) {
        cuGetErrorName(r, &name);
        snprintf(st, stlen, "%d:%s:cuModuleGetFunction", (int) r, name ? name : "?");
        cuModuleUnload(mod);
        return r;
    }
    void *args[] = {&din, &dout, &n};
    r = cuLaunchKernel(fn, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL);
    if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
    if (r == CUDA_SUCCESS) r = cuMemcpyDtoH(hout, dout, outBytes);
    if (r != CUDA_SUCCESS) {
        cuGetErrorName(r, &name);
        snprintf(st, stlen, "%d:%s:launch", (int) r, name ? name : "?");
        return r;
    }
    cuModuleUnload(mod);
    return r;
}

static void reset_context(void) {
    cuCtxDestroy(ctx);
    CUresult r;
    if ((r = cuCtxCreate(&ctx, NULL, 0, dev)) != CUDA_SUCCESS) die("cuCtxCreate", r);
}

typedef struct { int index, block; } want_t;

#define MAX_EMU_DUMPS 6
/* at most this many bytes of blocks that differ from the emulator's are dumped by one shard */
#define MAX_EMU_DUMP_BYTES (4L << 20)
static long emuDumped;
static uint32_t **emuCrc;
static uint32_t *emuBlocks;
static int emuMax = -1;

static void read_emu(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/emu.bin", dir);
    FILE *fp = fopen(path, "rb");
    if (!fp) return;
    uint32_t hdr[2];
    emuMax = 1 << 16;
    emuCrc = calloc(emuMax, sizeof(uint32_t *));
    emuBlocks = calloc(emuMax, sizeof(uint32_t));
    while (fread(hdr, 4, 2, fp) == 2) {
        uint32_t *c = malloc(4 * (hdr[1] + 1));
        if (fread(c, 4, hdr[1], fp) != hdr[1]) break;
        if ((int) hdr[0] < emuMax) {
            emuCrc[hdr[0]] = c;
            emuBlocks[hdr[0]] = hdr[1];
        }
    }
    fclose(fp);
}

/* a form that runs longer than this is abandoned: the process ends with status 3, its driver goes on with the next */
#define FORM_SECONDS 30
static void on_alarm(int sig) {
    (void) sig;
    _exit(3);
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: sweep_harness DIR OUTDIR SHARD NSHARDS [FROM]\n"); return 2; }
    const char *dir = argv[1], *outdir = argv[2];
    int shard = atoi(argv[3]), nshards = atoi(argv[4]), from = argc > 5 ? atoi(argv[5]) : 0;
    crc_init();
    read_classes(dir);
    char path[4096];
    want_t *want = NULL;
    int nwant = 0;
    snprintf(path, sizeof path, "%s/want.txt", dir);
    FILE *fw = fopen(path, "r");
    if (fw) {
        int a, b, cap = 1024;
        want = malloc(sizeof(want_t) * cap);
        while (fscanf(fw, "%d %d", &a, &b) == 2) {
            if (nwant == cap) want = realloc(want, sizeof(want_t) * (cap *= 2));
            want[nwant].index = a;
            want[nwant++].block = b;
        }
        fclose(fw);
    }
    read_emu(dir);
    CUresult r;
    if ((r = cuInit(0)) != CUDA_SUCCESS) die("cuInit", r);
    if ((r = cuDeviceGet(&dev, 0)) != CUDA_SUCCESS) die("cuDeviceGet", r);
    if ((r = cuCtxCreate(&ctx, NULL, 0, dev)) != CUDA_SUCCESS) die("cuCtxCreate", r);
    if (shard == 0) {
        int drv = 0, maj = 0, min = 0, sms = 0;
        char devname[256] = {0};
        cuDriverGetVersion(&drv);
        cuDeviceGetName(devname, sizeof devname, dev);
        cuDeviceGetAttribute(&maj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
        cuDeviceGetAttribute(&min, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
        cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
        snprintf(path, sizeof path, "%s/info.txt", outdir);
        FILE *fi = fopen(path, "w");
        fprintf(fi, "device: %s (sm_%d%d, %d SMs)\ncuDriverGetVersion: %d\n", devname, maj, min, sms, drv);
        fclose(fi);
    }
    const char *mode = from > 0 ? "a" : "w";
    snprintf(path, sizeof path, "%s/results-%d.tsv", outdir, shard);
    FILE *fres = fopen(path, mode);
    snprintf(path, sizeof path, "%s/blocks-%d.bin", outdir, shard);
    FILE *fblk = fopen(path, from > 0 ? "ab" : "wb");
    snprintf(path, sizeof path, "%s/raw-%d.bin", outdir, shard);
    FILE *fraw = fopen(path, from > 0 ? "ab" : "wb");
    snprintf(path, sizeof path, "%s/differ-%d.txt", outdir, shard);
    FILE *fdif = fopen(path, mode);
    snprintf(path, sizeof path, "%s/forms.txt", dir);
    FILE *fl = fopen(path, "r");
    if (!fres || !fblk || !fraw || !fdif || !fl) { fprintf(stderr, "cannot open files\n"); return 1; }
    signal(SIGALRM, on_alarm);
    form_t f;
    size_t inCap = 0, outCap = 0;
    unsigned char *hin = NULL, *hout = NULL, *hlow = NULL;
    CUdeviceptr din = 0, dout = 0;
    int done = 0;
    while (read_form(fl, &f)) {
        if (f.index % nshards != shard || f.index < from) continue;
        snprintf(path, sizeof path, "%s/progress-%d.txt", outdir, shard);
        FILE *fp = fopen(path, "w");
        fprintf(fp, "%d\n", f.index);
        fclose(fp);
        alarm(FORM_SECONDS);
        size_t inBytes = (size_t) f.tuples * f.inStride, outBytes = (size_t) f.tuples * f.outStride;
        if (inBytes > inCap) { hin = realloc(hin, inBytes); inCap = inBytes; if (din) cuMemFree(din); din = 0; }
        if (outBytes > outCap) { hout = realloc(hout, outBytes); hlow = realloc(hlow, outBytes); outCap = outBytes; if (dout) cuMemFree(dout); dout = 0; }
        fill(&f, hin);
        uint32_t inCrc = crc32u(0, hin, inBytes);
        if (!din && (r = cuMemAlloc(&din, inCap)) != CUDA_SUCCESS) die("cuMemAlloc(in)", r);
        if (!dout && (r = cuMemAlloc(&dout, outCap)) != CUDA_SUCCESS) die("cuMemAlloc(out)", r);
        if ((r = cuMemcpyHtoD(din, hin, inBytes)) != CUDA_SUCCESS) die("cuMemcpyHtoD", r);
        char st[1024], st2[1024] = "-", st3[1024] = "-";
        snprintf(path, sizeof path, "%s/ptx/%d.ptx", dir, f.index);
        char *ptx = slurp(path, NULL);
        if (!ptx) { fprintf(stderr, "no %s\n", path); return 1; }
        memset(hout, 0, outBytes);
        r = run(ptx, din, dout, outBytes, (unsigned) f.tuples, hout, st, sizeof st);
        free(ptx);
        int sticky = r != CUDA_SUCCESS && strstr(st, ":launch") != NULL;
        if (sticky) {
            reset_context();
            din = dout = 0;
            inCap = outCap = 0;
        }
        uint32_t outCrc = crc32u(0, hout, outBytes);
        uint32_t nb = (uint32_t) ((f.tuples + BLOCK - 1) / BLOCK);
        uint32_t hdr[2] = {(uint32_t) f.index, nb};
        fwrite(hdr, 4, 2, fblk);
        int hasEmu = emuMax > 0 && f.index < emuMax && emuCrc[f.index] && emuBlocks[f.index] == nb;
        long long emuDiffer = hasEmu ? 0 : -1;
        for (uint32_t b = 0; b < nb; b++) {
            size_t off = (size_t) b * BLOCK * f.outStride, len = (size_t) lmin(BLOCK, f.tuples - (long long) b * BLOCK) * f.outStride;
            uint32_t c = crc32u(0, hout + off, len);
            fwrite(&c, 4, 1, fblk);
            int dumpIt = f.dump;
            if (hasEmu && emuCrc[f.index][b] != c) {
                if (emuDiffer < MAX_EMU_DUMPS && emuDumped + (long) len <= MAX_EMU_DUMP_BYTES) {
                    dumpIt = 1;
                    emuDumped += (long) len;
                }
                emuDiffer++;
            }
            for (int w = 0; w < nwant && !dumpIt; w++) if (want[w].index == f.index && want[w].block == (int) b) dumpIt = 1;
            if (dumpIt) {
                uint32_t rh[3] = {(uint32_t) f.index, b, (uint32_t) len};
                fwrite(rh, 4, 3, fraw);
                fwrite(hout + off, 1, len, fraw);
            }
        }
        long long differ[2] = {-1, -1}, maxulp[2] = {0, 0};
        for (int v = 0; v < 2; v++) {
            if (!(v == 0 ? f.llvm : f.amd)) continue;
            char *stv = v == 0 ? st2 : st3;
            if (!din) {
                if ((r = cuMemAlloc(&din, inBytes)) != CUDA_SUCCESS) die("cuMemAlloc(in)", r);
                if ((r = cuMemAlloc(&dout, outBytes)) != CUDA_SUCCESS) die("cuMemAlloc(out)", r);
                inCap = inBytes;
                outCap = outBytes;
            }
            if ((r = cuMemcpyHtoD(din, hin, inBytes)) != CUDA_SUCCESS) die("cuMemcpyHtoD", r);
            snprintf(path, sizeof path, "%s/%s/%d.ptx", dir, v == 0 ? "llvm" : "amd", f.index);
            char *lp = slurp(path, NULL);
            if (!lp) { snprintf(stv, 1024, "missing"); continue; }
            memset(hlow, 0, outBytes);
            r = run(lp, din, dout, outBytes, (unsigned) f.tuples, hlow, stv, 1024);
            free(lp);
            if (r != CUDA_SUCCESS && strstr(stv, ":launch") != NULL) {
                reset_context();
                din = dout = 0;
                inCap = outCap = 0;
            }
            if (stv[0] == 0) strcpy(stv, "0");
            long long d = 0;
            for (long long t = 0; t < f.tuples; t++) {
                if (memcmp(hout + t * f.outStride, hlow + t * f.outStride, f.outStride) == 0) continue;
                if (f.ulp && maxulp[v] >= 0) {
                    uint64_t a = 0, b = 0;
                    memcpy(&a, hout + t * f.outStride, 8);
                    memcpy(&b, hlow + t * f.outStride, 8);
                    long long u = f.outStride > 8 && memcmp(hout + t * f.outStride + 8, hlow + t * f.outStride + 8, f.outStride - 8) != 0 ? -1 : ulps(f.ulp, a, b);
                    maxulp[v] = u < 0 ? -1 : u > maxulp[v] ? u : maxulp[v];
                }
                if (d < 8) {
                    fprintf(fdif, "%d %s %lld in", f.index, v == 0 ? "llvm" : "amd", t);
                    for (int b = 0; b < f.inStride; b++) fprintf(fdif, "%s%02x", b % 8 == 0 ? " " : "", hin[t * f.inStride + b]);
                    fprintf(fdif, " native");
                    for (int b = 0; b < f.outStride; b++) fprintf(fdif, "%s%02x", b % 8 == 0 ? " " : "", hout[t * f.outStride + b]);
                    fprintf(fdif, " lowered");
                    for (int b = 0; b < f.outStride; b++) fprintf(fdif, "%s%02x", b % 8 == 0 ? " " : "", hlow[t * f.outStride + b]);
                    fprintf(fdif, "\n");
                }
                d++;
            }
            differ[v] = d;
        }
        fprintf(fres, "%d\t%s\t%08x\t%08x\t%s\t%lld\t%lld\t%s\t%lld\t%lld\t%lld\n", f.index, st[0] ? st : "0", inCrc, outCrc, st2, differ[0], maxulp[0],
                st3, differ[1], maxulp[1], emuDiffer);
        fflush(fres);
        fflush(fblk);
        fflush(fraw);
        fflush(fdif);
        alarm(0);
        done++;
    }
    fclose(fres);
    fclose(fblk);
    fclose(fraw);
    fclose(fdif);
    snprintf(path, sizeof path, "%s/progress-%d.txt", outdir, shard);
    FILE *fp = fopen(path, "w");
    fprintf(fp, "done %d\n", done);
    fclose(fp);
    return 0;
}
#endif
