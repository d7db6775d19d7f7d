/* hash.c — FNV-1a (common.h): the one byte-string hash of the library.
 * http://www.isthe.com/chongo/tech/comp/fnv/ gives the primes and offset bases. */
#include "ptxgen/common.h"

uint64_t pg_hash64_add(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;   /* the 64-bit FNV prime */
    return h;
}

uint64_t pg_hash64(const void *p, size_t n) { return pg_hash64_add(PG_HASH64_INIT, p, n); }

uint32_t pg_hash32(const void *p, size_t n) {
    const unsigned char *b = p;
    uint32_t h = 0x811c9dc5u;                                            /* FNV-1a 32's offset basis */
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x01000193u;         /* the 32-bit FNV prime */
    return h;
}
