/* fuzz_gguf.c — fuzz target for the GGUF reader: model_gguf_open_mem on arbitrary
 * bytes; when it accepts them, every accessor is exercised: each key looked up
 * by name and read through every typed getter, array elements, each tensor
 * found by name and its first and last rows dequantized; and the tokenizer in
 * its metadata (tok_from_gguf) is built and run on a fixed text.  Properties: no
 * crash, hang or leak; a refusal always comes with a diagnostic; what
 * model_gguf_open accepted is consistent (data inside the input, lookups find what
 * iteration lists).  Built as a libFuzzer target (clang -fsanitize=fuzzer) or,
 * with -DPTXGEN_AFL_MAIN, as a program that reads one input from a file or
 * stdin.  Seeds (tests/fuzz.sh): the .gguf files in tests/model/gguf/ and
 * the inputs it once crashed on, tests/model/gguf/regress/. */
#include "model/tok_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok, const char *what) {
    if (!ok) { fprintf(stderr, "fuzz_gguf: %s\n", what); abort(); }
}

static void touch_kv(const gguf_file *g, const gguf_kv *kv) {
    char key[256];
    if (kv->key.len >= sizeof key || memchr(kv->key.s, 0, (size_t)kv->key.len)) return;
    memcpy(key, kv->key.s, (size_t)kv->key.len);
    key[kv->key.len] = 0;
    check(model_gguf_find(g, key) == kv, "model_gguf_find does not find a listed key");
    int64_t i;
    double f;
    bool b;
    gguf_str s;
    model_gguf_get_int(g, key, &i);
    model_gguf_get_float(g, key, &f);
    model_gguf_get_bool(g, key, &b);
    if (model_gguf_get_str(g, key, &s)) check(s.s >= (const char *)kv->value && s.len <= model_gguf_file_size(g), "string outside the file");
    if (kv->type != GGUF_V_ARRAY) return;
    uint64_t n = kv->arr_len < 4096 ? kv->arr_len : 4096;
    for (uint64_t k = 0; k < n; k++) {
        model_gguf_arr_int(kv, k, &i);
        model_gguf_arr_float(kv, k, &f);
        if (model_gguf_arr_str(kv, k, &s)) {
            volatile char sum = 0;
            for (uint64_t c = 0; c < s.len; c++) sum ^= s.s[c];   /* ASan checks every byte */
            (void)sum;
        }
    }
    check(!model_gguf_arr_int(kv, kv->arr_len, &i) && !model_gguf_arr_str(kv, kv->arr_len, &s), "array read past its length");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 22)) return 0;
    /* a copy of exactly `size` bytes: ASan flags any read past the input */
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    pg_diag_sink sink = {NULL, NULL, 0, 0, 0};
    gguf_file *g = NULL;
    pg_status st = model_gguf_open_mem(buf, size, "fuzz.gguf", &g, &sink);
    if (st != PG_OK) {
        check(g == NULL && sink.nerrors > 0, "refused without a diagnostic");
        free(buf);
        return 0;
    }
    for (int i = 0; i < model_gguf_kv_count(g); i++) touch_kv(g, model_gguf_kv_at(g, i));
    static float row[1 << 16];
    for (int i = 0; i < model_gguf_tensor_count(g); i++) {
        const gguf_tensor *t = model_gguf_tensor_at(g, i);
        check(model_gguf_tensor_find(g, t->name) == t, "model_gguf_tensor_find does not find a listed tensor");
        check((const uint8_t *)t->data >= buf && (const uint8_t *)t->data + t->nbytes <= buf + size, "tensor data outside the input");
        check(model_gguf_type_known(t->type) && t->ne[0] % model_gguf_type_block(t->type) == 0, "bad type or row");
        check(model_gguf_tensor_row_bytes(t) * (size_t)model_gguf_tensor_rows(t) == t->nbytes, "nbytes != rows x row bytes");
        if (t->ne[0] > (int64_t)(sizeof row / sizeof row[0])) continue;
        model_gguf_dequant_row(t->type, t->data, row, t->ne[0]);
        model_gguf_dequant_row(t->type, (const uint8_t *)t->data + t->nbytes - model_gguf_tensor_row_bytes(t), row, t->ne[0]);
    }
    /* the tokenizer in the metadata, if any; used after the file is gone,
     * since it must keep nothing of it (ASan sees any use of buf) */
    pg_diag_sink tsink = {NULL, NULL, 0, 0, 0};
    tok_tokenizer *t = NULL;
    st = tok_from_gguf(g, &t, &tsink);
    check(st == PG_OK ? t != NULL : t == NULL && tsink.nerrors > 0, "tokenizer refused without a diagnostic");
    model_gguf_close(g);
    free(buf);
    if (t) {
        static const char text[] = "<|im_start|>\tld.global.f32 %f1, [%rd2+4]; // 12345 \xe4\xb8\xad\r\n  \xff x<|im_end|>";
        int32_t *ids = NULL;
        size_t n = 0;
        if (tok_encode(t, text, sizeof text - 1, &ids, &n) == PG_OK) {
            for (size_t i = 0; i < n; i++) check(ids[i] >= 0 && ids[i] < tok_vocab_size(t), "token id out of range");
            pg_buf b = {0};
            tok_decode(t, ids, n, &b);
            pg_buf_free(&b);
        }
        free(ids);
        size_t len;
        for (int32_t id = 0; id < tok_vocab_size(t) && id < 4096; id++) tok_token_bytes(t, id, &len);
        tok_free(t);
    }
    return 0;
}

#ifdef PTXGEN_AFL_MAIN
int main(int argc, char **argv) {
    char *b = NULL;
    size_t len = 0;
    pg_diag_sink sink = {0};
    if (pg_read_file(argc > 1 ? argv[1] : "-", 1u << 22, &b, &len, &sink) != PG_OK) return 2;
    LLVMFuzzerTestOneInput((const uint8_t *)b, len);
    free(b);
    return 0;
}
#endif
