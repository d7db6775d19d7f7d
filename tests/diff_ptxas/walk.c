/* walk.c — is the constraint sound?  Random constrained walks of the decoder
 * (include/ptxgen/decode.h), uniform over the tokens it allows, until the
 * module is complete; every finished walk must pass libptx and ptxas.
 *
 *   diff_ptxas --walks N --tokenizer tokenizer.json [--seed S] [--targets sm_70,sm_80,sm_90]
 *              [--batch B] [--cases DIR] [--json OUT] [--quiet]
 *
 * Walk i is a pure function of (seed, i): its target (round-robin), how many
 * statements it may write (10..80), the register-count cap, and how its entry
 * starts: a forced signature (as gen --task does), a forced name (the model
 * writes the parameters), or nothing (the model writes the name and may put
 * .shared arrays at module scope).  Walks with a forced name or signature are
 * renamed uniquely and checked by ptxas in batches; the others alone. */
#include "diff.h"
#include "ptxgen/decode.h"
#include "ptxgen/model.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char *const SIGS[] = {
    ".visible .entry %s(\n\t.param .u64 x,\n\t.param .u64 y,\n\t.param .u32 n\n)",
    ".visible .entry %s(\n\t.param .u64 a,\n\t.param .u64 b,\n\t.param .u64 c,\n\t.param .u32 m,\n\t.param .u32 k\n)",
    ".visible .entry %s(\n\t.param .u64 out,\n\t.param .f32 alpha,\n\t.param .u32 n\n)",
    ".visible .entry %s(\n\t.param .u64 p,\n\t.param .f64 s,\n\t.param .s32 n,\n\t.param .b64 q\n)",
};

typedef struct {
    char *text;          /* the finished module */
    bool finished, batchable, dead;
    int target, tokens;
} walk;

static void one_walk(const dec_vocab *v, int nv, uint64_t seed, long i, const dp_target *t, int ti, walk *w) {
    memset(w, 0, sizeof *w);
    w->target = ti;
    dp_rng r = dp_rng_of(seed ^ 0x3A1Cull, (uint64_t)i);
    char name[24], sig[400];
    snprintf(name, sizeof name, "w%ld", i);
    dec_opts o;
    memset(&o, 0, sizeof o);
    o.arch = t->name;
    o.max_statements = 10 + dp_below(&r, 71);
    o.max_regs_per_decl = 1 + dp_below(&r, 64);
    int how = dp_below(&r, 10);
    if (how < 4) {
        snprintf(sig, sizeof sig, SIGS[dp_below(&r, (int)(sizeof SIGS / sizeof SIGS[0]))], name);
        o.signature = sig;
        w->batchable = true;
    } else if (how < 8) {
        o.entry_name = name;
        w->batchable = true;
    }
    if (dp_chance(&r, 0.2)) {
        static const int blk[][3] = {{256, 1, 1}, {128, 1, 1}, {16, 16, 1}, {32, 8, 1}, {1024, 1, 1}};
        memcpy(o.block, blk[dp_below(&r, 5)], sizeof o.block);
    }
    dec_state *s = NULL;
    pg_diag_sink d = {0};
    if (dec_new(v, &o, &s, &d) != PG_OK) { w->dead = true; return; }
    uint32_t *bits = calloc((size_t)(nv + 31) / 32, 4);
    int32_t *allowed = malloc(sizeof(int32_t) * (size_t)nv);
    pg_buf forced = {0};
    for (int step = 0; step < 50000 && !dec_done(s); step++) {
        forced.len = 0;
        if (dec_forced_text(s, &forced)) {   /* as gen does: forced text goes in whole */
            if (dec_advance_text(s, forced.data, forced.len, &d) != PG_OK) { w->dead = true; break; }
            continue;
        }
        int n = dec_mask(s, bits);
        if (n <= 0) { w->dead = true; break; }
        int k = 0;
        for (int j = 0; j < (nv + 31) / 32; j++)
            for (uint32_t m = bits[j]; m; m &= m - 1) allowed[k++] = j * 32 + __builtin_ctz(m);
        int32_t tok = allowed[dp_below(&r, k)];
        if (dec_advance(s, tok, &d) != PG_OK) { w->dead = true; break; }
        w->tokens++;
    }
    w->finished = dec_done(s) && !w->dead;
    size_t len;
    const char *txt = dec_text(s, &len);
    w->text = malloc(len + 1);
    memcpy(w->text, txt, len + 1);
    free(bits);
    free(allowed);
    pg_buf_free(&forced);
    dec_free(s);
}

/* The module without its header lines (.version/.target/.address_size and the blank line). */
static const char *body_of(const char *text, int *ptx) {
    const char *v = strstr(text, ".version ");
    *ptx = v ? (int)(atof(v + 9) * 10 + 0.5) : 80;
    const char *a = strstr(text, ".address_size");
    if (!a) return text;
    a = strchr(a, '\n');
    if (!a) return text;
    a++;
    while (*a == '\n') a++;
    return a;
}

int dp_run_walks(int argc, char **argv) {
    long nwalks = 0;
    uint64_t seed = 1;
    const char *tokp = NULL, *targets = "sm_70,sm_80,sm_90", *json_path = NULL, *cases = NULL;
    int batch = 200;
    bool quiet = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--walks") && val) { nwalks = atol(val); i++; }
        else if (!strcmp(a, "--tokenizer") && val) { tokp = val; i++; }
        else if (!strcmp(a, "--seed") && val) { seed = strtoull(val, NULL, 10); i++; }
        else if (!strcmp(a, "--targets") && val) { targets = val; i++; }
        else if (!strcmp(a, "--json") && val) { json_path = val; i++; }
        else if (!strcmp(a, "--cases") && val) { cases = val; i++; }
        else if (!strcmp(a, "--batch") && val) { batch = atoi(val); i++; }
        else if (!strcmp(a, "--quiet")) quiet = true;
        else { fprintf(stderr, "diff_ptxas --walks: unknown argument '%s'\n", a); return 2; }
    }
    if (nwalks <= 0 || !tokp || batch < 1) { fprintf(stderr, "diff_ptxas --walks N --tokenizer FILE [...]\n"); return 2; }
    const dp_target *ts[8];
    int nt = 0;
    char tl[256];
    snprintf(tl, sizeof tl, "%s", targets);
    for (char *p = strtok(tl, ","); p; p = strtok(NULL, ",")) {
        if (nt >= 8 || !(ts[nt] = dp_target_find(p))) { fprintf(stderr, "diff_ptxas: unknown target '%s'\n", p); return 2; }
        nt++;
    }
    pg_diag_sink d = {0};
    tok_tokenizer *tk = NULL;
    dec_vocab *v = NULL;
    if (tok_load(tokp, &tk, &d) != PG_OK || dec_vocab_new(tk, &v, &d) != PG_OK) {
        fprintf(stderr, "diff_ptxas: cannot load the tokenizer %s\n", tokp);
        tok_free(tk);
        return 2;
    }
    int nv = dec_vocab_size(v);
    dp_oracle o;
    if (!dp_oracle_open(&o)) {
        printf("SKIPPED: ptxas not found (set PTXAS or CUDA_HOME): no walks checked\n0 passed, 0 failed\n");
        dec_vocab_free(v);
        tok_free(tk);
        return 0;
    }
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long finished = 0, dead = 0, lib_ok = 0, px_ok = 0, px_checked = 0, tokens = 0, alone = 0;
    long per_t_fin[8] = {0}, per_t_ok[8] = {0};
    json_t *fails = json_array();
    for (long b0 = 0; b0 < nwalks; b0 += batch) {
        int nb = (int)(nwalks - b0 < batch ? nwalks - b0 : batch);
        walk *w = calloc((size_t)nb, sizeof(walk));
        for (int k = 0; k < nb; k++) {
            long i = b0 + k;
            one_walk(v, nv, seed, i, ts[i % nt], (int)(i % nt), &w[k]);
            tokens += w[k].tokens;
            dead += w[k].dead;
        }
        /* ptxas per target: the batchable walks together, the others alone */
        for (int ti = 0; ti < nt; ti++) {
            PG_VEC(dp_prog) progs = {0};
            PG_VEC(int) which = {0};
            int ptx = 80;
            for (int k = 0; k < nb; k++) {
                if (w[k].target != ti || !w[k].finished) continue;
                dp_verdict lib;
                dp_libptx_check(w[k].text, strlen(w[k].text), &lib);
                bool lok = lib.ok;
                lib_ok += lok;
                if (!w[k].batchable) {
                    dp_verdict px;
                    dp_ptxas_check(&o, ts[ti], w[k].text, strlen(w[k].text), &px);
                    alone++;
                    px_checked++;
                    per_t_fin[ti]++;
                    if (px.ok && lok) { px_ok++; per_t_ok[ti]++; }
                    else json_array_append_new(fails, json_pack("{ss ss ss ss}", "target", ts[ti]->name, "libptx", lok ? "ok" : lib.msg,
                                                                "ptxas", px.ok ? "ok" : px.msg, "text", w[k].text));
                    continue;
                }
                dp_prog p;
                memset(&p, 0, sizeof p);
                p.text = (char *)body_of(w[k].text, &ptx);
                snprintf(p.name, sizeof p.name, "w%ld", b0 + k);
                p.cat = DP_WALK;
                pg_vec_push(progs, p);
                pg_vec_push(which, k);
                if (!lok) json_array_append_new(fails, json_pack("{ss ss ss}", "target", ts[ti]->name, "libptx", lib.msg, "text", w[k].text));
            }
            if (progs.n) {
                dp_prog **ptrs = malloc(sizeof(dp_prog *) * (size_t)progs.n);
                dp_verdict *px = calloc((size_t)progs.n, sizeof(dp_verdict));
                for (int k = 0; k < progs.n; k++) ptrs[k] = &progs.v[k];
                dp_ptxas_batch(&o, ts[ti], ptx, ptrs, progs.n, px);
                for (int k = 0; k < progs.n; k++) {
                    px_checked++;
                    per_t_fin[ti]++;
                    dp_verdict lib;
                    dp_libptx_check(w[which.v[k]].text, strlen(w[which.v[k]].text), &lib);
                    if (!px[k].ok) {   /* confirm alone, on the walk as written */
                        dp_ptxas_check(&o, ts[ti], w[which.v[k]].text, strlen(w[which.v[k]].text), &px[k]);
                    }
                    if (px[k].ok && lib.ok) { px_ok++; per_t_ok[ti]++; }
                    else if (lib.ok)
                        json_array_append_new(fails, json_pack("{ss ss ss}", "target", ts[ti]->name, "ptxas", px[k].msg, "text",
                                                               w[which.v[k]].text));
                }
                free(ptrs);
                free(px);
            }
            pg_vec_free(progs);
            pg_vec_free(which);
        }
        for (int k = 0; k < nb; k++) {
            finished += w[k].finished;
            free(w[k].text);
        }
        free(w);
        if (!quiet) {
            struct timespec t1;
            clock_gettime(CLOCK_MONOTONIC, &t1);
            fprintf(stderr, "walks: %ld done, %ld finished, %ld accepted by both, %ld rejected, %ld dead; %.0f s\n", b0 + nb,
                    finished, px_ok, px_checked - px_ok, dead, (double)(t1.tv_sec - t0.tv_sec));
        }
    }
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    size_t nfail = json_array_size(fails);
    if (cases && nfail) {
        mkdir(cases, 0755);
        for (size_t k = 0; k < nfail && k < 50; k++) {
            char path[512];
            snprintf(path, sizeof path, "%s/walk_fail_%zu.ptx", cases, k);
            FILE *f = fopen(path, "w");
            if (f) { fputs(json_string_value(json_object_get(json_array_get(fails, k), "text")), f); fclose(f); }
        }
    }
    for (size_t k = 0; k < nfail && k < 5; k++) {
        json_t *e = json_array_get(fails, k);
        printf("REJECTED walk on %s: libptx %s; ptxas %s\n%s\n", json_string_value(json_object_get(e, "target")),
               json_object_get(e, "libptx") ? json_string_value(json_object_get(e, "libptx")) : "ok",
               json_object_get(e, "ptxas") ? json_string_value(json_object_get(e, "ptxas")) : "-",
               json_string_value(json_object_get(e, "text")));
    }
    if (json_path) {
        json_t *j = json_object();
        json_object_set_new(j, "walks", json_integer(nwalks));
        json_object_set_new(j, "seed", json_integer((json_int_t)seed));
        json_object_set_new(j, "tokenizer", json_string(tokp));
        json_object_set_new(j, "vocab", json_integer(nv));
        json_object_set_new(j, "finished", json_integer(finished));
        json_object_set_new(j, "dead_states", json_integer(dead));
        json_object_set_new(j, "libptx_valid", json_integer(lib_ok));
        json_object_set_new(j, "ptxas_checked", json_integer(px_checked));
        json_object_set_new(j, "accepted_by_both", json_integer(px_ok));
        json_object_set_new(j, "checked_alone", json_integer(alone));
        json_object_set_new(j, "tokens", json_integer(tokens));
        json_t *pt = json_object();
        for (int ti = 0; ti < nt; ti++)
            json_object_set_new(pt, ts[ti]->name, json_pack("{sI sI}", "finished", (json_int_t)per_t_fin[ti], "accepted", (json_int_t)per_t_ok[ti]));
        json_object_set_new(j, "by_target", pt);
        json_object_set_new(j, "failures", json_incref(fails));
        json_object_set_new(j, "ptxas_runs", json_integer(o.runs));
        json_object_set_new(j, "wall_seconds", json_real(secs));
        char tmp[600];
        snprintf(tmp, sizeof tmp, "%s.tmp", json_path);
        if (json_dump_file(j, tmp, JSON_INDENT(2)) || rename(tmp, json_path)) fprintf(stderr, "diff_ptxas: cannot write %s\n", json_path);
        json_decref(j);
    }
    printf("walks: %ld, finished %ld, dead states %ld, libptx valid %ld, accepted by libptx and ptxas %ld of %ld checked (%.1f s)\n",
           nwalks, finished, dead, lib_ok, px_ok, px_checked, secs);
    long bad = (nwalks - finished) + (px_checked - px_ok);
    printf("%ld passed, %ld failed\n", px_ok, bad);
    json_decref(fails);
    dp_oracle_close(&o);
    dec_vocab_free(v);
    tok_free(tk);
    return bad ? 1 : 0;
}
