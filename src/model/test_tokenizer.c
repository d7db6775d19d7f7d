/* test_tokenizer.c — the C tokenizer against Hugging Face `tokenizers`.
 *
 * tests/tokenizer/golden.json (made by tests/tokenizer/make_golden.py) holds
 * texts and, for 13 tokenizer.json files, the ids HF's encode(text,
 * add_special_tokens=False) gives and what HF's decode gives back.  Every id
 * must match.  Plus: decode(encode(x)) == x, invalid UTF-8, the accessors,
 * and E804 diagnostics for broken files.  Run from the repository root. */
#include "model/tok_internal.h"
#include "common/test.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DIR "tests/tokenizer/"

typedef struct { int n; pg_diag last; } diag_log;
static void log_diag(void *user, const pg_diag *d) {
    diag_log *l = user;
    l->n++;
    l->last = *d;
}

static void print_ids(const char *label, const int32_t *ids, size_t n) {
    fprintf(stderr, "  %s (%zu):", label, n);
    for (size_t i = 0; i < n && i < 40; i++) fprintf(stderr, " %d", ids[i]);
    fprintf(stderr, n > 40 ? " ...\n" : "\n");
}

static int golden_mismatches;

/* Rust's String::from_utf8_lossy, which HF's decode applies: each maximal
 * invalid subsequence becomes one U+FFFD. */
static void utf8_lossy(const char *in, size_t n, pg_buf *out) {
    const unsigned char *s = (const unsigned char *)in;
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        int need = c < 0x80 ? 0 : c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : -1;
        size_t k = 1;
        if (need > 0) {
            unsigned char lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80, hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
            while ((int)k <= need && i + k < n && s[i + k] >= (k == 1 ? lo : 0x80) && s[i + k] <= (k == 1 ? hi : 0xBF)) k++;
        }
        if (need >= 0 && (int)k == need + 1) pg_buf_putn(out, in + i, k);
        else pg_buf_puts(out, "\xEF\xBF\xBD");
        i += need >= 0 && (int)k == need + 1 ? k : (need > 0 ? k : 1);
    }
    if (!out->data) pg_buf_putn(out, "", 0);
}

static void check_tokenizer(json_t *texts, json_t *tj) {
    const char *name = json_string_value(json_object_get(tj, "name"));
    char path[256];
    snprintf(path, sizeof path, DIR "%s", json_string_value(json_object_get(tj, "file")));
    bool lossless = json_is_true(json_object_get(tj, "lossless"));
    json_t *all_ids = json_object_get(tj, "ids"), *decoded = json_object_get(tj, "decoded");
    diag_log log = {0};
    pg_diag_sink sink = {log_diag, &log, 0, 0, 0};
    tok_tokenizer *t = NULL;
    pg_status st = tok_load(path, &t, &sink);
    CHECK(st == PG_OK, "%s: tok_load failed: %s", path, log.n ? log.last.msg : "?");
    if (st != PG_OK) return;
    CHECK(tok_vocab_size(t) == json_integer_value(json_object_get(tj, "vocab_size")), "%s: vocab size %d", name, tok_vocab_size(t));
    int bad = 0, ok = 0;
    for (size_t i = 0; i < json_array_size(texts); i++) {
        json_t *jt = json_array_get(texts, i), *want = json_array_get(all_ids, i);
        const char *text = json_string_value(jt);
        size_t len = json_string_length(jt);
        int32_t *ids = NULL;
        size_t n = 0;
        st = tok_encode(t, text, len, &ids, &n);
        if (json_is_null(want)) {                           /* NFC tokenizer, text not known to be NFC */
            CHECK(st == PG_ERR_INVALID, "%s: text %zu should be refused (needs NFC), got %s", name, i, pg_status_str(st));
            free(ids);
            continue;
        }
        bool same = st == PG_OK && n == json_array_size(want);
        for (size_t k = 0; same && k < n; k++) same = ids[k] == json_integer_value(json_array_get(want, k));
        if (same) ok++;
        else {
            bad++;
            if (bad <= 5) {
                fprintf(stderr, "FAIL %s: text %zu %.*s%s\n", name, i, (int)(len > 120 ? 120 : len), text, len > 120 ? "..." : "");
                print_ids("C ", ids, n);
                int32_t w[64];
                size_t wn = json_array_size(want) < 64 ? json_array_size(want) : 64;
                for (size_t k = 0; k < wn; k++) w[k] = (int32_t)json_integer_value(json_array_get(want, k));
                print_ids("HF", w, json_array_size(want));
            }
        }
        if (st == PG_OK) {
            /* decode HF's ids: the same bytes HF's decode gives */
            int32_t *hf = malloc(sizeof(int32_t) * (json_array_size(want) + 1));
            for (size_t k = 0; k < json_array_size(want); k++) hf[k] = (int32_t)json_integer_value(json_array_get(want, k));
            pg_buf raw = {0}, b = {0};
            tok_decode(t, hf, json_array_size(want), &raw);
            utf8_lossy(raw.data, raw.len, &b);
            pg_buf_free(&raw);
            char key[32];
            snprintf(key, sizeof key, "%zu", i);
            json_t *d = json_object_get(decoded, key);
            const char *exp = d ? json_string_value(d) : text;
            size_t explen = d ? json_string_length(d) : len;
            CHECK(b.len == explen && memcmp(b.data, exp, explen) == 0, "%s: text %zu: decode differs from HF's", name, i);
            if (lossless) {
                pg_buf rt = {0};
                tok_decode(t, ids, n, &rt);
                CHECK(rt.len == len && memcmp(rt.data, text, len) == 0, "%s: text %zu: decode(encode(x)) != x", name, i);
                pg_buf_free(&rt);
            }
            pg_buf_free(&b);
            free(hf);
        }
        free(ids);
    }
    CHECK(bad == 0, "%s: %d of %d golden texts differ from HF", name, bad, ok + bad);
    golden_mismatches += bad;
    if (bad == 0) t_pass += ok;     /* count every matching text */

    /* invalid UTF-8: no crash, valid ids, and lossless tokenizers give the bytes back */
    static const char *const bad_utf8[] = {"\xff", "a\x80" "b", "\xc3", "ld\xe4\xb8 %r1", "\xed\xa0\x80 surrogate",
                                           "\xf8\x88\x80\x80\x80", "\xc0\xaf overlong", "x\xf0\x9f\x9a", "\xe4\xb8\xad\xe6"};
    for (size_t i = 0; i < sizeof bad_utf8 / sizeof *bad_utf8; i++) {
        const char *s = bad_utf8[i];
        int32_t *ids = NULL;
        size_t n = 0;
        st = tok_encode(t, s, strlen(s), &ids, &n);
        CHECK(st == PG_OK, "%s: invalid UTF-8 case %zu: %s", name, i, pg_status_str(st));
        bool valid = true;
        for (size_t k = 0; k < n; k++) valid &= ids[k] >= 0 && ids[k] < tok_vocab_size(t);
        CHECK(valid, "%s: invalid UTF-8 case %zu gave an id out of range", name, i);
        if (lossless && st == PG_OK) {
            pg_buf rt = {0};
            tok_decode(t, ids, n, &rt);
            CHECK(rt.len == strlen(s) && memcmp(rt.data, s, rt.len) == 0, "%s: invalid UTF-8 case %zu does not round-trip", name, i);
            pg_buf_free(&rt);
        }
        free(ids);
    }
    tok_free(t);
}

static void test_accessors(void) {
    tok_tokenizer *t = NULL;
    pg_diag_sink sink = {0};
    CHECK(tok_load(DIR "qwen2_plain.json", &t, &sink) == PG_OK, "load");
    if (!t) return;
    int32_t ptx = tok_special_id(t, "<|ptx|>");
    CHECK(ptx == 3, "<|ptx|> is id 3 (the 4th special token), got %d", ptx);
    CHECK(tok_is_special(t, ptx), "<|ptx|> is special");
    CHECK(tok_special_id(t, "<|nope|>") == -1, "unknown special");
    CHECK(tok_special_id(t, "ld") == -1, "vocab tokens are not added tokens");
    size_t len;
    const char *s = tok_token_bytes(t, ptx, &len);
    CHECK(s && len == 7 && !memcmp(s, "<|ptx|>", 7), "special token bytes are its text");
    CHECK(tok_token_bytes(t, -1, &len) == NULL && len == 0, "id -1");
    CHECK(tok_token_bytes(t, tok_vocab_size(t), &len) == NULL, "id past the end");
    CHECK(!tok_is_special(t, 100) && !tok_is_special(t, -5) && !tok_is_special(t, 1 << 30), "not special");
    /* every byte is a token of its own: byte-level decoding of the alphabet */
    int32_t *ids = NULL;
    size_t n = 0;
    char all[256];
    for (int i = 0; i < 256; i++) all[i] = (char)i;
    CHECK(tok_encode(t, all, 256, &ids, &n) == PG_OK && n > 0, "all bytes");
    pg_buf b = {0};
    tok_decode(t, ids, n, &b);
    CHECK(b.len == 256 && !memcmp(b.data, all, 256), "all 256 bytes round-trip");
    pg_buf_free(&b);
    free(ids);
    /* a PTX line's indent + opcode is one pre-token (Qwen2 regex) and one token here */
    CHECK(tok_encode(t, "\tld", 3, &ids, &n) == PG_OK && n == 1, "\"\\tld\" is one token (%zu)", n);
    if (n == 1) {
        s = tok_token_bytes(t, ids[0], &len);
        CHECK(len == 3 && !memcmp(s, "\tld", 3), "its bytes");
    }
    free(ids);
    CHECK(tok_encode(t, "", 0, &ids, &n) == PG_OK && n == 0 && ids, "empty text: zero ids, freeable pointer");
    free(ids);
    tok_free(t);
    tok_free(NULL);
}

/* Write `text` to a temp file and expect tok_load to fail with E804 naming it
 * and saying `cause`. */
static void expect_load_error(const char *what, const char *text, size_t len, const char *cause) {
    char path[] = "/tmp/ptxgen_tok_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0) return;
    CHECK(write(fd, text, len) == (ssize_t)len, "write");
    close(fd);
    diag_log log = {0};
    pg_diag_sink sink = {log_diag, &log, 0, 0, 0};
    tok_tokenizer *t = NULL;
    pg_status st = tok_load(path, &t, &sink);
    CHECK(st != PG_OK && t == NULL, "%s: loads", what);
    CHECK(log.n >= 1 && log.last.id == PG_E_TOKENIZER && !strcmp(log.last.code, "E804"), "%s: E804 diagnostic", what);
    CHECK(log.n >= 1 && log.last.file && !strcmp(log.last.file, path), "%s: diagnostic names the file", what);
    CHECK(log.n >= 1 && strstr(log.last.msg, cause), "%s: message \"%s\" lacks \"%s\"", what, log.last.msg, cause);
    tok_free(t);
    unlink(path);
}

static void test_errors(void) {
    char *good = NULL;
    size_t len = 0;
    pg_diag_sink sink = {0};
    CHECK(pg_read_file(DIR "qwen2_plain.json", 1 << 24, &good, &len, &sink) == PG_OK, "read qwen2_plain.json");
    if (!good) return;
    expect_load_error("truncated JSON", good, len / 2, "not valid JSON");
    expect_load_error("empty file", "", 0, "not valid JSON");
    expect_load_error("JSON array", "[1,2]", 5, "top level");
    struct { const char *what, *from, *to, *cause; } cases[] = {
        {"wrong model type", "\"type\":\"BPE\"", "\"type\":\"WordPiece\"", "\"WordPiece\" is not supported"},
        {"unigram model", "\"type\":\"BPE\"", "\"type\":\"Unigram\"", "\"Unigram\" is not supported"},
        {"missing vocab", "\"vocab\":", "\"vocab_\":", "model.vocab: missing"},
        {"merge with unknown token", "\"merges\":[[", "\"merges\":[[\"nosuchtoken\",\"t\"],[", "\"nosuchtoken\" is not in the vocab"},
        {"bad merge shape", "\"merges\":[", "\"merges\":[42,", "expected \"a b\""},
        {"legacy merge with 3 parts", "\"merges\":[", "\"merges\":[\"a b c\",", "not two tokens"},
        {"vocab id negative", "\"vocab\":{", "\"vocab\":{\"zz\":-3,", "id must be an integer"},
        {"dropout", "\"dropout\":null", "\"dropout\":0.1", "dropout"},
        {"normalizer", "\"normalizer\":null", "\"normalizer\":{\"type\":\"Lowercase\"}", "\"Lowercase\" is not supported"},
        {"pre-tokenizer", "\"pre_tokenizer\":{", "\"pre_tokenizer\":{\"type\":\"Whitespace\"},\"x\":{", "\"Whitespace\" is not supported"},
        {"no pre-tokenizer", "\"pre_tokenizer\":{", "\"pre_tokenizer\":null,\"x\":{", "needs a ByteLevel"},
        {"bad regex", "\"Regex\":\"", "\"Regex\":\"(unclosed", "does not compile"},
        {"split behavior", "\"behavior\":\"Isolated\"", "\"behavior\":\"Sideways\"", "not a split behavior"},
        {"decoder", "\"decoder\":{\"type\":\"ByteLevel\"", "\"decoder\":{\"type\":\"WordPiece\"", "decoder"},
        {"added token without id", "\"id\":0,", "", "\"id\" must be an integer"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *bad = test_replace(good, cases[i].from, cases[i].to);
        CHECK(bad != NULL, "%s: pattern %s not in qwen2_plain.json", cases[i].what, cases[i].from);
        if (bad) expect_load_error(cases[i].what, bad, strlen(bad), cases[i].cause);
        free(bad);
    }
    /* a missing file is E804 too */
    diag_log log = {0};
    pg_diag_sink s2 = {log_diag, &log, 0, 0, 0};
    tok_tokenizer *t = NULL;
    CHECK(tok_load("/nonexistent/tokenizer.json", &t, &s2) == PG_ERR_IO && !t, "missing file");
    CHECK(log.n == 1 && log.last.id == PG_E_TOKENIZER && log.last.file && !strcmp(log.last.file, "/nonexistent/tokenizer.json") &&
              strstr(log.last.msg, "cannot read"), "missing file diagnostic: %s", log.last.msg);
    free(good);
}

int main(void) {
    json_error_t je;
    json_t *g = json_load_file(DIR "golden.json", JSON_ALLOW_NUL, &je);
    CHECK(g != NULL, "cannot read " DIR "golden.json (run from the repository root): %s", je.text);
    if (g) {
        json_t *texts = json_object_get(g, "texts"), *toks = json_object_get(g, "tokenizers");
        CHECK(json_array_size(texts) > 200 && json_array_size(toks) >= 13, "golden.json has texts and tokenizers");
        for (size_t i = 0; i < json_array_size(toks); i++) check_tokenizer(texts, json_array_get(toks, i));
        json_decref(g);
    }
    test_accessors();
    test_errors();
    return TEST_DONE();
}
