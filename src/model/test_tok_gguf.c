/* test_tok_gguf.c — tokenizers read from GGUF metadata (tok_load_gguf)
 * against transformers + tokenizers.
 *
 * tests/tokenizer/gguf_golden.json (tests/tokenizer/make_gguf_golden.py) holds
 * the ids the reference gives for golden.json's texts plus extra PTX / Chinese
 * / chat-template texts, for two small GGUF tokenizers committed beside it
 * (pre-tokenizers "qwen2" and "smollm", every token type) and for the real
 * model files, tested when present ($PTXGEN_QWEN_GGUF, $PTXGEN_SMOL_GGUF, else
 * models/base/...; "SKIPPED: ..." otherwise).  Every id must match, and
 * decode(ids) must give the text back.  Plus the E804 diagnostics for GGUF
 * tokenizers we cannot build.  Run from the repository root. */
#include "common/test.h"
#include "model/tok_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DIR "tests/tokenizer/"

static pg_diag last;
static int ndiag;
static void capture(void *user, const pg_diag *d) { (void)user; last = *d; ndiag++; }
static pg_diag_sink sink(void) { ndiag = 0; memset(&last, 0, sizeof last); pg_diag_sink s = {capture, NULL, 0, 0, 0}; return s; }

static const char *text_at(json_t *base, json_t *extra, size_t i, size_t *len) {
    json_t *j = i < json_array_size(base) ? json_array_get(base, i) : json_array_get(extra, i - json_array_size(base));
    *len = json_string_length(j);
    return json_string_value(j);
}

static void check_entry(json_t *e, json_t *base, json_t *extra) {
    const char *name = json_string_value(json_object_get(e, "name"));
    char path[1024];
    json_t *file = json_object_get(e, "file");
    if (file) snprintf(path, sizeof path, DIR "%s", json_string_value(file));
    else {
        const char *env = getenv(json_string_value(json_object_get(e, "env")));
        snprintf(path, sizeof path, "%s", env && *env ? env : json_string_value(json_object_get(e, "default")));
        if (access(path, R_OK) != 0) {
            printf("SKIPPED: %s: %s not found (set %s)\n", name, path, json_string_value(json_object_get(e, "env")));
            return;
        }
        FILE *f = fopen(path, "rb");
        long size = -1;
        if (f && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
        if (f) fclose(f);
        if (size != json_integer_value(json_object_get(e, "size"))) {
            printf("SKIPPED: %s: %s is not the file gguf_golden.json was made from (%ld bytes)\n", name, path, size);
            return;
        }
    }
    pg_diag_sink s = sink();
    tok_tokenizer *t = NULL;
    pg_status st = tok_load(path, &t, &s);    /* dispatches on the GGUF magic */
    CHECK(st == PG_OK, "%s: tok_load(%s): %s", name, path, last.msg);
    if (!t) return;
    CHECK(tok_vocab_size(t) == json_integer_value(json_object_get(e, "vocab_size")), "%s: vocab size %d", name, tok_vocab_size(t));
    json_t *all = json_object_get(e, "ids");
    size_t ntext = json_array_size(base) + json_array_size(extra);
    CHECK(json_array_size(all) == ntext, "%s: %zu id lists for %zu texts", name, json_array_size(all), ntext);
    int bad = 0, ok = 0;
    size_t nid_total = 0;
    for (size_t i = 0; i < ntext && i < json_array_size(all); i++) {
        size_t len;
        const char *text = text_at(base, extra, i, &len);
        json_t *want = json_array_get(all, i);
        int32_t *ids = NULL;
        size_t n = 0;
        st = tok_encode(t, text, len, &ids, &n);
        bool same = st == PG_OK && n == json_array_size(want);
        for (size_t k = 0; same && k < n; k++) same = ids[k] == json_integer_value(json_array_get(want, k));
        if (same) ok++;
        else if (bad++ < 5) {
            fprintf(stderr, "FAIL %s: text %zu %.*s%s\n  C :", name, i, (int)(len > 100 ? 100 : len), text, len > 100 ? "..." : "");
            for (size_t k = 0; k < n && k < 30; k++) fprintf(stderr, " %d", ids[k]);
            fprintf(stderr, "\n  HF:");
            for (size_t k = 0; k < json_array_size(want) && k < 30; k++) fprintf(stderr, " %lld", json_integer_value(json_array_get(want, k)));
            fprintf(stderr, "\n");
        }
        pg_buf b = {0};
        tok_decode(t, ids, n, &b);
        CHECK(b.len == len && !memcmp(b.data, text, len), "%s: text %zu: decode(encode(x)) != x", name, i);
        pg_buf_free(&b);
        nid_total += n;
        free(ids);
    }
    CHECK(bad == 0, "%s: %d of %d texts differ from the reference", name, bad, ok + bad);
    if (bad == 0) t_pass += ok;
    printf("%s: %d texts, %zu ids equal to the reference\n", name, ok, nid_total);
    tok_free(t);
}

/* The small "qwen2" file: token types become the right kinds of tokens. */
static void test_token_types(void) {
    pg_diag_sink s = sink();
    tok_tokenizer *t = NULL;
    CHECK(tok_load_gguf(DIR "tok_qwen2.gguf", &t, &s) == PG_OK, "tok_load_gguf: %s", last.msg);
    if (!t) return;
    int32_t im = tok_special_id(t, "<|im_start|>"), pad = tok_special_id(t, "<pad>");
    CHECK(im >= 0 && tok_is_special(t, im), "control token <|im_start|> is special (%d)", im);
    CHECK(pad >= 0 && !tok_is_special(t, pad), "user-defined <pad> is an added, non-special token (%d)", pad);
    CHECK(tok_special_id(t, "<| |>") == -1, "a control token spelled outside the alphabet is not matched");
    CHECK(tok_special_id(t, "<my tok>") == -1, "a user-defined token not in the vocab is not matched");
    CHECK(tok_special_id(t, "[PAD1]") == -1, "unused tokens are plain vocab");
    int32_t unused = tok_vocab_size(t) - 2;      /* "[PAD1]", token_type 5 */
    size_t ul;
    const char *ub = tok_token_bytes(t, unused, &ul);
    CHECK(tok_is_unused(t, unused) && ub && ul == 6 && !memcmp(ub, "[PAD1]", 6), "[PAD1] is unused and decodes to its text");
    CHECK(!tok_is_unused(t, im) && !tok_is_unused(t, 0) && !tok_is_unused(t, -1) && !tok_is_unused(t, tok_vocab_size(t)),
          "other ids are not unused");
    size_t len;
    const char *b = tok_token_bytes(t, tok_vocab_size(t) - 1, &len);   /* "\u00e9\u4e2d x", outside the alphabet */
    CHECK(b && len == 7 && !memcmp(b, "\xc3\xa9\xe4\xb8\xad x", 7), "a token outside the alphabet stands for its UTF-8");
    int32_t *ids = NULL;
    size_t n = 0;
    CHECK(tok_encode(t, "x<pad>y<|im_start|>", 19, &ids, &n) == PG_OK && n >= 3 && ids[n - 1] == im, "specials matched in text");
    free(ids);
    tok_free(t);
}

/* ---- E804 for GGUF tokenizers we cannot build --------------------------------- */

static void u32(pg_buf *b, uint32_t v) { for (int i = 0; i < 4; i++) pg_buf_putc(b, (char)(v >> 8 * i)); }
static void u64(pg_buf *b, uint64_t v) { for (int i = 0; i < 8; i++) pg_buf_putc(b, (char)(v >> 8 * i)); }
static void str(pg_buf *b, const char *s) { u64(b, strlen(s)); pg_buf_puts(b, s); }
static void kv_str(pg_buf *b, const char *k, const char *v) { str(b, k); u32(b, GGUF_V_STRING); str(b, v); }
static void kv_strs(pg_buf *b, const char *k, const char *const *v, int n) {
    str(b, k); u32(b, GGUF_V_ARRAY); u32(b, GGUF_V_STRING); u64(b, (uint64_t)n);
    for (int i = 0; i < n; i++) str(b, v[i]);
}
static void kv_i32s(pg_buf *b, const char *k, const int *v, int n) {
    str(b, k); u32(b, GGUF_V_ARRAY); u32(b, GGUF_V_I32); u64(b, (uint64_t)n);
    for (int i = 0; i < n; i++) u32(b, (uint32_t)v[i]);
}

/* A GGUF with only tokenizer keys; NULL fields are left out. */
typedef struct {
    const char *model, *pre;
    const char *const *toks; int ntoks;
    const int *types; int ntypes;
    const char *const *merges; int nmerges;
    bool types_as_str;
} tokspec;

static void build(pg_buf *b, const tokspec *sp) {
    int nkv = !!sp->model + !!sp->pre + !!sp->toks + !!sp->types + !!sp->merges + !!sp->types_as_str;
    b->len = 0;
    pg_buf_puts(b, "GGUF"); u32(b, 3); u64(b, 0); u64(b, (uint64_t)nkv);
    if (sp->model) kv_str(b, "tokenizer.ggml.model", sp->model);
    if (sp->pre) kv_str(b, "tokenizer.ggml.pre", sp->pre);
    if (sp->toks) kv_strs(b, "tokenizer.ggml.tokens", sp->toks, sp->ntoks);
    if (sp->types) kv_i32s(b, "tokenizer.ggml.token_type", sp->types, sp->ntypes);
    if (sp->types_as_str) kv_strs(b, "tokenizer.ggml.token_type", sp->toks, sp->ntoks);
    if (sp->merges) kv_strs(b, "tokenizer.ggml.merges", sp->merges, sp->nmerges);
}

static void expect(const char *what, const tokspec *sp, const char *cause) {
    pg_buf b = {0};
    build(&b, sp);
    pg_diag_sink s = sink();
    gguf_file *g = NULL;
    CHECK(model_gguf_open_mem(b.data, b.len, "tok.gguf", &g, &s) == PG_OK, "%s: the image is a valid GGUF: %s", what, last.msg);
    tok_tokenizer *t = NULL;
    s = sink();
    pg_status st = g ? tok_from_gguf(g, &t, &s) : PG_ERR_PARSE;
    if (!cause) {
        CHECK(st == PG_OK && t && ndiag == 0, "%s: should load: %s", what, last.msg);
    } else {
        CHECK(st != PG_OK && !t, "%s: loads", what);
        CHECK(ndiag == 1 && last.id == PG_E_TOKENIZER && last.file && !strcmp(last.file, "tok.gguf"), "%s: one E804 naming the file", what);
        CHECK(strstr(last.msg, cause), "%s: \"%s\" lacks \"%s\"", what, last.msg, cause);
    }
    tok_free(t);
    model_gguf_close(g);
    pg_buf_free(&b);
}

static void test_errors(void) {
    /* a complete byte-level alphabet is not needed to load: "a", "b", "ab" */
    static const char *const toks[] = {"a", "b", "ab", "<|end|>"};
    static const int types[] = {1, 1, 1, 3}, types_short[] = {1, 1};
    static const char *const merges[] = {"a b"}, *const bad_tok[] = {"a c"}, *const bad_join[] = {"b a"}, *const no_space[] = {"ab"};
    tokspec ok = {"gpt2", "qwen2", toks, 4, types, 4, merges, 1, false};
    expect("the good image", &ok, NULL);
    tokspec sp = ok;
    sp.pre = "smollm";
    expect("smollm", &sp, NULL);
    sp = ok; sp.model = NULL;
    expect("no tokenizer.ggml.model", &sp, "tokenizer.ggml.model: missing");
    sp = ok; sp.model = "llama";
    expect("SentencePiece", &sp, "tokenizer.ggml.model 'llama' is not supported");
    sp = ok; sp.pre = NULL;
    expect("no pre-tokenizer", &sp, "tokenizer.ggml.pre: missing");
    sp = ok; sp.pre = "falcon";
    expect("unknown pre-tokenizer", &sp, "tokenizer.ggml.pre 'falcon' is not supported (known: qwen2, smollm)");
    sp = ok; sp.toks = NULL; sp.types = NULL;
    expect("no tokens", &sp, "tokenizer.ggml.tokens: missing");
    sp = ok; sp.types = types_short; sp.ntypes = 2;
    expect("token_type too short", &sp, "tokenizer.ggml.token_type: expected an array of 4 integers");
    sp = ok; sp.types = NULL; sp.types_as_str = true;
    expect("token_type of strings", &sp, "tokenizer.ggml.token_type: expected an array of 4 integers");
    sp = ok; sp.types = NULL;
    expect("no token_type (all normal)", &sp, NULL);
    sp = ok; sp.merges = NULL;
    expect("no merges", &sp, "tokenizer.ggml.merges: missing");
    sp = ok; sp.merges = bad_tok;
    expect("merge of an unknown token", &sp, "tokenizer.ggml.merges[0]: token \"c\" is not in the vocab");
    sp = ok; sp.merges = bad_join;
    expect("merge result not in the vocab", &sp, "merged token \"ba\" is not in the vocab");
    sp = ok; sp.merges = no_space;
    expect("merge without a space", &sp, "is not two tokens separated by one space");

    /* tok_load on a broken GGUF: the reader's E801 */
    char path[] = "/tmp/ptxgen_tokgguf_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, "GGUF\3\0\0\0", 8) == 8, "write");
    if (fd >= 0) close(fd);
    pg_diag_sink s = sink();
    tok_tokenizer *t = NULL;
    CHECK(tok_load(path, &t, &s) != PG_OK && !t, "truncated GGUF");
    CHECK(ndiag >= 1 && last.id == PG_E_MODEL_FILE && last.file && !strcmp(last.file, path), "truncated GGUF: E801 naming it");
    unlink(path);
    /* a GGUF without a tokenizer through tok_load: E804 naming the path */
    s = sink();
    CHECK(tok_load("tests/model/gguf/align64.gguf", &t, &s) != PG_OK && !t, "GGUF without tokenizer");
    CHECK(ndiag == 1 && last.id == PG_E_TOKENIZER && last.file && !strcmp(last.file, "tests/model/gguf/align64.gguf") &&
              strstr(last.msg, "tokenizer.ggml.model: missing"), "GGUF without tokenizer: %s", last.msg);
}

int main(void) {
    json_error_t je;
    json_t *g = json_load_file(DIR "gguf_golden.json", 0, &je), *base = json_load_file(DIR "golden.json", JSON_ALLOW_NUL, &je);
    CHECK(g && base, "cannot read " DIR "gguf_golden.json / golden.json (run from the repository root)");
    if (g && base) {
        json_t *texts = json_object_get(base, "texts"), *extra = json_object_get(g, "extra_texts");
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(g, "tokenizers"), i, e) check_entry(e, texts, extra);
    }
    json_decref(g);
    json_decref(base);
    test_token_types();
    test_errors();
    return TEST_DONE();
}
