/*
 * MD2 (RFC 1319) and HMAC-MD2 (RFC 2104 with MD2's 16-byte block): what the INTEGRITY_CHECK export
 * table's answer is made of (shared/reference/cuda-facts.md, "Integrity check"). MD2 is not in the
 * libraries a tracer may assume on a user's machine (OpenSSL builds leave it out), so it is here.
 */
#ifndef ZLUDA_MD2_H
#define ZLUDA_MD2_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t state[48];  /* X of RFC 1319 §3.4: 16 bytes of state, then the block and their XOR */
    uint8_t checksum[16];
    uint8_t buffer[16];
    size_t used;        /* bytes in buffer */
} zt_md2_ctx;

void zt_md2_init(zt_md2_ctx *m);
void zt_md2_update(zt_md2_ctx *m, const void *data, size_t n);
/* Writes the 16-byte digest; m must be initialised again before reuse. */
void zt_md2_final(zt_md2_ctx *m, uint8_t out[16]);
/* One-shot MD2 of n bytes. */
void zt_md2(const void *data, size_t n, uint8_t out[16]);
/* HMAC-MD2 (RFC 2104, block size 16): key of any length (longer than 16 bytes is hashed first). */
void zt_hmac_md2(const void *key, size_t key_len, const void *msg, size_t n, uint8_t out[16]);


/* What the integrity check covers for one device. */
typedef struct {
    uint8_t uuid[16];
    int32_t pci_domain, pci_bus, pci_device;
} zt_integrity_device;

/*
 * The INTEGRITY_CHECK slot 1 answer (cuda-facts.md): the fixed pairs for version % 10 == 0 and 1,
 * else HMAC-MD2 under the fixed key over the 48-byte little-endian record {driver version, version,
 * pid, tid, CUDART_INTERFACE table, INTEGRITY_CHECK table, integrity function, unix_seconds}
 * followed by 28 bytes per device; the digest as two little-endian u64 in out.
 */
void zt_integrity_answer(uint32_t version, uint64_t unix_seconds, uint32_t driver_version, uint32_t pid, uint32_t tid,
                         uint64_t cudart_table, uint64_t integrity_table, uint64_t integrity_fn,
                         const zt_integrity_device *devices, int ndevices, uint64_t out[2]);

#endif
