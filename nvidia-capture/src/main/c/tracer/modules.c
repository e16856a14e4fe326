/*
 * Module images: every image a program hands the driver (cuModuleLoadData/Ex, cuModuleLoadFatBinary,
 * cuLibraryLoadData, or a file given to cuModuleLoad/cuLibraryLoadFromFile) is stored in the capture
 * as a blob with a MODULE record, and dumped into the capture directory as ZLUDA does:
 * module_NNNN_NN.ptx / .elf (NNNN counts images from 0001, NN the entry inside a fatbin from 01).
 * Fatbins are taken apart (layout: shared/reference/cuda-facts.md "Fatbins"); PTX entries
 * compressed with zstd or LZ4 are decompressed with the system's libzstd.so.1 / liblz4.so.1 when
 * they exist (loaded with dlopen), else dumped as .ptx.zst / .ptx.lz4. Every size read from an
 * image is bounded before use.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer.h"

#define FATBIN_WRAPPER_MAGIC 0x466243B1u
#define FATBIN_MAGIC 0xBA55ED50u
#define MAX_IMAGE (1ull << 31)

static atomic_uint library_counter;

static uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static void dump_file(const char *name, const void *data, size_t n) {
    const char *dir = zt_capture_dir();
    if (!dir || !*dir) return;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(data, 1, n, f);
    fclose(f);
}

/* Size of an ELF image from its section header table (the last thing in a cubin), 0 if not ELF64. */
static uint64_t elf_size(const uint8_t *p) {
    if (memcmp(p, "\x7f" "ELF", 4) != 0 || p[4] != 2) return 0;
    uint64_t shoff = rd64(p + 0x28);
    uint16_t shentsize = rd16(p + 0x3A), shnum = rd16(p + 0x3C);
    uint64_t end = shoff + (uint64_t)shentsize * shnum;
    uint64_t phoff = rd64(p + 0x20);
    uint16_t phentsize = rd16(p + 0x36), phnum = rd16(p + 0x38);
    uint64_t pend = phoff + (uint64_t)phentsize * phnum;
    if (pend > end) end = pend;
    return end > MAX_IMAGE ? 0 : end;
}

typedef size_t (*zstd_fn)(void *, size_t, const void *, size_t);
typedef int (*lz4_fn)(const char *, char *, int, int);

static void *decompress(uint64_t flags, const uint8_t *src, uint64_t n, uint64_t out_size, size_t *out_len) {
    if (out_size == 0 || out_size > MAX_IMAGE) return NULL;
    char *dst = malloc(out_size);
    if (!dst) return NULL;
    if (flags & 0x8000) {
        void *lib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
        zstd_fn f = lib ? (zstd_fn)dlsym(lib, "ZSTD_decompress") : NULL;
        size_t r = f ? f(dst, out_size, src, n) : (size_t)-1;
        if (f && r <= out_size) { *out_len = r; return dst; }
    } else if (flags & 0x2000) {
        void *lib = dlopen("liblz4.so.1", RTLD_NOW | RTLD_LOCAL);
        lz4_fn f = lib ? (lz4_fn)dlsym(lib, "LZ4_decompress_safe") : NULL;
        int r = f && n < INT_MAX && out_size < INT_MAX ? f((const char *)src, dst, (int)n, (int)out_size) : -1;
        if (r >= 0) { *out_len = (size_t)r; return dst; }
    }
    free(dst);
    return NULL;
}

/* Dumps the entries of one fatbin (header at p, at most avail bytes); returns the fatbin's size or 0. */
static uint64_t fatbin_entries(const uint8_t *p, uint32_t lib) {
    if (rd32(p) != FATBIN_MAGIC) return 0;
    uint16_t hsize = rd16(p + 6);
    uint64_t total = rd64(p + 8);
    if (hsize < 16 || total > MAX_IMAGE) return 0;
    const uint8_t *e = p + hsize, *end = p + hsize + total;
    int index = 0;
    while (e + 64 <= end && index < 999) {
        uint16_t kind = rd16(e);
        uint32_t ehs = rd32(e + 4), payload = rd32(e + 8), compressed = rd32(e + 16);
        uint64_t flags = rd64(e + 40), uncompressed = rd64(e + 56);
        if (ehs < 64 || e + ehs > end) break;
        uint64_t stored = compressed ? compressed : payload;
        uint64_t step = payload > compressed ? payload : compressed;
        if (e + ehs + stored > end) break;
        const uint8_t *data = e + ehs;
        char name[64];
        index++;
        if (kind == 1) { /* PTX */
            if (flags & (0x8000 | 0x2000)) {
                size_t n = 0;
                void *text = decompress(flags, data, stored, uncompressed, &n);
                if (text) {
                    while (n > 0 && ((char *)text)[n - 1] == 0) n--;
                    snprintf(name, sizeof name, "module_%04u_%02d.ptx", lib, index);
                    dump_file(name, text, n);
                    free(text);
                } else {
                    snprintf(name, sizeof name, "module_%04u_%02d.ptx.%s", lib, index, flags & 0x8000 ? "zst" : "lz4");
                    dump_file(name, data, stored);
                }
            } else {
                size_t n = stored;
                while (n > 0 && data[n - 1] == 0) n--;
                snprintf(name, sizeof name, "module_%04u_%02d.ptx", lib, index);
                dump_file(name, data, n);
            }
        } else if (kind == 2) { /* ELF cubin */
            snprintf(name, sizeof name, "module_%04u_%02d.elf", lib, index);
            dump_file(name, data, stored);
        }
        e += ehs + step;
    }
    return hsize + total;
}

/* ZLUDA_CAPTURE_MODULES=0: MODULE records without images (no blob, no dump files): for programs
 * whose libraries register gigabytes of fatbins (PyTorch). ZLUDA_CAPTURE_MODULES=ptx: images only of
 * modules loaded as PTX text (e.g. CuPy's kernels with CUPY_COMPILE_WITH_PTX=1, the ones a replay on
 * the emulator can run), fatbins and ELF images recorded without images.
 * Returns 1 (all images), 2 (none) or 3 (PTX text only). */
static int images_mode(void) {
    static atomic_int v; /* 0 unknown */
    int x = atomic_load(&v);
    if (!x) {
        const char *e = getenv("ZLUDA_CAPTURE_MODULES");
        x = !e ? 1 : strcmp(e, "0") == 0 ? 2 : strcmp(e, "ptx") == 0 ? 3 : 1;
        atomic_store(&v, x);
    }
    return x;
}

void zt_module(zt_call *c, const void *image, uint64_t handle, int is_file) {
    if (!c->thread || !image) return;
    uint32_t lib = atomic_fetch_add(&library_counter, 1) + 1;
    int mode = images_mode();
    if (mode != 1) {
        uint32_t m = is_file ? 0 : rd32(image);
        uint8_t k = m == FATBIN_WRAPPER_MAGIC || m == FATBIN_MAGIC ? 3 : !is_file && memcmp(image, "\x7f" "ELF", 4) == 0 ? 2 : is_file ? 4 : 1;
        if (mode == 2 || k != 1) {
            zcap_module(c->thread, lib, 1, k, 0, 0, handle, "", zcap_now());
            return;
        }
    }
    uint8_t *file_data = NULL;
    const uint8_t *p = image;
    uint64_t size = 0;
    if (is_file) {
        FILE *f = fopen((const char *)image, "rb");
        if (!f) return;
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        if (n <= 0 || (uint64_t)n > MAX_IMAGE || !(file_data = malloc((size_t)n))) { fclose(f); return; }
        size = fread(file_data, 1, (size_t)n, f);
        fclose(f);
        p = file_data;
    }
    uint8_t kind;
    char name[64] = "";
    uint32_t magic = rd32(p);
    if (magic == FATBIN_WRAPPER_MAGIC && !is_file) {
        const uint8_t *fb = (const uint8_t *)(uintptr_t)rd64(p + 8);
        kind = 3;
        size = fb ? fatbin_entries(fb, lib) : 0;
        p = fb;
    } else if (magic == FATBIN_MAGIC) {
        kind = 3;
        uint64_t s = fatbin_entries(p, lib);
        if (!is_file) size = s;
    } else if (memcmp(p, "\x7f" "ELF", 4) == 0) {
        kind = 2;
        if (!is_file) size = elf_size(p);
        snprintf(name, sizeof name, "module_%04u_01.elf", lib);
        if (size) dump_file(name, p, size);
    } else {
        kind = 1; /* NUL-terminated PTX text */
        if (!is_file) size = strnlen((const char *)p, MAX_IMAGE);
        while (size > 0 && p[size - 1] == 0) size--;
        snprintf(name, sizeof name, "module_%04u_01.ptx", lib);
        dump_file(name, p, size);
    }
    uint64_t hash = size && p ? zcap_blob(c->thread, p, size, zcap_now()) : 0;
    zcap_module(c->thread, lib, 1, kind, hash, size, handle, name, zcap_now());
    free(file_data);
}
