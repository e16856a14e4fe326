/*
 * md2_test: the tracer's MD2 / HMAC-MD2 / integrity-check code (tracer/md2.c).
 *   md2_test                       checks RFC 1319's test suite (A.5); exit 0 when all pass
 *   md2_test hmac KEYHEX MSGHEX    prints HMAC-MD2 as hex (compared with the JDK's MD2 by a Java test)
 *   md2_test integrity VERSION SECONDS DRIVER PID TID CUDART TABLE FN [UUIDHEX DOMAIN BUS DEVICE]...
 *                                  prints the integrity answer as two hex u64 (numbers in C syntax)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md2.h"

static size_t unhex(const char *s, uint8_t *out, size_t cap) {
    size_t n = 0;
    while (s[0] && s[1] && n < cap) {
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1) break;
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

static void hex(const uint8_t *p, size_t n, char *out) {
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", p[i]);
}

int main(int argc, char **argv) {
    if (argc == 1) {
        /* RFC 1319, A.5 "Test suite" */
        static const char *const suite[][2] = {
            {"", "8350e5a3e24c153df2275c9f80692773"},
            {"a", "32ec01ec4a6dac72c0ab96fb34c0b5d1"},
            {"abc", "da853b0d3f88d99b30283a69e6ded6bb"},
            {"message digest", "ab4f496bfb2a530b219ff33031fe06b0"},
            {"abcdefghijklmnopqrstuvwxyz", "4e8ddff3650292ab5a4108c3aa47940b"},
            {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "da33def2a42df13975352846c30338cd"},
            {"12345678901234567890123456789012345678901234567890123456789012345678901234567890", "d5976f79d83d3a0dc9806c3c66f3efd8"},
        };
        int bad = 0;
        for (size_t i = 0; i < sizeof suite / sizeof suite[0]; i++) {
            uint8_t d[16];
            char h[33];
            zt_md2(suite[i][0], strlen(suite[i][0]), d);
            hex(d, 16, h);
            int ok = strcmp(h, suite[i][1]) == 0;
            printf("MD2(\"%s\") = %s %s\n", suite[i][0], h, ok ? "ok" : "WRONG");
            bad += !ok;
        }
        /* the same message fed in pieces of every size must give the same digest */
        const char *msg = suite[6][0];
        for (size_t step = 1; step <= 17; step++) {
            zt_md2_ctx m;
            uint8_t d[16];
            char h[33];
            zt_md2_init(&m);
            for (size_t o = 0; o < strlen(msg); o += step) zt_md2_update(&m, msg + o, strlen(msg) - o < step ? strlen(msg) - o : step);
            zt_md2_final(&m, d);
            hex(d, 16, h);
            if (strcmp(h, suite[6][1]) != 0) { printf("pieces of %zu: %s WRONG\n", step, h); bad++; }
        }
        printf("%s\n", bad ? "MD2 test suite FAILED" : "MD2 test suite: all passed");
        return bad ? 1 : 0;
    }
    if (argc == 4 && strcmp(argv[1], "hmac") == 0) {
        static uint8_t key[4096], msg[65536];
        size_t kn = unhex(argv[2], key, sizeof key), mn = unhex(argv[3], msg, sizeof msg);
        uint8_t d[16];
        char h[33];
        zt_hmac_md2(key, kn, msg, mn, d);
        hex(d, 16, h);
        printf("%s\n", h);
        return 0;
    }
    if (argc >= 10 && strcmp(argv[1], "integrity") == 0 && (argc - 10) % 4 == 0) {
        zt_integrity_device dev[16];
        int n = 0;
        for (int i = 10; i + 3 < argc && n < 16; i += 4, n++) {
            memset(&dev[n], 0, sizeof dev[n]);
            unhex(argv[i], dev[n].uuid, 16);
            dev[n].pci_domain = (int32_t)strtol(argv[i + 1], NULL, 0);
            dev[n].pci_bus = (int32_t)strtol(argv[i + 2], NULL, 0);
            dev[n].pci_device = (int32_t)strtol(argv[i + 3], NULL, 0);
        }
        uint64_t out[2];
        zt_integrity_answer((uint32_t)strtoul(argv[2], NULL, 0), strtoull(argv[3], NULL, 0), (uint32_t)strtoul(argv[4], NULL, 0),
                            (uint32_t)strtoul(argv[5], NULL, 0), (uint32_t)strtoul(argv[6], NULL, 0), strtoull(argv[7], NULL, 0),
                            strtoull(argv[8], NULL, 0), strtoull(argv[9], NULL, 0), dev, n, out);
        printf("%016llx %016llx\n", (unsigned long long)out[0], (unsigned long long)out[1]);
        return 0;
    }
    fprintf(stderr, "usage: md2_test | md2_test hmac KEYHEX MSGHEX | md2_test integrity VERSION SECONDS DRIVER PID TID CUDART TABLE FN [UUIDHEX DOMAIN BUS DEVICE]...\n");
    return 2;
}
