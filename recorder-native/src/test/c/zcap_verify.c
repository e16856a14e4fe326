/*
 * zcap_verify FILE: an independent minimal reader used by `make test` — walks the units and
 * frames as FORMAT.md describes, checks header checks and SEAL hashes, decodes each record's
 * sequence number, and prints
 *   chunks=N enter=E leave=L blob=B string=S end=P seals_bad=X seq_dups=D seq_max=M
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

static uint64_t rd64(const uint8_t *p) { uint64_t v = 0; for (int i = 7; i >= 0; i--) v = v << 8 | p[i]; return v; }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t varint(const uint8_t **p) {
    uint64_t v = 0; int s = 0;
    while (**p & 0x80) { v |= (uint64_t)(**p & 0x7f) << s; s += 7; (*p)++; }
    v |= (uint64_t)**p << s; (*p)++;
    return v;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: zcap_verify FILE\n"); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)size);
    if (fread(b, 1, (size_t)size, f) != (size_t)size) { perror("read"); return 1; }
    if (size < 64 || memcmp(b, "ZLUDACAP", 8) != 0 || rd32(b + 60) != (uint32_t)XXH64(b, 60, 0)) {
        fprintf(stderr, "bad header\n"); return 1;
    }
    uint32_t cs = rd32(b + 16);
    long chunks = 0, counts[16] = {0}, seals_bad = 0, dups = 0;
    uint64_t seq_max = 0;
    size_t cap = 1 << 20;
    uint8_t *seen = calloc(cap, 1);
    for (uint64_t off = 64; off + 40 <= (uint64_t)size;) {
        const uint8_t *c = b + off;
        if (rd32(c) == 0) { off += cs; continue; }
        if (rd32(c) != 0x4B48435Au || rd32(c + 32) != (uint32_t)XXH64(c + 4, 28, 0)) { fprintf(stderr, "bad chunk at %lu\n", (unsigned long)off); return 1; }
        uint32_t span = rd32(c + 4);
        uint64_t end = off + (uint64_t)span * cs;
        if (end > (uint64_t)size) end = (uint64_t)size;
        uint64_t seq = rd64(c + 16);
        chunks++;
        for (uint64_t p = off + 40; p + 4 <= end;) {
            uint32_t len = rd32(b + p);
            if (!len) break;
            const uint8_t *q = b + p + 4;
            int type = *q & 15;
            if (type == 11) {
                if (rd64(q + 1) != XXH64(c + 40, p - off - 40, 0)) seals_bad++;
                break;
            }
            q++;
            seq += varint(&q);
            if (seq > seq_max) seq_max = seq;
            while (seq >= cap * 8) { seen = realloc(seen, cap * 2); memset(seen + cap, 0, cap); cap *= 2; }
            if (seen[seq / 8] & (1 << (seq % 8))) dups++;
            seen[seq / 8] |= (uint8_t)(1 << (seq % 8));
            counts[type]++;
            p += 4 + ((len + 3u) & ~3u);
        }
        off += (uint64_t)span * cs;
    }
    /* the function table must be the first record of the chunk at unit 0 (FORMAT.md 6.10) */
    int table_first = size >= 64 + 45 && rd32(b + 64) == 0x4B48435Au && rd32(b + 104) != 0 && (b[108] & 15) == 10;
    printf("chunks=%ld enter=%ld leave=%ld blob=%ld string=%ld end=%ld seals_bad=%ld seq_dups=%ld seq_max=%lu table=%ld table_first=%d\n", chunks,
           counts[1], counts[2], counts[3], counts[9], counts[8], seals_bad, dups, (unsigned long)seq_max, counts[10], table_first);
    return 0;
}
