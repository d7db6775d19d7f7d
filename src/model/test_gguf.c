/* test_gguf.c — the GGUF reader (src/model/gguf.c) against gguf-py.
 *
 *  - tests/model/gguf/types.gguf (tests/model/make_gguf.py, GGUFWriter): every
 *    metadata value type through the getters; every tensor type dequantized
 *    row by row and compared bit for bit with the "expect.T" tensor gguf-py's
 *    gguf.quants.dequantize wrote next to it.
 *  - Broken images built here byte by byte: each check model_gguf_open makes gets a
 *    file that fails it, with an E801 naming the file, the key or tensor and
 *    the cause; and every truncation of types.gguf fails cleanly.
 *  - The real model files when present ($PTXGEN_QWEN_GGUF, $PTXGEN_SMOL_GGUF,
 *    default models/base/...): tensor counts, and the first and last row of
 *    every tensor against gguf-py (tests/model/gguf/real_rows.json).
 * Run from the repository root. */
#include "common/test.h"
#include "model/gguf.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GD "tests/model/gguf/"

static char diag_text[4096];
static int diag_n;
static pg_diag diag_last;
static void capture(void *user, const pg_diag *d) {
    (void)user;
    diag_n++;
    diag_last = *d;
    pg_diag_format(d, diag_text, sizeof diag_text);
}
static pg_diag_sink sink(void) {
    diag_text[0] = 0;
    diag_n = 0;
    pg_diag_sink s = {capture, NULL, 0, 0, 0};
    return s;
}

static bool same_bits(const float *a, const float *b, int64_t n, int64_t *where) {
    if (memcmp(a, b, (size_t)n * sizeof *a) == 0) return true;
    for (int64_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof *a)) { *where = i; break; }
    return false;
}

/* ---- types.gguf ------------------------------------------------------------ */

static const char *const tnames[] = {"F32", "F16", "BF16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0",
                                     "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"};

static void test_types(void) {
    pg_diag_sink s = sink();
    gguf_file *g = NULL;
    pg_status st = model_gguf_open(GD "types.gguf", &g, &s);
    CHECK(st == PG_OK, "open types.gguf: %s", diag_text);
    if (!g) return;
    CHECK(model_gguf_version(g) == 3 && model_gguf_alignment(g) == 32, "version %u alignment %llu", model_gguf_version(g),
          (unsigned long long)model_gguf_alignment(g));
    CHECK(model_gguf_tensor_count(g) == 27, "27 tensors, got %d", model_gguf_tensor_count(g));
    CHECK(model_gguf_kv_count(g) == 19, "19 keys, got %d", model_gguf_kv_count(g));
    CHECK(model_gguf_data_start(g) % 32 == 0, "data section aligned");
    for (size_t k = 0; k < sizeof tnames / sizeof *tnames; k++) {
        char qn[32], en[32];
        snprintf(qn, sizeof qn, "q.%s", tnames[k]);
        snprintf(en, sizeof en, "expect.%s", tnames[k]);
        const gguf_tensor *q = model_gguf_tensor_find(g, qn), *e = model_gguf_tensor_find(g, en);
        CHECK(q && e, "%s and %s present", qn, en);
        if (!q || !e) continue;
        CHECK(!strcmp(model_gguf_type_name(q->type), tnames[k]), "%s has type %s", qn, model_gguf_type_name(q->type));
        CHECK(e->type == GGUF_T_F32, "%s is F32", en);
        CHECK(q->n_dims == 2 && q->ne[0] == 512 && q->ne[1] == 3 && q->ne[2] == 1 && q->ne[3] == 1, "%s dims", qn);
        CHECK(e->ne[0] == q->ne[0] && e->ne[1] == q->ne[1], "%s dims match", en);
        CHECK(model_gguf_tensor_rows(q) == 3, "%s rows", qn);
        size_t rb = model_gguf_tensor_row_bytes(q);
        CHECK(q->nbytes == 3 * rb && rb == (size_t)(512 / model_gguf_type_block(q->type)) * model_gguf_type_block_bytes(q->type),
              "%s nbytes %zu", qn, q->nbytes);
        CHECK(q->offset % 32 == 0 && (const uint8_t *)q->data == (const uint8_t *)model_gguf_tensor_at(g, 0)->data - model_gguf_tensor_at(g, 0)->offset + q->offset,
              "%s data pointer = data section + offset", qn);
        float got[512], want[512];
        for (int r = 0; r < 3; r++) {
            model_gguf_dequant_row(q->type, (const uint8_t *)q->data + r * rb, got, 512);
            model_gguf_dequant_row(GGUF_T_F32, (const uint8_t *)e->data + r * 512 * 4, want, 512);
            int64_t at = -1;
            bool ok = same_bits(got, want, 512, &at);
            CHECK(ok, "%s row %d differs from gguf-py at %lld: %.9g vs %.9g", qn, r, (long long)at, at >= 0 ? got[at] : 0.0,
                  at >= 0 ? want[at] : 0.0);
        }
        /* the whole tensor as one long row (blocks are independent) */
        float *all = malloc(3 * 512 * sizeof *all), *wall = malloc(3 * 512 * sizeof *wall);
        model_gguf_dequant_row(q->type, q->data, all, 3 * 512);
        model_gguf_dequant_row(GGUF_T_F32, e->data, wall, 3 * 512);
        int64_t at = -1;
        CHECK(same_bits(all, wall, 3 * 512, &at), "%s whole tensor at %lld", qn, (long long)at);
        free(all);
        free(wall);
    }
    /* a 3-D tensor: ne = [32, 3, 2] */
    const gguf_tensor *o = model_gguf_tensor_find(g, "odd.3d");
    CHECK(o && o->n_dims == 3 && o->ne[0] == 32 && o->ne[1] == 3 && o->ne[2] == 2 && o->ne[3] == 1, "odd.3d dims");
    if (o) {
        float v[192];
        model_gguf_dequant_row(o->type, o->data, v, 192);
        bool ok = true;
        for (int i = 0; i < 192; i++) ok &= v[i] == (float)i;
        CHECK(ok && model_gguf_tensor_rows(o) == 6, "odd.3d values are 0..191 in GGML order");
    }
    CHECK(model_gguf_tensor_find(g, "nope") == NULL && model_gguf_tensor_find(g, "") == NULL && model_gguf_tensor_find(g, "q.F3") == NULL,
          "absent tensors");
    CHECK(model_gguf_tensor_at(g, -1) == NULL && model_gguf_tensor_at(g, 27) == NULL, "tensor_at out of range");
    for (int i = 0; i < model_gguf_tensor_count(g); i++) {
        const gguf_tensor *t = model_gguf_tensor_at(g, i);
        CHECK(model_gguf_tensor_find(g, t->name) == t, "find(%s)", t->name);
    }
    model_gguf_close(g);
}

static void test_metadata(void) {
    pg_diag_sink s = sink();
    gguf_file *g = NULL;
    model_gguf_open(GD "types.gguf", &g, &s);
    if (!g) { CHECK(0, "open types.gguf"); return; }
    int64_t v;
    double f;
    bool b;
    gguf_str str;
    CHECK(model_gguf_get_int(g, "t.u8", &v) && v == 200, "u8");
    CHECK(model_gguf_get_int(g, "t.i8", &v) && v == -100, "i8");
    CHECK(model_gguf_get_int(g, "t.u16", &v) && v == 60000, "u16");
    CHECK(model_gguf_get_int(g, "t.i16", &v) && v == -30000, "i16");
    CHECK(model_gguf_get_int(g, "t.u32", &v) && v == 4000000000LL, "u32");
    CHECK(model_gguf_get_int(g, "t.i32", &v) && v == -2000000000LL, "i32");
    CHECK(!model_gguf_get_int(g, "t.u64", &v), "u64 2^63+5 does not fit an int64");
    CHECK(model_gguf_get_int(g, "t.i64", &v) && v == -(1LL << 62), "i64");
    CHECK(model_gguf_get_float(g, "t.f32", &f) && f == 0.25, "f32");
    CHECK(model_gguf_get_float(g, "t.f64", &f) && f == -1.5e300, "f64");
    CHECK(!model_gguf_get_float(g, "t.u8", &f) && !model_gguf_get_int(g, "t.f32", &v), "no int<->float conversion");
    CHECK(model_gguf_get_bool(g, "t.bool", &b) && b, "bool");
    CHECK(!model_gguf_get_bool(g, "t.u8", &b) && !model_gguf_get_int(g, "t.bool", &v), "bool is its own type");
    CHECK(model_gguf_get_str(g, "t.str", &str) && str.len == strlen("h\xc3\xa9llo, \xe4\xb8\x96\xe7\x95\x8c") &&
              !memcmp(str.s, "h\xc3\xa9llo, \xe4\xb8\x96\xe7\x95\x8c", str.len), "string (UTF-8)");
    CHECK(model_gguf_get_str(g, "t.empty", &str) && str.len == 0, "empty string");
    CHECK(model_gguf_get_str(g, "general.architecture", &str) && str.len == 11 && !memcmp(str.s, "ptxgen-test", 11), "architecture");
    CHECK(!model_gguf_get_str(g, "t.u8", &str) && !model_gguf_get_int(g, "t.missing", &v) && !model_gguf_find(g, "t.") && !model_gguf_find(g, "t.u88"),
          "absent / mistyped keys");
    const gguf_kv *a = model_gguf_find(g, "t.arr_i32");
    CHECK(a && a->type == GGUF_V_ARRAY && a->arr_type == GGUF_V_I32 && a->arr_len == 4, "arr_i32");
    if (a) {
        int64_t want[] = {1, -2, 3, 2147483647};
        for (int i = 0; i < 4; i++) CHECK(model_gguf_arr_int(a, (uint64_t)i, &v) && v == want[i], "arr_i32[%d]", i);
        CHECK(!model_gguf_arr_int(a, 4, &v) && !model_gguf_arr_float(a, 0, &f) && !model_gguf_arr_str(a, 0, &str), "arr_i32 bounds/types");
    }
    a = model_gguf_find(g, "t.arr_f32");
    CHECK(a && a->arr_len == 2 && model_gguf_arr_float(a, 0, &f) && f == 0.5 && model_gguf_arr_float(a, 1, &f) && f == -2.0, "arr_f32");
    a = model_gguf_find(g, "t.arr_u8");
    CHECK(a && a->arr_len == 3 && model_gguf_arr_int(a, 1, &v) && v == 255 && model_gguf_arr_int(a, 2, &v) && v == 7, "arr_u8");
    a = model_gguf_find(g, "t.arr_bool");
    CHECK(a && a->arr_type == GGUF_V_BOOL && a->arr_len == 2 && !model_gguf_arr_int(a, 0, &v), "arr_bool is not integers");
    a = model_gguf_find(g, "t.arr_str");
    static const char *const want_s[] = {"a", "", "ld.global.f32", "\xc3\xa9\xe4\xb8\xad"};
    CHECK(a && a->arr_type == GGUF_V_STRING && a->arr_len == 4, "arr_str");
    for (int i = 0; a && i < 4; i++)
        CHECK(model_gguf_arr_str(a, (uint64_t)i, &str) && str.len == strlen(want_s[i]) && !memcmp(str.s, want_s[i], str.len),
              "arr_str[%d]", i);
    CHECK(a && !model_gguf_arr_str(a, 4, &str), "arr_str past the end");
    CHECK(model_gguf_kv_at(g, 0) && model_gguf_kv_at(g, 0)->key.len == 20 && !memcmp(model_gguf_kv_at(g, 0)->key.s, "general.architecture", 20),
          "kv_at(0) is the first key in the file");
    CHECK(model_gguf_kv_at(g, -1) == NULL && model_gguf_kv_at(g, model_gguf_kv_count(g)) == NULL, "kv_at out of range");
    model_gguf_close(g);

    /* general.alignment = 64 */
    s = sink();
    CHECK(model_gguf_open(GD "align64.gguf", &g, &s) == PG_OK, "align64.gguf: %s", diag_text);
    if (!g) return;
    CHECK(model_gguf_alignment(g) == 64 && model_gguf_data_start(g) % 64 == 0, "alignment 64");
    const gguf_tensor *t = model_gguf_tensor_find(g, "b");
    CHECK(t && t->offset == 64 && t->ne[0] == 8 && t->ne[1] == 5, "b at offset 64 (a's 12 bytes padded)");
    if (t) {
        float x[40];
        model_gguf_dequant_row(t->type, t->data, x, 40);
        CHECK(x[0] == 0 && x[39] == 39, "b values");
    }
    model_gguf_close(g);
}

/* ---- broken images ------------------------------------------------------------- */

static void u32(pg_buf *b, uint32_t v) { for (int i = 0; i < 4; i++) pg_buf_putc(b, (char)(v >> 8 * i)); }
static void u64(pg_buf *b, uint64_t v) { for (int i = 0; i < 8; i++) pg_buf_putc(b, (char)(v >> 8 * i)); }
static void str(pg_buf *b, const char *s) { u64(b, strlen(s)); pg_buf_puts(b, s); }
static void hdr(pg_buf *b, uint64_t nt, uint64_t nkv) { pg_buf_puts(b, "GGUF"); u32(b, 3); u64(b, nt); u64(b, nkv); }
static void kv_u32(pg_buf *b, const char *k, uint32_t v) { str(b, k); u32(b, GGUF_V_U32); u32(b, v); }
static void tinfo(pg_buf *b, const char *name, uint32_t nd, const uint64_t *ne, uint32_t type, uint64_t off) {
    str(b, name);
    u32(b, nd);
    for (uint32_t i = 0; i < nd; i++) u64(b, ne[i]);
    u32(b, type);
    u64(b, off);
}
/* pad to `align`, then `n` data bytes */
static void data(pg_buf *b, size_t align, size_t n) {
    while (b->len % align) pg_buf_putc(b, 0);
    for (size_t i = 0; i < n; i++) pg_buf_putc(b, (char)i);
}

static void expect_ok(const char *what, const pg_buf *b) {
    pg_diag_sink s = sink();
    gguf_file *g = NULL;
    pg_status st = model_gguf_open_mem(b->data, b->len, "ok.gguf", &g, &s);
    CHECK(st == PG_OK && g && diag_n == 0, "%s: should open: %s", what, diag_text);
    model_gguf_close(g);
}

/* model_gguf_open_mem must fail with one E801 naming "bad.gguf" whose message holds
 * both `place` (the key / tensor) and `cause`. */
static void expect_err(const char *what, const pg_buf *b, const char *place, const char *cause) {
    pg_diag_sink s = sink();
    gguf_file *g = NULL;
    pg_status st = model_gguf_open_mem(b->data, b->len, "bad.gguf", &g, &s);
    CHECK(st != PG_OK && g == NULL, "%s: opened", what);
    CHECK(diag_n == 1 && diag_last.id == PG_E_MODEL_FILE && !strcmp(diag_last.code, "E801"), "%s: one E801 (%d)", what, diag_n);
    CHECK(diag_n >= 1 && diag_last.file && !strcmp(diag_last.file, "bad.gguf"), "%s: names the file", what);
    CHECK(diag_n >= 1 && strstr(diag_last.msg, place), "%s: \"%s\" does not name \"%s\"", what, diag_last.msg, place);
    CHECK(diag_n >= 1 && strstr(diag_last.msg, cause), "%s: \"%s\" lacks \"%s\"", what, diag_last.msg, cause);
}

/* One F32 tensor "w" of [8][2] after a u32 key: the good image the cases below break. */
static void good(pg_buf *b) {
    static const uint64_t ne[] = {8, 2};
    hdr(b, 1, 1);
    kv_u32(b, "k.a", 7);
    tinfo(b, "w", 2, ne, GGUF_T_F32, 0);
    data(b, 32, 64);
}

static void test_errors(void) {
    pg_buf b = {0};
#define RESET() (b.len = 0)
    good(&b);
    expect_ok("the good image", &b);

    RESET(); pg_buf_puts(&b, "GGUX"); u32(&b, 3); u64(&b, 0); u64(&b, 0);
    expect_err("bad magic", &b, "magic 'GGUX'", "not a GGUF file");
    RESET(); pg_buf_puts(&b, "GG");
    expect_err("2-byte file", &b, "GG", "not a GGUF file");
    RESET(); pg_buf_puts(&b, "GGUF"); u32(&b, 3); u64(&b, 0);
    expect_err("truncated header", &b, "16 bytes", "truncated");
    RESET(); pg_buf_puts(&b, "GGUF"); u32(&b, 1); u64(&b, 0); u64(&b, 0);
    expect_err("version 1", &b, "version 1", "not supported");
    RESET(); pg_buf_puts(&b, "GGUF"); u32(&b, 9); u64(&b, 0); u64(&b, 0);
    expect_err("version 9", &b, "version 9", "not supported");
    RESET(); pg_buf_puts(&b, "GGUF"); u32(&b, 0x03000000u); u64(&b, 0); u64(&b, 0);
    expect_err("big-endian", &b, "big-endian", "not supported");
    RESET(); pg_buf_puts(&b, "GGUF"); u32(&b, 2); u64(&b, 0); u64(&b, 0);
    expect_ok("version 2, empty", &b);
    RESET(); hdr(&b, 0, 0);
    expect_ok("version 3, empty", &b);

    /* counts */
    RESET(); hdr(&b, 1ull << 40, 0); data(&b, 1, 100);
    expect_err("tensor count", &b, "1099511627776 tensors", "more than the file");
    RESET(); hdr(&b, 0, UINT64_MAX); data(&b, 1, 100);
    expect_err("kv count", &b, "18446744073709551615 key/value", "more than the file");
    RESET(); hdr(&b, 3, 0); data(&b, 1, 98);   /* 3 x 33 bytes do not fit in 98 */
    expect_err("tensor count just too large", &b, "3 tensors", "more than the file");

    /* key/values */
    RESET(); hdr(&b, 0, 1); u64(&b, 100); pg_buf_puts(&b, "short");
    expect_err("key past the end", &b, "key #0", "runs past the end");
    RESET(); hdr(&b, 0, 1); u64(&b, UINT64_MAX); u64(&b, 0);
    expect_err("key length 2^64-1", &b, "key #0", "runs past the end");
    RESET(); hdr(&b, 0, 1); str(&b, "k.t"); u32(&b, 13); u32(&b, 0);
    expect_err("unknown value type", &b, "key 'k.t'", "unknown value type 13");
    RESET(); hdr(&b, 0, 2); kv_u32(&b, "k.ok", 1); str(&b, "k.u64"); u32(&b, GGUF_V_U64); u32(&b, 5);
    expect_err("truncated scalar", &b, "key 'k.u64'", "truncated u64 value");
    RESET(); hdr(&b, 0, 1); str(&b, "k.s"); u32(&b, GGUF_V_STRING); u64(&b, 1000); pg_buf_puts(&b, "abc");
    expect_err("string value past the end", &b, "k.s", "string of 1000 bytes");
    RESET(); hdr(&b, 0, 1); str(&b, "k.a"); u32(&b, GGUF_V_ARRAY); u32(&b, 77); u64(&b, 1); u32(&b, 0);
    expect_err("array of unknown type", &b, "key 'k.a'", "unknown value type 77");
    RESET(); hdr(&b, 0, 1); str(&b, "k.a"); u32(&b, GGUF_V_ARRAY); u32(&b, GGUF_V_ARRAY); u64(&b, 1); u32(&b, 0); u32(&b, 0);
    expect_err("array of arrays", &b, "key 'k.a'", "arrays of arrays");
    RESET(); hdr(&b, 0, 1); str(&b, "k.a"); u32(&b, GGUF_V_ARRAY); u32(&b, GGUF_V_I32); u64(&b, 1ull << 62); u32(&b, 0);
    expect_err("array length past the end", &b, "key 'k.a'", "runs past the end");
    RESET(); hdr(&b, 0, 1); str(&b, "k.a"); u32(&b, GGUF_V_ARRAY); u32(&b, GGUF_V_STRING); u64(&b, 1000); str(&b, "x");
    expect_err("string array count", &b, "key 'k.a'", "array of 1000 strings cannot fit");
    RESET(); hdr(&b, 0, 1); str(&b, "k.a"); u32(&b, GGUF_V_ARRAY); u32(&b, GGUF_V_STRING); u64(&b, 2); str(&b, "x");
    u64(&b, 50); pg_buf_puts(&b, "ab");
    expect_err("string array element", &b, "key 'k.a' element 1", "string of 50 bytes");
    RESET(); hdr(&b, 0, 1); str(&b, "k.a"); u32(&b, GGUF_V_ARRAY); u32(&b, GGUF_V_U8);
    expect_err("truncated array header", &b, "key 'k.a'", "truncated array header");
    RESET(); hdr(&b, 0, 1); str(&b, "k.t"); pg_buf_putn(&b, "\4\0", 2);
    expect_err("truncated before the type", &b, "key 'k.t'", "truncated before its value type");
    RESET(); hdr(&b, 0, 2); kv_u32(&b, "k.same", 1); kv_u32(&b, "k.same", 2);
    expect_err("duplicate key", &b, "key 'k.same'", "appears twice");
    RESET(); hdr(&b, 0, 1); str(&b, "k\n\x01"); u32(&b, 99); u32(&b, 0);
    expect_err("key with control bytes", &b, "key 'k\\x0a\\x01'", "unknown value type");
    RESET(); hdr(&b, 0, 1); str(&b, "general.alignment"); u32(&b, GGUF_V_U64); u64(&b, 32);
    expect_err("alignment type", &b, "general.alignment", "expected a u32, got u64");
    RESET(); hdr(&b, 0, 1); kv_u32(&b, "general.alignment", 48);
    expect_err("alignment not a power of two", &b, "general.alignment", "48 is not a power of two");
    RESET(); hdr(&b, 0, 1); kv_u32(&b, "general.alignment", 0);
    expect_err("alignment zero", &b, "general.alignment", "0 is not a power of two");

    /* tensors */
    static const uint64_t ne82[] = {8, 2}, ne32[] = {32}, ne33[] = {33}, ne0[] = {8, 0}, neneg[] = {8, 1ull << 63};
    static const uint64_t nebig[] = {1ull << 40, 1ull << 40}, ne5[] = {1, 1, 1, 1, 1};
    char longname[100];
    memset(longname, 'n', 96);
    longname[96] = 0;
    RESET(); hdr(&b, 1, 0); tinfo(&b, "", 2, ne82, GGUF_T_F32, 0); data(&b, 32, 64);
    expect_err("empty name", &b, "tensor #0", "empty name");
    RESET(); hdr(&b, 1, 0); tinfo(&b, longname, 2, ne82, GGUF_T_F32, 0); data(&b, 32, 64);
    expect_err("name too long", &b, "tensor 'nnnn", "name too long (96 bytes, at most 95)");
    longname[95] = 0;
    RESET(); hdr(&b, 1, 0); tinfo(&b, longname, 2, ne82, GGUF_T_F32, 0); data(&b, 32, 64);
    expect_ok("95-byte name", &b);
    RESET(); hdr(&b, 1, 0); u64(&b, 3); pg_buf_putn(&b, "a\0b", 3); u32(&b, 1); u64(&b, 8); u32(&b, 0); u64(&b, 0); data(&b, 32, 32);
    expect_err("name with NUL", &b, "tensor 'a\\x00b'", "NUL byte");
    RESET(); hdr(&b, 1, 0); tinfo(&b, "w", 0, ne82, GGUF_T_F32, 0); data(&b, 32, 64);
    expect_err("n_dims 0", &b, "tensor 'w'", "n_dims 0 is outside 1..4");
    RESET(); hdr(&b, 1, 0); tinfo(&b, "w", 5, ne5, GGUF_T_F32, 0); data(&b, 32, 64);
    expect_err("n_dims 5", &b, "tensor 'w'", "n_dims 5 is outside 1..4");
    RESET(); hdr(&b, 1, 0); tinfo(&b, "w", 2, ne0, GGUF_T_F32, 0); data(&b, 32, 64);
    expect_err("dim 0", &b, "tensor 'w'", "ne[1] = 0 is not a positive size");
    RESET(); hdr(&b, 1, 0); tinfo(&b, "w", 2, neneg, GGUF_T_F32, 0); data(&b, 32, 64);
    expect_err("negative dim", &b, "tensor 'w'", "is not a positive size");
    RESET(); hdr(&b, 1, 0); tinfo(&b, "w", 2, nebig, GGUF_T_F32, 0); data(&b, 32, 64);
    expect_err("dims overflow", &b, "tensor 'w'", "need more bytes than the file has");
    RESET(); hdr(&b, 1, 0); tinfo(&b, "w", 2, ne82, 99, 0); data(&b, 32, 64);
    expect_err("unknown tensor type", &b, "tensor 'w'", "unknown or unsupported tensor type 99");
    RESET(); hdr(&b, 1, 0); tinfo(&b, "w", 1, ne32, GGUF_T_Q8_1, 0); data(&b, 32, 64);
    expect_err("Q8_1", &b, "tensor 'w'", "unsupported tensor type 9");
    RESET(); hdr(&b, 1, 0); tinfo(&b, "w", 1, ne33, GGUF_T_Q4_0, 0); data(&b, 32, 64);
    expect_err("partial block", &b, "tensor 'w'", "ne[0] = 33 is not a whole number of Q4_0 blocks (32)");
    RESET(); hdr(&b, 1, 0); tinfo(&b, "w", 1, ne32, GGUF_T_Q4_0, 0); data(&b, 32, 18);
    expect_ok("one Q4_0 block", &b);
    RESET(); hdr(&b, 1, 0); tinfo(&b, "w", 1, ne32, GGUF_T_Q4_0, 0); data(&b, 32, 17);
    expect_err("Q4_0 data one byte short", &b, "tensor 'w'", "past the end of the file");
    RESET(); hdr(&b, 1, 0); tinfo(&b, "w", 2, ne82, GGUF_T_F32, 4); data(&b, 32, 68);
    expect_err("misaligned offset", &b, "tensor 'w'", "offset 4 is not a multiple of general.alignment (32)");
    RESET(); hdr(&b, 1, 0); tinfo(&b, "w", 2, ne82, GGUF_T_F32, 1ull << 62); data(&b, 32, 64);
    expect_err("offset out of range", &b, "tensor 'w'", "past the end of the file");
    RESET(); hdr(&b, 1, 0); tinfo(&b, "w", 2, ne82, GGUF_T_F32, 0); data(&b, 32, 63);
    expect_err("data one byte short", &b, "tensor 'w'", "data [");
    RESET(); hdr(&b, 2, 0); tinfo(&b, "w", 2, ne82, GGUF_T_F32, 0); tinfo(&b, "v", 2, ne82, GGUF_T_F32, 32); data(&b, 32, 96);
    expect_err("overlapping tensors", &b, "tensor 'v'", "overlaps tensor 'w'");
    RESET(); hdr(&b, 2, 0); tinfo(&b, "w", 2, ne82, GGUF_T_F32, 64); tinfo(&b, "v", 2, ne82, GGUF_T_F32, 0); data(&b, 32, 128);
    expect_ok("two tensors, data in the other order", &b);
    RESET(); hdr(&b, 2, 0); tinfo(&b, "w", 2, ne82, GGUF_T_F32, 0); tinfo(&b, "w", 2, ne82, GGUF_T_F32, 64); data(&b, 32, 128);
    expect_err("duplicate tensor name", &b, "tensor 'w'", "appears twice (tensors #0 and #1)");
    RESET(); hdr(&b, 1, 0); str(&b, "w"); u32(&b, 2); u64(&b, 8);
    pg_buf_putn(&b, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 28);
    b.len -= 16;   /* n_dims 2 but the second dim, type and offset are cut */
    expect_err("truncated tensor info", &b, "tensor", "");
    RESET(); hdr(&b, 1, 1); kv_u32(&b, "general.alignment", 64); tinfo(&b, "w", 2, ne82, GGUF_T_F32, 32); data(&b, 64, 96);
    expect_err("offset aligned to 32 but not 64", &b, "tensor 'w'", "not a multiple of general.alignment (64)");
    pg_buf_free(&b);
#undef RESET

    /* files: missing, a directory, shorter than the header */
    pg_diag_sink s = sink();
    gguf_file *g = NULL;
    CHECK(model_gguf_open("/nonexistent/m.gguf", &g, &s) == PG_ERR_IO && !g && diag_n == 1 && diag_last.id == PG_E_MODEL_FILE &&
              !strcmp(diag_last.file, "/nonexistent/m.gguf") && strstr(diag_last.msg, "cannot open"), "missing file: %s", diag_text);
    s = sink();
    CHECK(model_gguf_open("tests/model/gguf", &g, &s) == PG_ERR_IO && !g && diag_n == 1 && strstr(diag_last.msg, "not a regular file"),
          "directory: %s", diag_text);
    char path[] = "/tmp/ptxgen_gguf_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, "GGUF\3\0\0\0\0\0", 10) == 10, "write a short file");
    if (fd >= 0) close(fd);
    s = sink();
    CHECK(model_gguf_open(path, &g, &s) == PG_ERR_PARSE && !g && diag_n == 1 && diag_last.file && !strcmp(diag_last.file, path) &&
              strstr(diag_last.msg, "truncated: 10 bytes"), "10-byte file: %s", diag_text);
    unlink(path);
}

/* Every proper prefix of types.gguf that cuts tensor data or header fails with
 * one E801; cutting only the final padding is allowed to succeed. */
static void test_truncations(void) {
    char *img = NULL;
    size_t len = 0;
    pg_diag_sink s = sink();
    CHECK(pg_read_file(GD "types.gguf", 1 << 22, &img, &len, &s) == PG_OK, "read types.gguf");
    if (!img) return;
    gguf_file *g = NULL;
    CHECK(model_gguf_open_mem(img, len, "t.gguf", &g, &s) == PG_OK, "types.gguf from memory");
    size_t data_end = 0;
    for (int i = 0; g && i < model_gguf_tensor_count(g); i++) {
        const gguf_tensor *t = model_gguf_tensor_at(g, i);
        size_t e = (size_t)(model_gguf_data_start(g) + t->offset + t->nbytes);
        if (e > data_end) data_end = e;
    }
    model_gguf_close(g);
    int bad = 0;
    for (size_t n = 0; n < len; n++) {
        pg_diag_sink s2 = sink();
        /* a copy of exactly n bytes, so ASan sees any read past the end */
        char *cut = malloc(n ? n : 1);
        memcpy(cut, img, n);
        pg_status st = model_gguf_open_mem(cut, n, "t.gguf", &g, &s2);
        bool ok = n >= data_end ? (st == PG_OK || diag_n == 1) : (st != PG_OK && diag_n == 1 && diag_last.id == PG_E_MODEL_FILE);
        if (!ok && bad++ < 3) fprintf(stderr, "  prefix %zu: status %d, %d diagnostics: %s\n", n, st, diag_n, diag_text);
        model_gguf_close(g);
        free(cut);
    }
    CHECK(bad == 0, "%d of %zu truncations of types.gguf misbehave", bad, len);
    free(img);
}

/* ---- the real model files ------------------------------------------------------ */

static void test_real(const char *env, const char *def, const char *key, int ntensors) {
    const char *path = getenv(env);
    if (!path || !*path) path = def;
    if (access(path, R_OK) != 0) {
        printf("SKIPPED: %s not found (set %s)\n", path, env);
        return;
    }
    json_error_t je;
    json_t *all = json_load_file(GD "real_rows.json", 0, &je), *ref = json_object_get(all, key);
    CHECK(ref != NULL, "real_rows.json has %s", key);
    pg_diag_sink s = sink();
    gguf_file *g = NULL;
    CHECK(model_gguf_open(path, &g, &s) == PG_OK, "%s: %s", path, diag_text);
    if (!g || !ref) { model_gguf_close(g); json_decref(all); return; }
    if (model_gguf_file_size(g) != (uint64_t)json_integer_value(json_object_get(ref, "size"))) {
        printf("SKIPPED: %s is not the file real_rows.json was made from (%llu bytes)\n", path,
               (unsigned long long)model_gguf_file_size(g));
        model_gguf_close(g);
        json_decref(all);
        return;
    }
    CHECK(model_gguf_tensor_count(g) == ntensors, "%s: %d tensors, want %d", path, model_gguf_tensor_count(g), ntensors);
    json_t *by = json_object_get(ref, "by_name");
    int bad = 0, checked = 0;
    float *row = NULL;
    for (int i = 0; i < model_gguf_tensor_count(g); i++) {
        const gguf_tensor *t = model_gguf_tensor_at(g, i);
        json_t *e = json_object_get(by, t->name);
        if (!e || strcmp(json_string_value(json_object_get(e, "type")), model_gguf_type_name(t->type))) { bad++; continue; }
        row = realloc(row, (size_t)t->ne[0] * sizeof *row);
        size_t idx;
        json_t *r;
        json_array_foreach(json_object_get(e, "rows"), idx, r) {
            int64_t ri = json_integer_value(json_object_get(r, "row"));
            model_gguf_dequant_row(t->type, (const uint8_t *)t->data + (size_t)ri * model_gguf_tensor_row_bytes(t), row, t->ne[0]);
            char h[32];
            snprintf(h, sizeof h, "%016llx", (unsigned long long)pg_hash64(row, (size_t)t->ne[0] * sizeof *row));
            bool ok = !strcmp(h, json_string_value(json_object_get(r, "fnv")));
            for (size_t k = 0; k < 4 && k < (size_t)t->ne[0]; k++) {
                json_t *hv = json_array_get(json_object_get(r, "head"), k);   /* null: not finite */
                ok &= json_is_null(hv) ? !isfinite(row[k]) : row[k] == (float)json_number_value(hv);
            }
            if (!ok && bad++ < 5) fprintf(stderr, "  %s row %lld differs from gguf-py (%s)\n", t->name, (long long)ri, model_gguf_type_name(t->type));
            checked++;
        }
    }
    free(row);
    CHECK(bad == 0, "%s: %d of %d rows differ from gguf-py", path, bad, checked);
    printf("%s: %d tensors, %d rows equal to gguf-py\n", path, model_gguf_tensor_count(g), checked - bad);
    model_gguf_close(g);
    json_decref(all);
}

int main(void) {
    test_types();
    test_metadata();
    test_errors();
    test_truncations();
    test_real("PTXGEN_QWEN_GGUF", "models/base/qwen2.5-coder-0.5b-instruct.gguf", "qwen", 291);
    test_real("PTXGEN_SMOL_GGUF", "models/base/smollm2-135m-instruct.Q4_1.gguf", "smol", 272);
    return TEST_DONE();
}
