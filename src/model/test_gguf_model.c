/* test_gguf_model.c — GGUF models in the engine against transformers + PEFT golden
 * logits (tests/model/gguf_engine/golden.json, made by tests/model/make_gguf_golden.py),
 * the shipped-model layout (base.json + adapter), model_logits_subset, and clear
 * errors.  Run from the repository root.
 *
 * Cases: the committed tiny_qwen2 / tiny_llama GGUFs (every weight type; base and
 * with a LoRA adapter whose B is non-zero, lm_head included), and the real
 * Qwen2.5-Coder-0.5B, SmolLM2-135M and Qwen2.5-Coder-1.5B (Q4_K_M: 12 query heads on 2 KV
 * heads, 28 layers) files when present (PTXGEN_QWEN_GGUF / PTXGEN_SMOL_GGUF /
 * PTXGEN_QWEN15_GGUF, defaults under models/base/; SKIPPED otherwise).
 * Metric: max |engine - reference| / max |reference| over a row's compared logits
 * (tiny: all; real: the reference's top 50).  Bounds:
 *  - exact path (opts.exact: f32 activations x dequantized rows; prefill always
 *    runs this way): EXACT_TOL, or the case's "exact_tol"; both sides compute with the
 *    same dequantized weights in f32, so only summation order differs (qwen15: 4e-4,
 *    since its random adapter makes the f32 reference itself move by 1.5e-4 between
 *    PEFT's side path and the merged weights; the engine is 4.8e-5 from the merged one);
 *  - fast path (decode with int8 activations per block, as llama.cpp): FAST_TOL;
 *    each matmul input is rounded to d = amax/127 per 32 (or 256) elements, a
 *    relative error up to ~1/254 of the block's largest value per element, and
 *    that compounds over the layers (measured values are printed).
 * Greedy tokens must equal the reference's on the exact path. */
#define _GNU_SOURCE 1   /* memmem */
#include "common/test.h"
#include "model/model_internal.h"
#include "ptxgen/model.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GE "tests/model/gguf_engine"
#define EXACT_TOL 1e-4
#define FAST_TOL 5e-2


static int argmax(const float *v, int n) {
    int b = 0;
    for (int i = 1; i < n; i++) if (v[i] > v[b]) b = i;
    return b;
}

/* rel error of logits l against a golden row (full "logits" or "top_ids"/"top_vals") */
static double row_err(const float *l, const json_t *row) {
    const json_t *full = json_object_get(row, "logits"), *ids = json_object_get(row, "top_ids"),
                 *vals = full ? full : json_object_get(row, "top_vals");
    double emax = 0, rmax = 0;
    for (size_t i = 0; i < json_array_size(vals); i++) {
        double ref = json_real_value(json_array_get(vals, i));
        int id = full ? (int)i : (int)json_integer_value(json_array_get(ids, i));
        emax = fmax(emax, fabs(l[id] - ref));
        rmax = fmax(rmax, fabs(ref));
    }
    return emax / rmax;
}

/* Run one golden mode ("base" / "lora") of a case; returns the worst row error.  etol: the exact
 * bound (the prefill rows always), tol: the decode steps' */
static double run_mode(const char *file, const json_t *gc, const char *mode, bool exact, int threads, double etol, double tol) {
    const json_t *gm = json_object_get(gc, mode);
    const json_t *jp = json_object_get(gc, "prompt");
    int np = (int)json_array_size(jp);
    int32_t prompt[64];
    for (int i = 0; i < np && i < 64; i++) prompt[i] = (int32_t)json_integer_value(json_array_get(jp, (size_t)i));
    char ad[512], lab[256];
    const char *adn = json_string_value(json_object_get(gm, "adapter"));
    if (adn) snprintf(ad, sizeof ad, GE "/%s", adn);
    snprintf(lab, sizeof lab, "%s %s %s %dT", json_string_value(json_object_get(gc, "name")), mode, exact ? "exact" : "fast",
             threads);
    model_load_opts o = {adn ? ad : NULL, threads, NULL, false, exact, NULL, false};
    model_model *m = NULL;
    pg_diag_sink s = test_sink();
    if (model_load(file, &o, &m, &s) != PG_OK) { CHECK(0, "%s: load: %s", lab, test_diag_log()); return INFINITY; }
    CHECK(!strcmp(model_weight_dtype(m), "gguf"), "%s: dtype gguf", lab);
    int V = model_get_config(m)->vocab_size;
    model_ctx *c = NULL;
    CHECK(model_ctx_new(m, np + 8, &c, &s) == PG_OK, "%s: ctx", lab);
    float *all = malloc((size_t)np * V * 4), *last = malloc((size_t)V * 4);
    CHECK(model_forward(c, prompt, np, last, all, &s) == PG_OK, "%s: prefill: %s", lab, test_diag_log());
    double worst = 0;
    const json_t *rows = json_object_get(gm, "prefill_rows"), *pre = json_object_get(gm, "prefill");
    for (size_t i = 0; i < json_array_size(pre); i++) {
        int t = rows ? (int)json_integer_value(json_array_get(rows, i)) : (int)i;
        double e = row_err(all + (size_t)t * V, json_array_get(pre, i));
        worst = fmax(worst, e);
        CHECK(e <= etol, "%s: prefill row %d: %.3g > %.3g (prefill is exact)", lab, t, e, etol);
    }
    const json_t *greedy = json_object_get(gm, "greedy"), *dec = json_object_get(gm, "decode");
    int32_t ids[50];
    for (size_t k = 0; k < json_array_size(dec); k++) {
        int32_t next = (int32_t)json_integer_value(json_array_get(greedy, k));
        if (exact) CHECK(argmax(last, V) == next, "%s: greedy step %zu: %d, reference %d", lab, k, argmax(last, V), next);
        CHECK(model_forward(c, &next, 1, last, NULL, &s) == PG_OK, "%s: decode", lab);
        double e = row_err(last, json_array_get(dec, k));
        worst = fmax(worst, e);
        CHECK(e <= tol, "%s: decode step %zu: %.3g > %.3g", lab, k, e, tol);
        /* the subset API gives the same logits, bit for bit, for any ids */
        for (int i = 0; i < 50; i++) ids[i] = (int32_t)(((uint32_t)i * 2654435761u + (uint32_t)k) % (uint32_t)V);
        ids[0] = argmax(last, V);
        float sub[50];
        CHECK(model_logits_subset(c, ids, 50, sub, &s) == PG_OK, "%s: subset", lab);
        bool same = true;
        for (int i = 0; i < 50; i++) same &= sub[i] == last[ids[i]];
        CHECK(same, "%s: step %zu: model_logits_subset == model_forward's logits", lab, k);
    }
    if (exact)
        CHECK(argmax(last, V) == (int)json_integer_value(json_array_get(greedy, json_array_size(dec))), "%s: last greedy", lab);
    /* model_forward_hidden then the subset: the same state as the forward that computed logits */
    model_ctx *c2 = NULL;
    CHECK(model_ctx_new(m, np + 8, &c2, &s) == PG_OK, "%s: ctx2", lab);
    float sub[50], sub2[50];
    CHECK(model_logits_subset(c2, ids, 50, sub, &s) == PG_ERR_USAGE, "%s: subset before any forward is refused", lab);
    CHECK(model_forward_hidden(c2, prompt, np, &s) == PG_OK && model_logits_subset(c2, ids, 50, sub, &s) == PG_OK, "%s: hidden", lab);
    model_ctx_rewind(c, np);
    CHECK(model_logits_subset(c, ids, 50, sub2, &s) == PG_ERR_USAGE, "%s: subset after a rewind is refused", lab);
    int32_t bad = V;
    CHECK(model_logits_subset(c2, &bad, 1, sub2, &s) == PG_ERR_USAGE && strstr(test_diag_log(), "outside the vocabulary"),
          "%s: id out of range: %s", lab, test_diag_log());
    /* exact: the subset after a hidden-only prefill matches the prefill's last row */
    if (exact) {
        double e = 0, r = 0;
        for (int i = 0; i < 50; i++) {
            e = fmax(e, fabs(sub[i] - all[(size_t)(np - 1) * V + ids[i]]));
            r = fmax(r, fabs(all[(size_t)(np - 1) * V + ids[i]]));
        }
        CHECK(e / r <= 1e-5, "%s: subset after model_forward_hidden vs prefill row: %.3g", lab, e / r);
    }
    model_ctx_free(c2);
    free(all);
    free(last);
    model_ctx_free(c);
    model_free(m);
    return worst;
}

/* ---- the shipped layout and errors (on the tiny models) ---- */
static char tmpdir[256];
static void put(const char *rel, const void *data, size_t len) {
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
static void copy(const char *src, const char *rel) {
    size_t n;
    char *d = slurp(src, &n);
    if (d) put(rel, d, n);
    free(d);
}

static void expect_fail(const char *what, const char *path, const char *adapter, const char *code, const char *s1, const char *s2) {
    model_model *m = NULL;
    pg_diag_sink s = test_sink();
    model_load_opts o = {adapter, 1, NULL, true, false, NULL, false};
    pg_status st = model_load(path, &o, &m, &s);
    CHECK(st != PG_OK && m == NULL, "%s: load must fail", what);
    CHECK(strstr(test_diag_log(), code) != NULL, "%s: want %s, got: %s", what, code, test_diag_log());
    CHECK(!s1 || strstr(test_diag_log(), s1), "%s: message names '%s': %s", what, s1, test_diag_log());
    CHECK(!s2 || strstr(test_diag_log(), s2), "%s: message names '%s': %s", what, s2, test_diag_log());
    model_free(m);
}

/* next-token logits of `path` (+ adapter) after a short prompt, into l[V] */
static bool logits_of(const char *path, const model_load_opts *o, float *l, int *V) {
    model_model *m = NULL;
    model_ctx *c = NULL;
    pg_diag_sink s = test_sink();
    int32_t p[4] = {1, 5, 17, 42};
    bool ok = model_load(path, o, &m, &s) == PG_OK && model_ctx_new(m, 8, &c, &s) == PG_OK && model_forward(c, p, 4, l, NULL, &s) == PG_OK;
    if (ok) *V = model_get_config(m)->vocab_size;
    model_ctx_free(c);
    model_free(m);
    return ok;
}

static void test_shipped_and_errors(void) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ptxgen_gguf_test_XXXXXX");
    if (!mkdtemp(tmpdir)) { CHECK(0, "mkdtemp"); return; }
    /* config from the metadata */
    model_model *m = NULL;
    pg_diag_sink s = test_sink();
    CHECK(model_load(GE "/tiny_llama.gguf", NULL, &m, &s) == PG_OK, "tiny llama: %s", test_diag_log());
    if (m) {
        const model_config *c = model_get_config(m);
        CHECK(c->vocab_size == 320 && c->hidden_size == 128 && c->num_hidden_layers == 2 && c->num_attention_heads == 2 &&
              c->num_key_value_heads == 1 && c->head_dim == 64 && c->intermediate_size == 256 && c->tie_word_embeddings &&
              c->eos_token_id == 2 && c->bos_token_id == 1 && fabs(c->rms_norm_eps - 1e-5) < 1e-12 && c->rope_theta == 10000.0,
              "tiny llama config");
        struct stat sb;
        stat(GE "/tiny_llama.gguf", &sb);
        size_t wb = model_weight_bytes(m);
        CHECK(wb > (size_t)sb.st_size * 8 / 10 && wb < (size_t)sb.st_size * 12 / 10,
              "weight bytes %zu ~ the file's %lld (stored types, no f32 copy)", wb, (long long)sb.st_size);
        model_free(m);
        m = NULL;
    }
    /* (b) the shipped layout: base.json + adapter in one directory */
    char hex[65], dir_ad[512], js[512];
    CHECK(model_sha256_file(GE "/tiny_qwen2.gguf", hex), "sha256 of the tiny base");
    char realhex[65];
    memcpy(realhex, hex, sizeof realhex);
    char sub[300];
    snprintf(sub, sizeof sub, "%s/base", tmpdir);
    mkdir(sub, 0700);
    copy(GE "/tiny_qwen2.gguf", "base/tiny.gguf");
    copy(GE "/tiny_qwen2_lora/adapter_config.json", "adapter_config.json");
    copy(GE "/tiny_qwen2_lora/adapter_model.safetensors", "adapter_model.safetensors");
    snprintf(js, sizeof js, "{\"gguf\": \"base/tiny.gguf\", \"sha256\": \"%s\"}", hex);
    put("base.json", js, strlen(js));
    int V = 0, V2 = 0;
    float a[320], b[320];
    snprintf(dir_ad, sizeof dir_ad, GE "/tiny_qwen2_lora");
    model_load_opts direct = {dir_ad, 1, NULL, false, false, NULL, false}, shipped = {NULL, 1, NULL, true, false, NULL, false};
    CHECK(logits_of(GE "/tiny_qwen2.gguf", &direct, a, &V), "direct load: %s", test_diag_log());
    CHECK(logits_of(tmpdir, &shipped, b, &V2), "shipped load (verify_base): %s", test_diag_log());
    CHECK(V == 320 && V2 == 320 && !memcmp(a, b, sizeof a), "shipped layout = the GGUF + its adapter");
    /* a different base */
    hex[0] = hex[0] == '0' ? '1' : '0';
    snprintf(js, sizeof js, "{\"gguf\": \"base/tiny.gguf\", \"sha256\": \"%s\"}", hex);
    put("base.json", js, strlen(js));
    expect_fail("sha256 mismatch", tmpdir, NULL, "E801", "sha256", "base/tiny.gguf");
    shipped.verify_base = false;
    CHECK(logits_of(tmpdir, &shipped, b, &V2), "unverified load skips the hash: %s", test_diag_log());
    const char *abs_path = "{\"gguf\": \"/x.gguf\", \"sha256\": \"00\"}";
    put("base.json", abs_path, strlen(abs_path));
    expect_fail("absolute base path", tmpdir, NULL, "E802", "must be relative", NULL);
    /* a sibling folder (models/default -> ../base/...), verified through a stamp whose
     * size/mtime match (no re-hash) and, once the stamp is stale, by hashing again */
    {
        char sib[600], stamp[700], hexok[65];
        memcpy(hexok, realhex, sizeof hexok);
        snprintf(js, sizeof js, "{\"gguf\": \"../%s/base/tiny.gguf\", \"sha256\": \"%s\"}", strrchr(tmpdir, '/') + 1, hexok);
        put("base.json", js, strlen(js));
        shipped.verify_base = true;
        CHECK(logits_of(tmpdir, &shipped, b, &V2) && !memcmp(a, b, sizeof a), "../ path to a sibling: %s", test_diag_log());
        snprintf(sib, sizeof sib, "%s/base/tiny.gguf", tmpdir);
        struct stat sb;
        CHECK(stat(sib, &sb) == 0, "stat base");
        snprintf(stamp, sizeof stamp, "%s %lld %lld\n", hexok, (long long)sb.st_size, (long long)sb.st_mtime);
        put("base/tiny.gguf.sha256", stamp, strlen(stamp));
        CHECK(logits_of(tmpdir, &shipped, b, &V2), "stamped base: %s", test_diag_log());
        snprintf(stamp, sizeof stamp, "%s %lld %lld\n", hexok, (long long)sb.st_size + 1, (long long)sb.st_mtime);
        put("base/tiny.gguf.sha256", stamp, strlen(stamp));
        CHECK(logits_of(tmpdir, &shipped, b, &V2), "stale stamp: hashed again: %s", test_diag_log());
    }
    const char *missing = "{\"gguf\": \"base/none.gguf\"}";
    put("base.json", missing, strlen(missing));
    model_load_opts nov = {NULL, 1, NULL, false, false, NULL, false};
    pg_diag_sink s2 = test_sink();
    CHECK(model_load(tmpdir, &nov, &m, &s2) != PG_OK && strstr(test_diag_log(), "none.gguf"), "missing base: %s", test_diag_log());
    /* shape that disagrees with the metadata: blk.0.attn_k.weight's rows 64 -> 32 in the tensor directory */
    size_t n;
    uint8_t *g = (uint8_t *)slurp(GE "/tiny_qwen2.gguf", &n);
    const char *tn = "blk.0.attn_k.weight";
    uint8_t *at = g ? memmem(g, n, tn, strlen(tn)) : NULL;
    CHECK(at != NULL, "tensor name in the tiny file");
    if (at) {
        uint8_t *dims = at + strlen(tn) + 4;   /* n_dims (u32), then ne[0], ne[1] (u64) */
        uint64_t ne1;
        memcpy(&ne1, dims + 8, 8);
        CHECK(ne1 == 64, "ne[1] of attn_k is 64 (%llu)", (unsigned long long)ne1);
        ne1 = 32;
        memcpy(dims + 8, &ne1, 8);
        put("bad_shape.gguf", g, n);
        char bp[512];
        snprintf(bp, sizeof bp, "%s/bad_shape.gguf", tmpdir);
        expect_fail("shape vs metadata", bp, NULL, "E803", "blk.0.attn_k.weight", "[128, 32]");
    }
    free(g);
    /* adapter errors: an unknown target, and r that disagrees with the tensors */
    snprintf(sub, sizeof sub, "%s/ad", tmpdir);
    mkdir(sub, 0700);
    char *cfg = slurp(GE "/tiny_qwen2_lora/adapter_config.json", &n);
    char *bad = cfg ? test_replace(cfg, "\"up_proj\"", "\"foo_proj\"") : NULL;
    copy(GE "/tiny_qwen2_lora/adapter_model.safetensors", "ad/adapter_model.safetensors");
    CHECK(bad != NULL, "target list in adapter_config.json");
    char adp[512];
    snprintf(adp, sizeof adp, "%s/ad", tmpdir);
    if (bad) {
        put("ad/adapter_config.json", bad, strlen(bad));
        expect_fail("unknown target", GE "/tiny_qwen2.gguf", adp, "E805", "foo_proj", NULL);
    }
    free(bad);
    bad = cfg ? test_replace(cfg, "\"r\": 2", "\"r\": 3") : NULL;
    CHECK(bad != NULL, "r in adapter_config.json");
    if (bad) {
        put("ad/adapter_config.json", bad, strlen(bad));
        expect_fail("r vs adapter shapes", GE "/tiny_qwen2.gguf", adp, "E805", "lora_A.weight", "r=3");
    }
    free(bad);
    free(cfg);
    /* new inputs users bring (issue 32): a GGUF of another architecture (the tiny qwen2 with every
     * "qwen2" renamed, so its keys stay consistent), and an adapter trained on another base */
    char *gg = slurp(GE "/tiny_qwen2.gguf", &n);
    CHECK(gg != NULL, "read tiny_qwen2.gguf");
    for (size_t i = 0; gg && i + 5 <= n; i++)
        if (!memcmp(gg + i, "qwen2", 5)) memcpy(gg + i, "gemma", 5);
    if (gg) put("gemma.gguf", gg, n);
    free(gg);
    char gp[512];
    snprintf(gp, sizeof gp, "%s/gemma.gguf", tmpdir);
    expect_fail("another architecture", gp, NULL, "E802", "architecture 'gemma' is not supported", "qwen2, llama");
    expect_fail("a qwen2 adapter on a llama model", GE "/tiny_llama.gguf", GE "/tiny_qwen2_lora", "E805", "Qwen2ForCausalLM",
                "this model is llama");
    expect_fail("a llama adapter on a qwen2 model", GE "/tiny_qwen2.gguf", GE "/tiny_llama_lora", "E805", "LlamaForCausalLM",
                "adapter for another base");
    model_load_opts bf = {NULL, 1, "bf16", false, false, NULL, false};
    s = test_sink();
    CHECK(model_load(GE "/tiny_qwen2.gguf", &bf, &m, &s) == PG_ERR_USAGE && strstr(test_diag_log(), "stored types"),
          "a compute dtype for a GGUF is refused: %s", test_diag_log());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
}

int main(void) {
    json_error_t e;
    json_t *gold = json_load_file(GE "/golden.json", 0, &e);
    if (!gold) { CHECK(0, "cannot read %s/golden.json: %s", GE, e.text); return TEST_DONE(); }
    printf("kernels: %s\n", model_kernels_isa());
    const json_t *cases = json_object_get(gold, "cases");
    for (size_t i = 0; i < json_array_size(cases); i++) {
        const json_t *gc = json_array_get(cases, i);
        const char *name = json_string_value(json_object_get(gc, "name"));
        char file[1024];
        snprintf(file, sizeof file, "%s", json_string_value(json_object_get(gc, "file")));
        bool tiny = !strncmp(name, "tiny_", 5);
        if (!tiny) {   /* the real files: from the environment or models/base/ */
            static const char *const real[][3] = {
                {"qwen", "PTXGEN_QWEN_GGUF", "models/base/qwen2.5-coder-0.5b-instruct.gguf"},
                {"smol", "PTXGEN_SMOL_GGUF", "models/base/smollm2-135m-instruct.Q4_1.gguf"},
                {"qwen15", "PTXGEN_QWEN15_GGUF", "models/base/qwen2.5-coder-1.5b-instruct.gguf"},
            };
            int k = 0;
            while (k < 3 && strcmp(name, real[k][0])) k++;
            if (k == 3) { CHECK(0, "golden case '%s' is neither tiny nor a known real file", name); continue; }
            const char *env = getenv(real[k][1]);
            snprintf(file, sizeof file, "%s", env && *env ? env : real[k][2]);
            struct stat sb;
            if (stat(file, &sb) != 0) { printf("%s: SKIPPED (%s absent)\n", name, file); continue; }
            if ((long long)sb.st_size != (long long)json_integer_value(json_object_get(gc, "file_bytes"))) {
                printf("%s: SKIPPED (%s is not the file the goldens came from)\n", name, file);
                continue;
            }
        }
        for (int mi = 0; mi < 2; mi++) {
            const char *mode = mi ? "lora" : "base";
            if (!json_object_get(gc, mode)) continue;
            for (int th = tiny ? 1 : 2; th <= 2; th++) {
                /* a case may carry its own exact bound: the 1.5B's random adapter is so large that two f32
                 * references (PEFT's side path, the adapter merged) already differ by 1.5e-4 */
                double etol = json_number_value(json_object_get(gc, "exact_tol"));
                if (etol <= 0) etol = EXACT_TOL;
                double ex = run_mode(file, gc, mode, true, th, etol, etol);
                double fa = run_mode(file, gc, mode, false, th, etol, FAST_TOL);
                printf("%-10s %-4s %dT  exact path %.2e (bound %.0e)   fast path %.2e (bound %.0e)\n", name, mode, th, ex, etol,
                       fa, FAST_TOL);
            }
        }
    }
    if (model_kernels_force("scalar")) {   /* the scalar kernels on a tiny model too */
        const json_t *gc = json_array_get(cases, 0);
        printf("scalar: tiny_qwen2 lora exact %.2e fast %.2e\n", run_mode(GE "/tiny_qwen2.gguf", gc, "lora", true, 2, EXACT_TOL, EXACT_TOL),
               run_mode(GE "/tiny_qwen2.gguf", gc, "lora", false, 2, EXACT_TOL, FAST_TOL));
    }
    test_shipped_and_errors();
    json_decref(gold);
    return TEST_DONE();
}
