/* test_synth_names.c — every kernel name the synth emits is one the constrained
 * decoder takes (at most PG_NAME_MAX bytes, ptxgen/common.h), without nvcc or a GPU:
 *
 *  - synth_fam_fit_name / synth_fam_shorten (src/synth/family.c): names that fit
 *    are left alone, long words are shortened, a name still too long keeps its
 *    leading words plus a hash of the whole name; deterministic, idempotent, and
 *    names that differ only where they are cut stay different;
 *  - every family's generator (straight from the family table) for
 *    SYNTH_NAMES_N seeds (default 300): the name is a PTX identifier of at most
 *    PG_NAME_MAX bytes, the task.json's name and kernel are that name, the CUDA C
 *    or PTX defines that entry, every parameter name is within PG_NAME_MAX too, and
 *    no two families draw the same name;
 *  - the task-only pool's names (synth_taskonly_task);
 *  - the decoder: dec_new takes the signature gen_signature_from_task builds for
 *    each family's longest name (and for the first seeds of every family).
 * (test_synth_family checks the same limit on the samples nvcc compiled.) */
#include "common/test.h"
#include "synth/family_internal.h"   /* the per-family generators and the name helpers */
#include "ptxgen/decode.h"
#include "ptxgen/synth.h"
#include "ptxgen/task.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct { const char *name; fam_gen_fn fn; } FAMS[] = {
#define SYNTH_FAMILY(name, fn, ref, nvcc) {name, fn},
#include "families_all.def"
#undef SYNTH_FAMILY
};
enum { NFAMS = (int)(sizeof FAMS / sizeof FAMS[0]), NDECODE = 8 };

static bool is_ident(const char *s) {   /* [A-Za-z][A-Za-z0-9_]*: a PTX identifier, a C one and a file name */
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_')) return false;
    return true;
}

static char *fit(const char *in) {   /* synth_fam_fit_name on a copy (static buffer) */
    static char b[96];
    snprintf(b, sizeof b, "%s", in);
    synth_fam_fit_name(b);
    return b;
}

static void test_helpers(void) {
    CHECK(!strcmp(fit("saxpy_f32"), "saxpy_f32"), "a short name is left alone: %s", fit("saxpy_f32"));
    const char *n32 = "layer_norm_rows_f32_b256_gs_ip_x";   /* 32 bytes: fits, long words and all */
    CHECK(strlen(n32) == PG_NAME_MAX && !strcmp(fit(n32), n32), "a %d-byte name is left alone: %s", PG_NAME_MAX, fit(n32));
    /* long words shortened, nothing cut */
    CHECK(!strcmp(fit("hardsigmoid_fwd_bf16_inplace_vec4_gs"), "hsigmoid_fwd_bf16_ip_vec4_gs"), "abbreviated: %s",
          fit("hardsigmoid_fwd_bf16_inplace_vec4_gs"));
    CHECK(!strcmp(fit("cross_entropy_rows_f32_b256_sum_online"), "xentr_rows_f32_b256_sum_onl"), "a phrase abbreviated: %s",
          fit("cross_entropy_rows_f32_b256_sum_online"));
    CHECK(!strcmp(fit("directional_rows_f32_b256_online_q"), "directional_rows_f32_b256_onl_q"), "whole words only (directional is not direct): %s",
          fit("directional_rows_f32_b256_online_q"));
    /* still too long: leading words and a hash of the whole name (pinned: names are part of the data) */
    const char *a = "bias_hardtanh_residual_colbias_inplace_bf16_v1_gs", *b = "bias_hardtanh_residual_colbias_inplace_bf16_v2_gs";
    char fa[96];
    snprintf(fa, sizeof fa, "%s", fit(a));
    CHECK(!strcmp(fa, "bias_hardtanh_res_cbias_01c56b"), "cut and hashed: %s", fa);
    CHECK(strcmp(fa, fit(b)) && !strncmp(fa, fit(b), strlen(fa) - 6), "names that differ where they are cut stay different: %s %s", fa,
          fit(b));
    CHECK(!strcmp(fit(fa), fa), "idempotent: %s", fit(fa));
    CHECK(!strcmp(fit(a), fa), "deterministic");
    const char *word = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz";   /* one word longer than the limit */
    CHECK(strlen(fit(word)) == PG_NAME_MAX && is_ident(fit(word)) && !strncmp(fit(word), word, PG_NAME_MAX - 7), "a long word is cut: %s",
          fit(word));
    /* synth_fam_shorten: to a given length, no hash (synth_sp_seal_name adds its own) */
    char s[96];
    snprintf(s, sizeof s, "%s", "stencil2d_heat5_var_periodic_f64_direct_16x16x1");
    synth_fam_shorten(s, PG_NAME_MAX - 7);
    CHECK(!strcmp(s, "st2d_heat5_var_peri_f64"), "shortened to %d bytes: %s", PG_NAME_MAX - 7, s);
    snprintf(s, sizeof s, "%s", "spmv_csr_f32_b128");
    synth_fam_shorten(s, PG_NAME_MAX - 7);
    CHECK(!strcmp(s, "spmv_csr_f32_b128"), "a name that fits is left alone: %s", s);
}

/* dec_new takes the signature of the task `task_json` (written to a file for task_load). */
static bool decodable(const dec_vocab *v, const char *task_json, const char *path, char *why, size_t whyn) {
    FILE *f = fopen(path, "wb");
    if (!f) { snprintf(why, whyn, "cannot write %s", path); return false; }
    fputs(task_json, f);
    fclose(f);
    task_spec *t = NULL;
    pg_diag_sink q = test_sink();
    if (task_load(path, &t, &q) != PG_OK) { snprintf(why, whyn, "task_load: %.200s", test_diag_log()); return false; }
    pg_buf sig = {0};
    gen_signature_from_task(t, &sig);
    dec_opts o = {0};
    o.arch = "sm_90";
    o.signature = sig.data;
    dec_state *s = NULL;
    bool ok = dec_new(v, &o, &s, &q) == PG_OK;
    if (!ok) snprintf(why, whyn, "dec_new: %.200s", test_diag_log());
    dec_free(s);
    pg_buf_free(&sig);
    task_free(t);
    return ok;
}

typedef struct { char name[96]; int fam; } drawn;
static int by_name(const void *x, const void *y) { return strcmp(((const drawn *)x)->name, ((const drawn *)y)->name); }

static void test_families(const dec_vocab *v, int nseeds) {
    char path[64];
    snprintf(path, sizeof path, "/tmp/ptxgen-namestest-%d.json", (int)getpid());
    drawn *all = calloc((size_t)NFAMS * (size_t)nseeds, sizeof *all);
    int nall = 0, longest = 0, nsamples = 0;
    char longest_name[96] = "";
    for (int f = 0; f < NFAMS; f++) {
        int bad_len = 0, bad_id = 0, bad_task = 0, bad_param = 0, bad_entry = 0, bad_dec = 0, flong = 0, flong_at = -1;
        for (int i = 0; i < nseeds; i++) {
            synth_family_sample s;
            memset(&s, 0, sizeof s);
            if (FAMS[f].fn(1000003ull * (uint64_t)i + 17, &s) != PG_OK) {
                CHECK(false, "%s seed %d: generator failed", FAMS[f].name, i);
                continue;
            }
            nsamples++;
            int len = (int)strlen(s.name);
            if (len > PG_NAME_MAX && bad_len++ == 0) fprintf(stderr, "  %s: %d bytes: %s\n", FAMS[f].name, len, s.name);
            if (!is_ident(s.name) && bad_id++ == 0) fprintf(stderr, "  %s: not an identifier: %s\n", FAMS[f].name, s.name);
            if (len > flong) { flong = len; flong_at = i; }
            if (len > longest) { longest = len; snprintf(longest_name, sizeof longest_name, "%s", s.name); }
            /* the task names the same kernel, and so does the code */
            json_t *t = json_loads(s.task_json.data ? s.task_json.data : "", 0, NULL);
            const char *tn = json_string_value(json_object_get(t, "name")), *tk = json_string_value(json_object_get(t, "kernel"));
            if ((!tn || !tk || strcmp(tn, s.name) || strcmp(tk, s.name)) && bad_task++ == 0)
                fprintf(stderr, "  %s: task name %s, kernel %s, sample %s\n", FAMS[f].name, tn ? tn : "-", tk ? tk : "-", s.name);
            json_t *ps = json_object_get(t, "params");
            for (size_t k = 0; k < json_array_size(ps); k++) {
                const char *pn = json_string_value(json_object_get(json_array_get(ps, k), "name"));
                if ((!pn || strlen(pn) > PG_NAME_MAX) && bad_param++ == 0)
                    fprintf(stderr, "  %s (%s): parameter %s\n", FAMS[f].name, s.name, pn ? pn : "-");
            }
            json_decref(t);
            char def[128];
            snprintf(def, sizeof def, s.cu.len ? " %s(" : ".entry %s(", s.name);
            if (!strstr(s.cu.len ? s.cu.data : s.ptx.data ? s.ptx.data : "", def) && bad_entry++ == 0)
                fprintf(stderr, "  %s: the code does not define %s\n", FAMS[f].name, s.name);
            char why[300];
            if (i < NDECODE && !decodable(v, s.task_json.data, path, why, sizeof why) && bad_dec++ == 0)
                fprintf(stderr, "  %s (%s): %s\n", FAMS[f].name, s.name, why);
            snprintf(all[nall].name, sizeof all[nall].name, "%s", s.name);
            all[nall++].fam = f;
            synth_family_sample_free(&s);
        }
        /* the family's longest name through the decoder */
        if (flong_at >= NDECODE) {
            synth_family_sample s;
            memset(&s, 0, sizeof s);
            char why[300];
            if (FAMS[f].fn(1000003ull * (uint64_t)flong_at + 17, &s) == PG_OK && !decodable(v, s.task_json.data, path, why, sizeof why) &&
                bad_dec++ == 0)
                fprintf(stderr, "  %s (%s): %s\n", FAMS[f].name, s.name, why);
            synth_family_sample_free(&s);
        }
        CHECK(bad_len == 0, "%s: %d names over PG_NAME_MAX (%d)", FAMS[f].name, bad_len, PG_NAME_MAX);
        CHECK(bad_id == 0, "%s: %d names are not identifiers", FAMS[f].name, bad_id);
        CHECK(bad_task == 0, "%s: %d tasks name another kernel", FAMS[f].name, bad_task);
        CHECK(bad_param == 0, "%s: %d parameter names over PG_NAME_MAX", FAMS[f].name, bad_param);
        CHECK(bad_entry == 0, "%s: %d kernels do not define their name", FAMS[f].name, bad_entry);
        CHECK(bad_dec == 0, "%s: %d signatures the decoder does not take", FAMS[f].name, bad_dec);
        printf("family %-10s longest name %2d bytes\n", FAMS[f].name, flong);
    }
    /* a name belongs to one family */
    qsort(all, (size_t)nall, sizeof *all, by_name);
    int shared = 0;
    for (int i = 1; i < nall; i++)
        if (!strcmp(all[i].name, all[i - 1].name) && all[i].fam != all[i - 1].fam && shared++ == 0)
            fprintf(stderr, "  %s is drawn by %s and %s\n", all[i].name, FAMS[all[i - 1].fam].name, FAMS[all[i].fam].name);
    CHECK(shared == 0, "%d names are drawn by two families", shared);
    printf("%d samples of %d families (%d seeds each): longest name %d bytes (%s), limit %d\n", nsamples, NFAMS, nseeds, longest,
           longest_name, PG_NAME_MAX);
    free(all);
    unlink(path);
}

static void test_taskonly(void) {
    int bad = 0;
    for (int i = 0; i < 300; i++) {
        pg_buf j = {0};
        char name[128] = "";
        pg_diag_sink q = {0};
        if (synth_taskonly_task(7, i, &j, name, sizeof name, &q) == PG_OK && (strlen(name) > PG_NAME_MAX || !is_ident(name)) && bad++ == 0)
            fprintf(stderr, "  task-only name %s\n", name);
        pg_buf_free(&j);
    }
    CHECK(bad == 0, "%d task-only names over PG_NAME_MAX or not identifiers", bad);
}

/* A byte-level vocabulary (every printable byte one token) and the end token. */
static dec_vocab *byte_vocab(void) {
    static char singles[128][2];
    const char *p[129];
    bool sp[129] = {false};
    for (int i = 0; i < 128; i++) {
        singles[i][0] = (char)(i ? i : 1);
        p[i] = singles[i];
    }
    p[128] = GEN_TOK_END;
    sp[128] = true;
    dec_vocab *v = NULL;
    pg_diag_sink d = {0};
    dec_vocab_from_pieces(p, NULL, sp, 129, &v, &d);
    return v;
}

int main(void) {
    const char *e = getenv("SYNTH_NAMES_N");
    int nseeds = e ? atoi(e) : 300;
    if (nseeds < 1 || nseeds > 100000) nseeds = 300;
    test_helpers();
    dec_vocab *v = byte_vocab();
    CHECK(v != NULL, "byte vocabulary");
    if (v) test_families(v, nseeds);
    test_taskonly();
    dec_vocab_free(v);
    return TEST_DONE();
}
