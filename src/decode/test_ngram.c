/* test_ngram.c — the n-gram table of training kernels (src/decode/ngram.c): the file a fixed
 * JSONL builds is byte for byte tests/golden/ngram_tiny.bin (the format's golden test; after a
 * deliberate format change regenerate it with PTXGEN_UPDATE_GOLDEN=1), what it holds (which
 * lines count, the most frequent next token, the longest known context), and every refusal
 * of the reader and the builder with its cause.  Run from the repository root. */
#include "common/test.h"
#include "ptxgen/decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN "tests/golden/ngram_tiny.bin"
#define PAIRS "tests/golden/ngram_pairs.jsonl"

/* the trailing checksum after an edit */
static void reseal(unsigned char *p, size_t n) {
    uint64_t h = pg_hash64(p, n - 8);
    for (int i = 0; i < 8; i++) p[n - 8 + i] = (unsigned char)(h >> (8 * i));
}

static void refused(const unsigned char *p, size_t n, const tok_tokenizer *t, const char *want, const char *label) {
    gen_ngram *g = NULL;
    pg_diag_sink d = test_sink();
    pg_status st = gen_ngram_parse(p, n, "x.bin", t, &g, &d);
    CHECK(st != PG_OK && !g && strstr(test_diag_log(), "x.bin") && strstr(test_diag_log(), want), "%s: refused (%s): %s", label, want,
          test_diag_log());
    gen_ngram_free(g);
}

static int32_t id_of(const tok_tokenizer *t, const char *s) {
    int32_t *ids = NULL;
    size_t n = 0;
    if (tok_encode(t, s, strlen(s), &ids, &n) != PG_OK || n != 1) { free(ids); return -1; }
    int32_t r = ids[0];
    free(ids);
    return r;
}

int main(void) {
    pg_diag_sink d = test_sink();
    tok_tokenizer *t = NULL, *other = NULL;
    CHECK(tok_load("tests/gen/tiny/tokenizer.json", &t, &d) == PG_OK, "tokenizer: %s", test_diag_log());
    CHECK(tok_load("tests/tokenizer/gpt2.json", &other, &d) == PG_OK, "another tokenizer: %s", test_diag_log());
    if (!t || !other) return TEST_DONE();
    char out[] = "/tmp/ptxgen-test-ngram-XXXXXX";
    int fd = mkstemp(out);
    CHECK(fd >= 0, "temp file");
    int n = 0;
    d = test_sink();
    CHECK(gen_ngram_build_jsonl(t, PAIRS, 3, 1, out, &n, &d) == PG_OK, "build: %s", test_diag_log());
    CHECK(n == 3, "kernels used: 2 train completions and 1 synth ptx_code; the twin turn and the val line are left out (%d)", n);
    char *got = NULL, *want = NULL;
    size_t gl = 0, wl = 0;
    CHECK(pg_read_file(out, 1 << 24, &got, &gl, &d) == PG_OK, "read the table");
    if (getenv("PTXGEN_UPDATE_GOLDEN")) CHECK(pg_write_file_atomic(GOLDEN, got, gl, &d) == PG_OK, "golden rewritten");
    CHECK(pg_read_file(GOLDEN, 1 << 24, &want, &wl, &d) == PG_OK, "golden file %s", GOLDEN);
    CHECK(got && want && gl == wl && !memcmp(got, want, gl), "the table equals %s byte for byte (%zu vs %zu bytes; "
          "regenerate with PTXGEN_UPDATE_GOLDEN=1 only after a deliberate format change)", GOLDEN, gl, wl);
    gen_ngram *g = NULL;
    d = test_sink();
    CHECK(got && gen_ngram_parse(got, gl, out, t, &g, &d) == PG_OK && gen_ngram_order(g) == 3 && gen_ngram_entries(g) > 10,
          "parse: %s", test_diag_log());
    if (g) {
        /* "ld.param.u64 %rd1, [" -> 'x' once and 'y' once; 'y' twice more after "%rd2, [" */
        int32_t ctx[8];
        int32_t *ids = NULL;
        size_t ni = 0;
        const char *s = "\tld.param.u64 %rd2, [";
        CHECK(tok_encode(t, s, strlen(s), &ids, &ni) == PG_OK && ni >= 2, "encode a context");
        int32_t y = id_of(t, "y"), ret = id_of(t, "ret");
        CHECK(y >= 0 && gen_ngram_next(g, ids, (int)ni, 1) == y, "the next token of a seen context (%d, want %d)",
              gen_ngram_next(g, ids, (int)ni, 1), y);
        CHECK(gen_ngram_next(g, ids, (int)ni, 1000) == -1, "below the minimum count: none");
        free(ids);
        s = ";\n\t";
        CHECK(tok_encode(t, s, strlen(s), &ids, &ni) == PG_OK, "encode");
        for (size_t i = 0; i < ni && i < 8; i++) ctx[i] = ids[i];
        int32_t nx = gen_ngram_next(g, ctx, (int)ni, 1);
        CHECK(nx >= 0, "a context every kernel has continues (got %d; 'ret' is %d)", nx, ret);
        free(ids);
        int32_t unseen[2] = {0, 0};
        CHECK(gen_ngram_next(g, unseen, 2, 1) == -1 || gen_ngram_next(g, unseen, 1, 1) >= 0, "unseen context: -1 unless a shorter one is known");
        gen_ngram_free(g);
    }
    /* refusals: each names the file and the cause */
    if (got && gl > 64) {
        unsigned char *c = malloc(gl);
        memcpy(c, got, gl);
        c[0] = 'X';
        refused(c, gl, t, "not an n-gram table", "magic");
        memcpy(c, got, gl);
        refused(c, 30, t, "not an n-gram table", "truncated header");
        refused(c, gl - 4, t, "do not fill", "truncated entries");
        c[8] = 2;
        refused(c, gl, t, "version 2", "version");
        memcpy(c, got, gl);
        c[gl - 20] ^= 1;
        refused(c, gl, t, "checksum", "a flipped byte");
        memcpy(c, got, gl);
        refused(c, gl, other, "another tokenizer", "another tokenizer");
        /* entries 0 and 1 swapped (order 3: 5 words each), checksum fixed: out of order */
        memcpy(c, got, gl);
        unsigned char tmp[20];
        memcpy(tmp, c + 40, 20);
        memcpy(c + 40, c + 60, 20);
        memcpy(c + 60, tmp, 20);
        reseal(c, gl);
        refused(c, gl, t, "out of order", "unsorted entries");
        memcpy(c, got, gl);
        memset(c + 40 + 16, 0, 4);   /* entry 0's count */
        reseal(c, gl);
        refused(c, gl, t, "count of 0", "count 0");
        memcpy(c, got, gl);
        memset(c + 40 + 12, 0xee, 4);   /* entry 0's next token */
        reseal(c, gl);
        refused(c, gl, t, "outside the vocabulary", "next id");
        free(c);
    }
    /* builder refusals: a bad line (file and line named), lines without a text, no train kernels */
    char bad[] = "/tmp/ptxgen-test-ngram-in-XXXXXX";
    int bfd = mkstemp(bad);
    FILE *f = bfd >= 0 ? fdopen(bfd, "w") : NULL;
    if (f) { fputs("{\"completion\": \"ret;\"}\n{oops\n", f); fclose(f); }
    d = test_sink();
    CHECK(gen_ngram_build_jsonl(t, bad, 3, 1, out, NULL, &d) == PG_ERR_INVALID && strstr(test_diag_log(), ":2:"),
          "a bad JSON line: %s", test_diag_log());
    f = fopen(bad, "w");
    if (f) { fputs("{\"prompt\": \"x\"}\n", f); fclose(f); }
    d = test_sink();
    CHECK(gen_ngram_build_jsonl(t, bad, 3, 1, out, NULL, &d) == PG_ERR_INVALID && strstr(test_diag_log(), "neither"),
          "a line without a text: %s", test_diag_log());
    f = fopen(bad, "w");
    if (f) { fputs("{\"completion\": \"ret;\", \"split\": \"val\"}\n", f); fclose(f); }
    d = test_sink();
    CHECK(gen_ngram_build_jsonl(t, bad, 3, 1, out, NULL, &d) == PG_ERR_INVALID && strstr(test_diag_log(), "no training kernels"),
          "no train lines: %s", test_diag_log());
    d = test_sink();
    CHECK(gen_ngram_build_jsonl(t, "/nonexistent/x.jsonl", 3, 1, out, NULL, &d) == PG_ERR_IO, "a missing file: %s", test_diag_log());
    pg_buf b = {0};
    const char *one[] = {"ret;"};
    d = test_sink();
    CHECK(gen_ngram_build(t, one, 1, 0, 1, &b, &d) == PG_ERR_USAGE && gen_ngram_build(t, one, 1, GEN_NGRAM_MAX_ORDER + 1, 1, &b, &d) == PG_ERR_USAGE,
          "order outside 1..%d refused", GEN_NGRAM_MAX_ORDER);
    pg_buf_free(&b);
    remove(bad);
    remove(out);
    free(got);
    free(want);
    tok_free(t);
    tok_free(other);
    return TEST_DONE();
}
