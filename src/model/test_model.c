/* test_model.c — the C engine against PyTorch golden logits (tests/model/,
 * made by tests/model/make_golden.py), KV-cache rewind, the sampler, and clear
 * errors for broken model files.  Run from the repository root.
 *
 * Exactness: max |c - torch| / max |torch| over every logit of a row must be
 * <= 1e-4 for the prefill rows and each decode step (f32 compute weights, every
 * kernel family this CPU has, 1 and 2 threads, one file and shards, LoRA
 * merged).  Lossy compute dtypes have looser, stated bounds: bf16 2e-2, q8 5e-2. */
#include "common/test.h"
#include "model/model_internal.h"
#include "model/safetensors.h"
#include "ptxgen/model.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GD "tests/model"

/* ---- golden data ---- */
static json_t *gold;
static float *gold_bin;
static int prompt[64], nprompt, vocab, steps;

static bool load_golden(void) {
    json_error_t e;
    gold = json_load_file(GD "/golden.json", 0, &e);
    if (!gold) { fprintf(stderr, "cannot read %s/golden.json: %s (run tests/model/make_golden.py)\n", GD, e.text); return false; }
    char *bin = NULL;
    size_t len = 0;
    pg_diag_sink s = test_sink();
    if (pg_read_file(GD "/golden.bin", 64u << 20, &bin, &len, &s) != PG_OK) return false;
    gold_bin = malloc(len);
    memcpy(gold_bin, bin, len);
    free(bin);
    json_t *p = json_object_get(gold, "prompt");
    nprompt = (int)json_array_size(p);
    for (int i = 0; i < nprompt; i++) prompt[i] = (int)json_integer_value(json_array_get(p, (size_t)i));
    vocab = (int)json_integer_value(json_object_get(gold, "vocab"));
    steps = (int)json_integer_value(json_object_get(gold, "steps"));
    return true;
}

static json_t *gold_case(const char *name) {
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(gold, "cases"), i, c)
        if (!strcmp(json_string_value(json_object_get(c, "name")), name)) return c;
    return NULL;
}


static int argmax(const float *v, int n) {
    int b = 0;
    for (int i = 1; i < n; i++) if (v[i] > v[b]) b = i;
    return b;
}

/* Prefill + greedy decode of one golden case; returns the worst relative error. */
static double run_case(const char *case_name, const char *wdtype, int threads, double tol, const char *label) {
    json_t *gc = gold_case(case_name);
    CHECK(gc != NULL, "golden case %s", case_name);
    if (!gc) return INFINITY;
    char dir[256], adir[256];
    snprintf(dir, sizeof dir, GD "/%s", json_string_value(json_object_get(gc, "model")));
    const char *ad = json_string_value(json_object_get(gc, "adapter"));
    if (ad) snprintf(adir, sizeof adir, GD "/%s", ad);
    const float *ref = gold_bin + json_integer_value(json_object_get(gc, "offset")) / 4;
    model_load_opts o = {ad ? adir : NULL, threads, wdtype, false, false, NULL, false};
    model_model *m = NULL;
    pg_diag_sink s = test_sink();
    pg_status st = model_load(dir, &o, &m, &s);
    CHECK(st == PG_OK, "%s: load %s: %s", label, dir, test_diag_log());
    if (st != PG_OK) return INFINITY;
    CHECK(model_get_config(m)->vocab_size == vocab, "%s: vocab", label);
    model_ctx *c = NULL;
    CHECK(model_ctx_new(m, 64, &c, &s) == PG_OK, "%s: ctx", label);
    float *all = malloc((size_t)nprompt * vocab * sizeof *all), *last = malloc((size_t)vocab * sizeof *last);
    int32_t ids[64];
    for (int i = 0; i < nprompt; i++) ids[i] = prompt[i];
    CHECK(model_forward(c, ids, nprompt, last, all, &s) == PG_OK, "%s: prefill: %s", label, test_diag_log());
    double worst = 0;
    for (int t = 0; t < nprompt; t++) {
        double e = test_rel_err(all + (size_t)t * vocab, ref + (size_t)t * vocab, vocab);
        worst = fmax(worst, e);
        CHECK(e <= tol, "%s: prefill row %d: relative error %.3g > %.3g", label, t, e, tol);
    }
    CHECK(!memcmp(last, all + (size_t)(nprompt - 1) * vocab, (size_t)vocab * 4), "%s: last logits = last row", label);
    json_t *dec = json_object_get(gc, "decode_ids");
    for (int k = 0; k < steps; k++) {
        int32_t next = (int32_t)json_integer_value(json_array_get(dec, (size_t)k));
        if (tol <= 1e-4) CHECK(argmax(last, vocab) == next, "%s: greedy step %d: %d, torch %d", label, k, argmax(last, vocab), next);
        CHECK(model_forward(c, &next, 1, last, NULL, &s) == PG_OK, "%s: decode", label);
        double e = test_rel_err(last, ref + (size_t)(nprompt + k) * vocab, vocab);
        worst = fmax(worst, e);
        CHECK(e <= tol, "%s: decode step %d: relative error %.3g > %.3g", label, k, e, tol);
    }
    CHECK(model_ctx_pos(c) == nprompt + steps, "%s: pos", label);
    free(all);
    free(last);
    model_ctx_free(c);
    model_free(m);
    return worst;
}

/* The prompt as one prefill (n >= 4: the prefill kernels) against the same tokens
 * decoded one at a time (n = 1: the decode kernels), per row; returns the worst
 * relative difference (q8 with AMX int8: same quantized x, same integer sums). */
static double prefill_vs_decode(const char *wdtype, const char *label) {
    model_model *m = NULL;
    pg_diag_sink s = test_sink();
    model_load_opts o = {NULL, 2, wdtype, false, false, NULL, false};
    if (model_load(GD "/tied", &o, &m, &s) != PG_OK) { CHECK(0, "%s: load: %s", label, test_diag_log()); return INFINITY; }
    model_ctx *a = NULL, *b = NULL;
    CHECK(model_ctx_new(m, 64, &a, &s) == PG_OK && model_ctx_new(m, 64, &b, &s) == PG_OK, "%s: ctx", label);
    float *all = malloc((size_t)nprompt * vocab * sizeof *all), *row = malloc((size_t)vocab * sizeof *row);
    int32_t ids[64];
    for (int i = 0; i < nprompt; i++) ids[i] = prompt[i];
    CHECK(model_forward(a, ids, nprompt, NULL, all, &s) == PG_OK, "%s: prefill", label);
    double worst = 0;
    for (int t = 0; t < nprompt; t++) {
        CHECK(model_forward(b, &ids[t], 1, row, NULL, &s) == PG_OK, "%s: decode", label);
        worst = fmax(worst, test_rel_err(all + (size_t)t * vocab, row, vocab));
    }
    free(all);
    free(row);
    model_ctx_free(a);
    model_ctx_free(b);
    model_free(m);
    return worst;
}

/* Rewind then redo: identical logits; a different split of the same tokens: the same to rounding. */
static void test_rewind(void) {
    model_model *m = NULL;
    pg_diag_sink s = test_sink();
    model_load_opts o = {NULL, 2, NULL, false, false, NULL, false};
    if (model_load(GD "/tied", &o, &m, &s) != PG_OK) { CHECK(0, "load: %s", test_diag_log()); return; }
    model_ctx *c = NULL;
    model_ctx_new(m, 32, &c, &s);
    int32_t ids[64];
    for (int i = 0; i < nprompt; i++) ids[i] = prompt[i];
    float a[3][300], b[300], full[300];
    model_forward(c, ids, nprompt, full, NULL, &s);
    int32_t d[3] = {5, 77, 250};
    for (int k = 0; k < 3; k++) model_forward(c, &d[k], 1, a[k], NULL, &s);
    model_ctx_rewind(c, nprompt);
    CHECK(model_ctx_pos(c) == nprompt, "pos after rewind");
    for (int k = 0; k < 3; k++) {
        model_forward(c, &d[k], 1, b, NULL, &s);
        CHECK(!memcmp(a[k], b, sizeof b), "rewind + redo step %d gives identical logits", k);
    }
    /* rewind into the prompt; redo its tail token by token: the same logits to rounding */
    model_ctx_rewind(c, 5);
    for (int i = 5; i < nprompt; i++) model_forward(c, &ids[i], 1, b, NULL, &s);
    CHECK(test_rel_err(b, full, 300) < 1e-5, "prompt tail redone one by one: %.3g", test_rel_err(b, full, 300));
    model_ctx_rewind(c, 100);   /* past the end: no-op */
    CHECK(model_ctx_pos(c) == nprompt, "rewind forward is a no-op");
    int32_t bad = 300;
    CHECK(model_forward(c, &bad, 1, b, NULL, &s) == PG_ERR_USAGE, "token outside vocab");
    int32_t many[32] = {0};
    CHECK(model_forward(c, many, 32, b, NULL, &s) == PG_ERR_LIMIT, "past max_seq -> PG_ERR_LIMIT");
    CHECK(model_ctx_pos(c) == nprompt, "failed forward leaves the cache");
    model_ctx_free(c);
    model_free(m);
}

/* The sampler's one-pass top-k (k <= 64) against the definition: sort every finite logit
 * (descending, ties by lower id), keep k, draw with the same generator state.  Logits with
 * many ties, -inf and NaN entries; k 1..9 and 64, top_p on and off. */
/* order: every finite logit's id, sorted by logit descending, ties by lower id (made once per set of logits) */
static int ref_order(const float *l, int n, int *id) {
    int m = 0;
    for (int i = 0; i < n; i++)
        if (l[i] != -INFINITY && !isnan(l[i])) id[m++] = i;
    for (int i = 1; i < m; i++)   /* insertion sort: stable, so equal logits keep ascending ids */
        for (int j = i; j > 0 && l[id[j]] > l[id[j - 1]]; j--) { int t = id[j]; id[j] = id[j - 1]; id[j - 1] = t; }
    return m;
}

static int32_t ref_sample(uint64_t *rng, const float *l, const int *id, int m, int k, float temp, float top_p) {
    if (k < m) m = k;
    double p[64], sum = 0;
    for (int i = 0; i < m; i++) sum += p[i] = exp(((double)l[id[i]] - l[id[0]]) / temp);
    if (top_p < 1) {
        double acc = 0;
        for (int i = 0; i < m; i++) {
            acc += p[i] / sum;
            if (acc >= top_p) { m = i + 1; break; }
        }
        sum = 0;
        for (int i = 0; i < m; i++) sum += p[i];
    }
    double u = (double)(model_rng_next(rng) >> 11) / 9007199254740992.0 * sum;
    int32_t pick = id[m - 1];
    for (int i = 0; i < m; i++) {
        u -= p[i];
        if (u < 0) { pick = id[i]; break; }
    }
    return pick;
}

static void test_sampler_topk(void) {
    enum { N = 600 };
    float *l = malloc(N * sizeof *l);
    int *id = malloc(N * sizeof *id);
    uint64_t g = 7;
    int bad = 0, runs = 0;
    static const int ks[] = {1, 2, 3, 5, 9, 64};
    for (int round = 0; round < 40; round++) {
        for (int i = 0; i < N; i++) {
            uint64_t r = model_rng_next(&g);
            l[i] = (float)(r % 23) * 0.25f - 3.0f;   /* 23 levels: many ties */
            if (r % 97 == 0) l[i] = -INFINITY;
            if (r % 89 == 0) l[i] = NAN;
        }
        int m = ref_order(l, N, id);
        for (size_t kk = 0; kk < sizeof ks / sizeof *ks; kk++) {
            model_sampler_opts o = {0.7f, ks[kk], round % 2 ? 0.8f : 1.0f, (uint64_t)round};
            model_sampler sm;
            model_sampler_init(&sm, &o);
            uint64_t rng = sm.rng;
            for (int d = 0; d < 20; d++, runs++)
                bad += model_sample(&sm, l, N) != ref_sample(&rng, l, id, m, ks[kk], o.temperature, o.top_p);
        }
    }
    CHECK(bad == 0, "one-pass top-k draws the definition's token (%d of %d differ)", bad, runs);
    free(l);
    free(id);
}

static void test_sampler(void) {
    test_sampler_topk();
    float l[6] = {0.5f, 2.0f, -INFINITY, 2.0f, -1.0f, 1.0f};
    model_sampler sm;
    model_sampler_opts o = {0, 0, 1, 42};
    model_sampler_init(&sm, &o);
    CHECK(model_sample(&sm, l, 6) == 1, "greedy takes the first maximum");
    float none[3] = {-INFINITY, -INFINITY, -INFINITY};
    CHECK(model_sample(&sm, none, 3) == -1, "all -inf -> -1");
    o.temperature = 1.0f;
    o.top_k = 1;
    model_sampler_init(&sm, &o);
    CHECK(model_sample(&sm, l, 6) == 1, "top_k 1 = greedy");
    o.top_k = 0;
    model_sampler_init(&sm, &o);
    int hist[6] = {0};
    for (int i = 0; i < 4000; i++) {
        int32_t t = model_sample(&sm, l, 6);
        CHECK(t >= 0 && t < 6 && t != 2, "never the -inf entry (got %d)", t);
        if (t >= 0 && t < 6) hist[t]++;
    }
    double z = exp(0.5) + 2 * exp(2.0) + exp(-1.0) + exp(1.0);
    CHECK(fabs(hist[1] / 4000.0 - exp(2.0) / z) < 0.03, "temperature 1 frequency %.3f vs %.3f", hist[1] / 4000.0, exp(2.0) / z);
    /* top_p 0.5: only the two tied 2.0 logits (mass 0.35 each) survive */
    o.top_p = 0.5f;
    model_sampler_init(&sm, &o);
    bool only_top = true;
    for (int i = 0; i < 500; i++) { int32_t t = model_sample(&sm, l, 6); only_top &= t == 1 || t == 3; }
    CHECK(only_top, "top_p keeps the nucleus only");
    model_sampler s1, s2;
    model_sampler_init(&s1, &o);
    model_sampler_init(&s2, &o);
    bool same = true;
    for (int i = 0; i < 100; i++) same &= model_sample(&s1, l, 6) == model_sample(&s2, l, 6);
    CHECK(same, "same seed, same samples");
    uint64_t st = 0;
    CHECK(model_rng_next(&st) != 0 && st != 0, "rng survives a zero state");
}

/* ---- broken model directories ---- */
static char tmpdir[256];

static void put(const char *rel, const char *data, size_t len) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", tmpdir, rel);
    FILE *f = fopen(p, "wb");
    if (!f) return;
    fwrite(data, 1, len, f);
    fclose(f);
}
static char *slurp(const char *path, size_t *len) {
    char *d = NULL;
    pg_diag_sink s = {0};
    pg_read_file(path, 64u << 20, &d, len, &s);
    return d;
}

/* A safetensors writer: the tied model's tensors, minus `drop`, with `reshape` given a new shape
 * (and data of that size), and an extra tensor when `extra` is set. */
typedef struct { const char *drop, *reshape; int64_t new_shape[2]; int new_nd; const char *extra_i32; } st_edit;

static void write_st(const char *src_path, const char *dst_rel, const st_edit *ed) {
    st_set st = {0};
    pg_diag_sink s = {0};
    if (model_st_open_file(&st, src_path, &s) != PG_OK) return;
    json_t *h = json_object();
    pg_buf data = {0};
    for (int i = 0; i < st.t.n; i++) {
        const st_tensor *t = &st.t.v[i];
        if (ed->drop && !strcmp(t->name, ed->drop)) continue;
        json_t *shape = json_array();
        size_t nbytes = t->nbytes;
        if (ed->reshape && !strcmp(t->name, ed->reshape)) {
            nbytes = 4;
            for (int d = 0; d < ed->new_nd; d++) { json_array_append_new(shape, json_integer(ed->new_shape[d])); nbytes *= (size_t)ed->new_shape[d]; }
            for (size_t b = 0; b < nbytes; b++) pg_buf_putc(&data, (char)(b < t->nbytes ? t->data[b] : 0));
        } else {
            for (int d = 0; d < t->ndim; d++) json_array_append_new(shape, json_integer(t->shape[d]));
            pg_buf_putn(&data, (const char *)t->data, t->nbytes);
        }
        json_object_set_new(h, t->name, json_pack("{s:s, s:o, s:[I, I]}", "dtype", model_st_dtype_name(t->dtype), "shape", shape,
                                                   "data_offsets", (json_int_t)(data.len - nbytes), (json_int_t)data.len));
    }
    if (ed->extra_i32) {
        pg_buf_putn(&data, "\0\0\0\0\0\0\0\0", 8);
        json_object_set_new(h, ed->extra_i32, json_pack("{s:s, s:[i], s:[I, I]}", "dtype", "I32", "shape", 2, "data_offsets",
                                                        (json_int_t)(data.len - 8), (json_int_t)data.len));
    }
    char *hs = json_dumps(h, JSON_COMPACT);
    size_t hl = strlen(hs);
    pg_buf out = {0};
    for (int i = 0; i < 8; i++) pg_buf_putc(&out, (char)((uint64_t)hl >> (8 * i)));
    pg_buf_putn(&out, hs, hl);
    pg_buf_putn(&out, data.data, data.len);
    put(dst_rel, out.data, out.len);
    free(hs);
    json_decref(h);
    pg_buf_free(&data);
    pg_buf_free(&out);
    model_st_close(&st);
}

static void reset_model(const char *config_edit_from, const char *config_edit_to) {
    size_t len;
    char *cfg = slurp(GD "/tied/config.json", &len);
    char *st = NULL;
    if (config_edit_from) {
        char *at = strstr(cfg, config_edit_from);
        pg_buf b = {0};
        if (at) {
            pg_buf_putn(&b, cfg, (size_t)(at - cfg));
            pg_buf_puts(&b, config_edit_to);
            pg_buf_puts(&b, at + strlen(config_edit_from));
        }
        put("config.json", b.data ? b.data : cfg, b.data ? b.len : len);
        pg_buf_free(&b);
    } else put("config.json", cfg, len);
    free(cfg);
    st = slurp(GD "/tied/model.safetensors", &len);
    put("model.safetensors", st, len);
    free(st);
}

/* Load tmpdir (with adapter if given) and expect failure with `code` and every substring. */
static void expect_fail(const char *what, const char *adapter, const char *code, const char *s1, const char *s2) {
    model_model *m = NULL;
    pg_diag_sink s = test_sink();
    char ad[300];
    if (adapter) snprintf(ad, sizeof ad, "%s/%s", tmpdir, adapter);
    model_load_opts o = {adapter ? ad : NULL, 1, NULL, false, false, NULL, false};
    pg_status st = model_load(tmpdir, &o, &m, &s);
    CHECK(st != PG_OK && m == NULL, "%s: load must fail", what);
    CHECK(strstr(test_diag_log(), code) != NULL, "%s: want %s, got: %s", what, code, test_diag_log());
    CHECK(!s1 || strstr(test_diag_log(), s1), "%s: message names '%s': %s", what, s1, test_diag_log());
    CHECK(!s2 || strstr(test_diag_log(), s2), "%s: message names '%s': %s", what, s2, test_diag_log());
    model_free(m);
}

static void test_errors(void) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ptxgen_test_model_XXXXXX");
    if (!mkdtemp(tmpdir)) { CHECK(0, "mkdtemp"); return; }
    char p[512];
    size_t len;

    /* truncated file: the last tensor's data runs past the end */
    reset_model(NULL, NULL);
    char *st = slurp(GD "/tied/model.safetensors", &len);
    put("model.safetensors", st, len - 100);
    expect_fail("truncated safetensors", NULL, "E801", "model.safetensors", "past the end");
    /* header length past EOF */
    char hdr[16] = {(char)0xff, (char)0xff, 0, 0, 0, 0, 0, 0, '{', '}'};
    put("model.safetensors", hdr, 10);
    expect_fail("header length past EOF", NULL, "E801", "header length 65535", "model.safetensors");
    put("model.safetensors", st, 5);
    expect_fail("5-byte file", NULL, "E801", "too short", NULL);
    memcpy(hdr, "\x04\0\0\0\0\0\0\0[1]x", 12);
    put("model.safetensors", hdr, 12);
    expect_fail("header not an object", NULL, "E801", "not a JSON object", NULL);
    free(st);

    /* wrong shape, missing tensor, unsupported dtype */
    snprintf(p, sizeof p, GD "/tied/model.safetensors");
    reset_model(NULL, NULL);
    write_st(p, "model.safetensors", &(st_edit){NULL, "model.norm.weight", {32, 0}, 1, NULL});
    expect_fail("wrong shape", NULL, "E803", "'model.norm.weight': shape [32], config wants [64]", "model.safetensors");
    write_st(p, "model.safetensors", &(st_edit){"model.layers.1.mlp.up_proj.weight", NULL, {0}, 0, NULL});
    expect_fail("missing tensor", NULL, "E803", "'model.layers.1.mlp.up_proj.weight' is missing", "model.safetensors");
    write_st(p, "model.safetensors", &(st_edit){"model.norm.weight", NULL, {0}, 0, "model.norm.weight"});
    expect_fail("integer tensor", NULL, "E803", "dtype I32", "model.norm.weight");

    /* config problems */
    reset_model("\"vocab_size\": 300", "\"vocab_size\": 301");
    expect_fail("vocab/config mismatch", NULL, "E803", "model.embed_tokens.weight': shape [300, 64], config wants [301, 64]", NULL);
    reset_model("\"vocab_size\": 300", "\"vocab_size\": 300,,");
    expect_fail("malformed config JSON", NULL, "E802", "config.json", "malformed JSON");
    reset_model("\"qwen2\"", "\"llama\"");
    expect_fail("model_type", NULL, "E802", "only \"qwen2\"", NULL);
    reset_model("\"rope_type\": \"default\"", "\"rope_type\": \"yarn\", \"factor\": 4");
    expect_fail("rope scaling", NULL, "E802", "'yarn' is not supported", NULL);
    reset_model("\"use_sliding_window\": false", "\"use_sliding_window\": true");
    expect_fail("sliding window", NULL, "E802", "use_sliding_window", NULL);
    reset_model("\"num_key_value_heads\": 2", "\"num_key_value_heads\": 3");
    expect_fail("heads not a multiple of kv heads", NULL, "E802", "num_key_value_heads 3", NULL);
    reset_model("\"hidden_size\": 64", "\"hidden_size\": \"64\"");
    expect_fail("string where a number belongs", NULL, "E802", "'hidden_size' must be an integer", NULL);

    /* adapters for another base */
    reset_model(NULL, NULL);
    snprintf(p, sizeof p, "%s/ad", tmpdir);
    mkdir(p, 0755);
    char *acfg = slurp(GD "/lora/adapter_config.json", &len);
    put("ad/adapter_config.json", acfg, len);
    snprintf(p, sizeof p, GD "/lora/adapter_model.safetensors");
    write_st(p, "ad/adapter_model.safetensors",
             &(st_edit){NULL, "base_model.model.model.layers.1.self_attn.v_proj.lora_A.weight", {4, 96}, 2, NULL});
    expect_fail("adapter shape", "ad", "E805", "layers.1.self_attn.v_proj.lora_A.weight': F32 [4, 96]", "adapter for another base");
    write_st(p, "ad/adapter_model.safetensors",
             &(st_edit){NULL, NULL, {0}, 0, "base_model.model.model.layers.7.self_attn.q_proj.lora_A.weight"});
    expect_fail("adapter unknown module", "ad", "E805", "model.layers.7.self_attn.q_proj", "does not have");
    write_st(p, "ad/adapter_model.safetensors",
             &(st_edit){"base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight", NULL, {0}, 0, NULL});
    expect_fail("adapter A without B", "ad", "E805", "no partner", NULL);
    /* an adapter of another rank: its config says r=8 over rank-4 tensors (issue 32) */
    char *r8 = test_replace(acfg, "\"r\": 4,", "\"r\": 8,");
    CHECK(r8 != NULL, "r in the adapter config");
    if (r8) {
        put("ad/adapter_config.json", r8, strlen(r8));
        char src_st[300];
        snprintf(src_st, sizeof src_st, GD "/lora/adapter_model.safetensors");
        size_t sl;
        char *w = slurp(src_st, &sl);
        if (w) put("ad/adapter_model.safetensors", w, sl);
        free(w);
        expect_fail("adapter of another rank", "ad", "E805", "r=8", "adapter for another base");
        put("ad/adapter_config.json", acfg, len);
        free(r8);
    }
    char *acfg2 = strstr(acfg, "\"fan_in_fan_out\": false");
    if (acfg2) memcpy(acfg2, "\"fan_in_fan_out\": true ", 23);
    put("ad/adapter_config.json", acfg, len);
    expect_fail("fan_in_fan_out", "ad", "E805", "fan_in_fan_out", NULL);
    put("ad/adapter_config.json", "{\"r\": 4,", 8);
    expect_fail("adapter config JSON", "ad", "E805", "malformed JSON", NULL);
    free(acfg);
    put("ad/adapter_config.json", "{\"r\": 4, \"lora_alpha\": 8, \"target_modules\": [\"q_proj\"]}", 55);
    put("ad/adapter_model.safetensors", "\x08\0\0\0\0\0\0\0{}", 10);
    expect_fail("adapter truncated", "ad", "E805", "adapter_model.safetensors", NULL);

    /* sharded: an index naming a shard that lacks the tensor */
    snprintf(p, sizeof p, "%s/model.safetensors", tmpdir);
    unlink(p);
    char *idx = slurp(GD "/untied_sharded/model.safetensors.index.json", &len);
    put("model.safetensors.index.json", idx, len);
    free(idx);
    for (int i = 1; i <= 3; i++) {
        char src[256], rel[64];
        snprintf(rel, sizeof rel, "model-0000%d-of-00003.safetensors", i);
        snprintf(src, sizeof src, GD "/untied_sharded/%s", rel);
        char *d = slurp(src, &len);
        if (i == 2) put(rel, d, 8);   /* an empty-looking shard */
        else put(rel, d, len);
        free(d);
    }
    reset_model("\"tie_word_embeddings\": true", "\"tie_word_embeddings\": false");
    snprintf(p, sizeof p, "%s/model.safetensors", tmpdir);
    unlink(p);
    expect_fail("bad shard", NULL, "E801", "model-00002-of-00003.safetensors", NULL);

    /* cleanup */
    const char *files[] = {"config.json", "model.safetensors", "model.safetensors.index.json", "model-00001-of-00003.safetensors",
                           "model-00002-of-00003.safetensors", "model-00003-of-00003.safetensors", "ad/adapter_config.json",
                           "ad/adapter_model.safetensors"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) { snprintf(p, sizeof p, "%s/%s", tmpdir, files[i]); unlink(p); }
    snprintf(p, sizeof p, "%s/ad", tmpdir);
    rmdir(p);
    rmdir(tmpdir);
}

static void test_parsers(void) {
    model_config c;
    pg_diag_sink s = test_sink();
    const char *eos_list = "{\"model_type\":\"qwen2\",\"vocab_size\":10,\"hidden_size\":8,\"intermediate_size\":16,"
                           "\"num_hidden_layers\":1,\"num_attention_heads\":2,\"num_key_value_heads\":1,"
                           "\"rope_theta\":1000000.0,\"eos_token_id\":[5,7],\"torch_dtype\":\"bfloat16\","
                           "\"use_sliding_window\":false,\"sliding_window\":4096,\"rope_scaling\":null}";
    CHECK(model_config_parse(eos_list, strlen(eos_list), "c.json", &c, &s) == PG_OK, "v4-style config: %s", test_diag_log());
    CHECK(c.n_eos_token_ids == 2 && c.eos_token_id == 5 && c.eos_token_ids[1] == 7, "eos list");
    CHECK(c.head_dim == 4 && c.rope_theta == 1e6 && !strcmp(c.dtype, "bfloat16") && c.bos_token_id == -1, "fields");
    CHECK(c.tie_word_embeddings, "Qwen2 default ties");
    st_set st = {0};
    CHECK(model_st_parse(&st, (const uint8_t *)"\x02\0\0\0\0\0\0\0{}", 10, "x", &s) == PG_OK && st.t.n == 0, "empty safetensors");
    /* F32 [2] needs 8 data bytes; the header says 4 */
    const char *hj = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}";
    uint8_t bad[128] = {(uint8_t)strlen(hj)};
    memcpy(bad + 8, hj, strlen(hj));
    CHECK(model_st_parse(&st, bad, 8 + strlen(hj) + 4, "x", &s) != PG_OK && strstr(test_diag_log(), "need 8"), "size mismatch: %s", test_diag_log());
    model_st_close(&st);
}

int main(void) {
    if (!load_golden()) { CHECK(0, "golden files"); return TEST_DONE(); }
    const char *isa_list[] = {"avx512", "avx2", "scalar"};
    /* exact cases on the best kernels, 1 and 2 threads */
    for (int th = 1; th <= 2; th++) {
        char lab[64];
        snprintf(lab, sizeof lab, "tied f32 %s %dT", model_kernels_isa(), th);
        run_case("tied", "f32", th, 1e-4, lab);
    }
    printf("kernels: %s\n", model_kernels_isa());
    printf("untied sharded f32: %.2e\n", run_case("untied_sharded", "f32", 2, 1e-4, "untied sharded"));
    printf("tied+lora f32:      %.2e\n", run_case("tied+lora", "f32", 2, 1e-4, "lora"));
    printf("bf16 file, f32:     %.2e\n", run_case("tied_bf16", "f32", 2, 1e-4, "bf16 file"));
    /* lossy compute copies against the f32 model's logits: what rounding the weights costs */
    /* AMX (when the CPU has it) rounds prefill activations to bf16 for bf16 weights; same bound */
    printf("bf16 prefill on AMX tiles: %s\n", model_kernels_amx() ? "yes" : "no");
    printf("bf16 compute weights (tolerance 2e-2): %.2e\n", run_case("tied", "bf16", 2, 2e-2, "bf16 compute"));
    printf("q8 compute weights (tolerance 5e-2):   %.2e\n", run_case("tied", "q8", 2, 5e-2, "q8 compute"));
    printf("q8 + lora (tolerance 5e-2):            %.2e\n", run_case("tied+lora", "q8", 1, 5e-2, "q8 lora"));
    printf("bf16 sharded untied (tolerance 2e-2):  %.2e\n", run_case("untied_sharded", "bf16", 1, 2e-2, "bf16 untied"));
    /* AMX int8 (when the CPU has it): q8 prefill quantizes x per 32 exactly as decode does and
     * folds the same integer sums in the same order, so prefill rows match decode steps to
     * f32 rounding of the rest of the layer (measured: printed below) */
    /* without AMX, prefill widens q8 to f32 against exact x: then only both within 5e-2 of torch */
    printf("q8 prefill on AMX int8 tiles: %s\n", model_kernels_amx_q8() ? "yes" : "no");
    double pd = prefill_vs_decode("q8", "q8 prefill vs decode"), pd_tol = model_kernels_amx_q8() ? 1e-5 : 1e-1;
    printf("q8 prefill vs q8 decode (tolerance %.0e): %.2e\n", pd_tol, pd);
    CHECK(pd <= pd_tol, "q8 prefill vs decode: %.3g > %.3g", pd, pd_tol);
    /* the AVX-512 kernels without AMX (as PTXGEN_NO_AMX=1): q8 prefill widens to f32 there */
    if (model_kernels_force("avx512-noamx")) {
        CHECK(!model_kernels_amx() && !model_kernels_amx_q8(), "avx512-noamx turns AMX off");
        double e = prefill_vs_decode("q8", "no-AMX q8 prefill vs decode");
        CHECK(e <= 1e-1, "no-AMX q8 prefill vs decode: %.3g", e);
        printf("avx512 without AMX: bf16 %.2e  q8 %.2e  q8 prefill vs decode %.2e\n",
               run_case("tied", "bf16", 2, 2e-2, "no-AMX bf16"), run_case("tied", "q8", 2, 5e-2, "no-AMX q8"), e);
    }
    /* every lesser kernel family this CPU can run gives the same answers */
    for (size_t i = 0; i < 3; i++)
        if (model_kernels_force(isa_list[i])) {
            char lab[64];
            snprintf(lab, sizeof lab, "%s kernels", isa_list[i]);
            printf("%-7s f32 %.2e  bf16 %.2e  q8 %.2e\n", isa_list[i], run_case("tied+lora", "f32", 2, 1e-4, lab),
                   run_case("tied", "bf16", 2, 2e-2, lab), run_case("untied_sharded", "q8", 2, 5e-2, lab));
        }
    test_rewind();
    test_sampler();
    test_parsers();
    test_errors();
    json_decref(gold);
    free(gold_bin);
    return TEST_DONE();
}
