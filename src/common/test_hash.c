/* test_hash.c — pg_hash64 / pg_hash64_add / pg_hash32 against the FNV-1a test vectors (the
 * reference's own: "", "a", "foobar"), the streaming form against the whole, and the short seed
 * that synth names and nvcc cache files were made with, pinned to the values the old copies gave. */
#include "common/test.h"

#include <string.h>

int main(void) {
    static const struct { const char *s; uint64_t h64; uint32_t h32; uint64_t short64; } v[] = {
        {"", 0xcbf29ce484222325ull, 0x811c9dc5u, 0x14650fb0739d0383ull},
        {"a", 0xaf63dc4c8601ec8cull, 0xe40c292cu, 0x44bd8ad473cd9906ull},
        {"foobar", 0x85944171f73967e8ull, 0xbf9cf968u, 0x88fad7c0a8ff07f2ull},
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        size_t n = strlen(v[i].s);
        CHECK(pg_hash64(v[i].s, n) == v[i].h64, "FNV-1a 64 of \"%s\": %016llx", v[i].s, (unsigned long long)pg_hash64(v[i].s, n));
        CHECK(pg_hash32(v[i].s, n) == v[i].h32, "FNV-1a 32 of \"%s\": %08x", v[i].s, (unsigned)pg_hash32(v[i].s, n));
        CHECK(pg_hash64_add(PG_HASH64_INIT_SHORT, v[i].s, n) == v[i].short64, "the short seed on \"%s\"", v[i].s);
    }
    CHECK(PG_HASH64_INIT == 14695981039346656037ull && PG_HASH64_INIT_SHORT == 1469598103934665603ull, "the two seeds");
    /* in pieces: any split hashes as the whole */
    const char *s = "ld.global.f32 %f1, [%rd2];";
    size_t n = strlen(s);
    for (size_t cut = 0; cut <= n; cut++)
        CHECK(pg_hash64_add(pg_hash64(s, cut), s + cut, n - cut) == pg_hash64(s, n), "split at %zu", cut);
    CHECK(pg_hash64_add(12345, "", 0) == 12345, "no bytes: h unchanged");
    /* bytes, not chars: the high half of the byte range hashes as unsigned */
    const unsigned char hi[] = {0xff, 0x80};
    CHECK(pg_hash64(hi, 2) == ((0xcbf29ce484222325ull ^ 0xff) * 0x100000001b3ull ^ 0x80) * 0x100000001b3ull, "bytes >= 0x80");
    return TEST_DONE();
}
