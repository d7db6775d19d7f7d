/* main.c — diff_ptxas: libptx against ptxas.  See tests/diff_ptxas/README.md.
 *
 *   diff_ptxas [--seed S] [--programs N] [--first I] [--targets sm_70,sm_80,sm_90]
 *              [--batch B] [--token-pct P] [--known FILE] [--cases DIR] [--max-cases K]
 *              [--no-reduce] [--only OPCODE,...|CATEGORY] [--json OUT] [--quiet]
 *   diff_ptxas --regress FILE...
 *   diff_ptxas --dump SEED FIRST [N]      (print programs FIRST..FIRST+N-1)
 *   diff_ptxas --probe TARGET PTX < LINES (both verdicts per line: for writing rows)
 *   diff_ptxas --walks N --tokenizer tokenizer.json [--seed S] [--targets ...] [--json OUT]
 *
 * A campaign makes programs first..first+N-1 (gen.c), in batches of B: the
 * batch's fresh programs, then P% one-token mutants of those ptxas accepted.
 * Each batch is checked on every target with a PTX version drawn per batch
 * from the target's list: libptx on each program alone, ptxas on the batch
 * (oracle.c).  A disagreement is re-checked alone, matched against the list
 * of deliberate differences, and the first of each kind is delta-debugged
 * into DIR (--cases) as a regression case.  The last line is
 * "N passed, N failed" (checks that agreed or are documented / that did not),
 * the exit status 1 when any disagreement is left, 2 on usage errors, and 0
 * with a SKIPPED line when ptxas is absent. */
#include "diff.h"
#include "ptxgen/decode.h"
#include "ptxgen/model.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

typedef struct {
    long programs, checks, both_ok, both_bad, false_accept, false_reject, documented, timeouts;
} counts;

typedef struct {
    char key[400];       /* direction | first error (normalized) */
    int dir;             /* 1 false accept (libptx ok, ptxas rejects), 2 false reject */
    dp_cat cat;
    char what[64], target[16];
    char lib_msg[300], px_msg[240];
    long count;
    char *example;       /* the module as checked (alone) */
    char *reduced;       /* delta-debugged, when reduced */
    char case_file[512];
} signature;

typedef struct {
    uint64_t seed;
    long first, n;
    int batch, token_pct;
    const dp_target *targets[8];
    int ntargets;
    const char *cases_dir, *json_path;
    int max_cases;
    bool reduce, quiet;
    dp_known *known;
    dp_oracle o;
    counts cat[DP__NCAT], tgt[8], all;
    PG_VEC(signature) sigs;
    PG_VEC(char *) documented_ids;
    long doc_count[64];
    long batch_inconsistent, reduce_tests;
    int cases_written;
    /* coverage: per form, how often ptxas accepted an instance of it (fresh programs) */
    long *form_ok;
    double t0;
} campaign;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char *module_text(const dp_target *t, int ptx, const dp_prog *p) {
    pg_buf b = {0};
    dp_header(t, ptx, &b);
    pg_buf_puts(&b, dp_preamble());
    pg_buf_puts(&b, p->text);
    return b.data;
}

static int version_for(const campaign *c, long batch, int ti) {
    const dp_target *t = c->targets[ti];
    int n = 0;
    while (t->versions[n]) n++;
    dp_rng r = dp_rng_of(c->seed ^ 0x5EED5ull, (uint64_t)batch * 16 + (uint64_t)ti);
    int k = dp_below(&r, 10);
    if (k < 3) return t->versions[n - 1];   /* the newest, most often */
    if (k < 5) return t->versions[0];       /* the oldest the target takes */
    return t->versions[dp_below(&r, n)];
}

static void write_case(campaign *c, signature *s, const dp_target *t, int ptx) {
    if (!c->cases_dir || !s->reduced) return;
    mkdir(c->cases_dir, 0755);
    const char *sub = s->dir == 1 ? "invalid" : "valid";
    char dir[400];
    snprintf(dir, sizeof dir, "%s/%s", c->cases_dir, sub);
    mkdir(dir, 0755);
    uint64_t h = 1469598103934665603ull;
    for (const char *p = s->key; *p; p++) h = (h ^ (uint8_t)*p) * 1099511628211ull;
    snprintf(s->case_file, sizeof s->case_file, "%s/diff_%08llx.ptx", dir, (unsigned long long)(h & 0xffffffffu));
    FILE *f = fopen(s->case_file, "w");
    if (!f) return;
    fprintf(f, "// diff_ptxas (seed %llu, %s, %s, PTX %d.%d): ", (unsigned long long)c->seed, dp_cat_names[s->cat], t->name,
            ptx / 10, ptx % 10);
    if (s->dir == 1) fprintf(f, "ptxas rejects (\"%s\"), libptx accepted\n", s->px_msg);
    else fprintf(f, "ptxas accepts, libptx rejected (%s)\n", s->lib_msg);
    fputs(s->reduced, f);
    fclose(f);
    c->cases_written++;
}

/* One (program, target) verdict pair. */
static void judge(campaign *c, const dp_prog *p, int ti, int ptx, const dp_verdict *lib, dp_verdict px) {
    const dp_target *t = c->targets[ti];
    counts *cc = &c->cat[p->cat], *tc = &c->tgt[ti];
    cc->checks++; tc->checks++; c->all.checks++;
    if (px.timeout) { cc->timeouts++; tc->timeouts++; c->all.timeouts++; return; }
    char *text = NULL;
    if (px.ok != lib->ok) {   /* confirm alone */
        text = module_text(t, ptx, p);
        dp_verdict alone;
        dp_ptxas_check(&c->o, t, text, strlen(text), &alone);
        if (alone.timeout) { cc->timeouts++; tc->timeouts++; c->all.timeouts++; free(text); return; }
        if (alone.ok != px.ok) c->batch_inconsistent++;
        px = alone;
    }
    if (px.ok == lib->ok) {
        if (px.ok) { cc->both_ok++; tc->both_ok++; c->all.both_ok++; }
        else { cc->both_bad++; tc->both_bad++; c->all.both_bad++; }
        free(text);
        return;
    }
    char libkey[sizeof lib->msg + 16];
    snprintf(libkey, sizeof libkey, "%s %s", lib->code, lib->msg);
    /* the opcode of the line ptxas blames (px comes from the alone check: a module line) */
    char opc[32] = "";
    if (text && px.line > 0) {
        const char *l = text;
        for (int n = 1; n < px.line && l; n++) { l = strchr(l, '\n'); if (l) l++; }
        if (l) {
            while (*l == ' ' || *l == '\t') l++;
            if (*l == '@') { while (*l && *l != ' ' && *l != '\t') l++; while (*l == ' ' || *l == '\t') l++; }
            size_t k = 0;
            while (l[k] && l[k] != '.' && l[k] != ' ' && l[k] != '\t' && l[k] != '\n' && l[k] != ';' && k + 1 < sizeof opc) { opc[k] = l[k]; k++; }
            opc[k] = 0;
        }
    }
    const char *kid = dp_known_match(c->known, lib->ok, px.msg, libkey, opc[0] ? opc : NULL);
    if (kid) {
        cc->documented++; tc->documented++; c->all.documented++;
        int i = 0;
        for (; i < c->documented_ids.n; i++)
            if (!strcmp(c->documented_ids.v[i], kid)) break;
        if (i == c->documented_ids.n && i < 64) pg_vec_push(c->documented_ids, strdup(kid));
        if (i < 64) c->doc_count[i]++;
        free(text);
        return;
    }
    int dir = lib->ok ? 1 : 2;
    if (dir == 1) { cc->false_accept++; tc->false_accept++; c->all.false_accept++; }
    else { cc->false_reject++; tc->false_reject++; c->all.false_reject++; }
    char norm[240], key[400];
    if (dir == 1) {
        dp_normalize(px.msg, norm, sizeof norm);
        snprintf(key, sizeof key, "false-accept|%s", norm);
    } else {
        dp_normalize(lib->msg, norm, sizeof norm);
        snprintf(key, sizeof key, "false-reject|%s %s", lib->code, norm);
    }
    for (int i = 0; i < c->sigs.n; i++)
        if (!strcmp(c->sigs.v[i].key, key)) { c->sigs.v[i].count++; free(text); return; }
    signature s;
    memset(&s, 0, sizeof s);
    snprintf(s.key, sizeof s.key, "%s", key);
    s.dir = dir;
    s.cat = p->cat;
    s.count = 1;
    snprintf(s.what, sizeof s.what, "%s", p->what);
    snprintf(s.target, sizeof s.target, "%s", t->name);
    snprintf(s.lib_msg, sizeof s.lib_msg, "%s", libkey);
    snprintf(s.px_msg, sizeof s.px_msg, "%s", px.msg);
    s.example = text;
    if (!c->quiet)
        fprintf(stderr, "DISAGREE %s [%s %s %s PTX %d.%d] libptx: %s | ptxas: %s\n", dir == 1 ? "false-accept" : "false-reject",
                dp_cat_names[p->cat], p->what, t->name, ptx / 10, ptx % 10, lib->ok ? "ok" : libkey, px.ok ? "ok" : px.msg);
    if (c->reduce && c->cases_written < c->max_cases) {
        int tests = 0;
        s.reduced = dp_reduce(&c->o, t, text, lib, &px, &tests);
        c->reduce_tests += tests;
        write_case(c, &s, t, ptx);
        if (!c->quiet) fprintf(stderr, "  reduced in %d ptxas runs:\n%s", tests, s.reduced);
    }
    pg_vec_push(c->sigs, s);
}

/* Check programs on every target. */
static void check_all(campaign *c, long batch, dp_prog *progs, int n, bool *accepted_any) {
    dp_prog **ptrs = malloc(sizeof(dp_prog *) * (size_t)n);
    dp_verdict *px = calloc((size_t)n, sizeof(dp_verdict));
    for (int i = 0; i < n; i++) ptrs[i] = &progs[i];
    for (int ti = 0; ti < c->ntargets; ti++) {
        const dp_target *t = c->targets[ti];
        int ptx = version_for(c, batch, ti);
        dp_ptxas_batch(&c->o, t, ptx, ptrs, n, px);
        for (int i = 0; i < n; i++) {
            char *text = module_text(t, ptx, &progs[i]);
            dp_verdict lib;
            dp_libptx_check(text, strlen(text), &lib);
            free(text);
            if (accepted_any && px[i].ok) accepted_any[i] = true;
            judge(c, &progs[i], ti, ptx, &lib, px[i]);
        }
    }
    free(ptrs);
    free(px);
}

static void progress(campaign *c, long done) {
    if (c->quiet) return;
    fprintf(stderr, "%ld programs, %ld checks: %ld both ok, %ld both reject, %ld false accept, %ld false reject, %ld documented, "
                    "%ld timeouts; %ld ptxas runs, %.0f s\n",
            done, c->all.checks, c->all.both_ok, c->all.both_bad, c->all.false_accept, c->all.false_reject, c->all.documented,
            c->all.timeouts, c->o.runs, now() - c->t0);
}

static json_t *counts_json(const counts *k) {
    return json_pack("{sI sI sI sI sI sI sI sI}", "programs", (json_int_t)k->programs, "checks", (json_int_t)k->checks,
                     "both_accept", (json_int_t)k->both_ok, "both_reject", (json_int_t)k->both_bad, "false_accept",
                     (json_int_t)k->false_accept, "false_reject", (json_int_t)k->false_reject, "documented",
                     (json_int_t)k->documented, "ptxas_timeouts", (json_int_t)k->timeouts);
}

static int write_json(campaign *c) {
    json_t *j = json_object();
    json_object_set_new(j, "seed", json_integer((json_int_t)c->seed));
    json_object_set_new(j, "first_program", json_integer(c->first));
    json_object_set_new(j, "programs", json_integer(c->all.programs));
    json_t *ts = json_array();
    for (int i = 0; i < c->ntargets; i++) {
        json_t *o = counts_json(&c->tgt[i]);
        json_object_set_new(o, "target", json_string(c->targets[i]->name));
        json_object_set_new(o, "ptxas_arch", json_string(c->targets[i]->arch));
        json_array_append_new(ts, o);
    }
    json_object_set_new(j, "targets", ts);
    json_t *cats = json_object();
    for (int i = 0; i < DP__NCAT; i++)
        if (c->cat[i].programs || c->cat[i].checks) json_object_set_new(cats, dp_cat_names[i], counts_json(&c->cat[i]));
    json_object_set_new(j, "by_category", cats);
    json_object_set_new(j, "total", counts_json(&c->all));
    json_t *doc = json_object();
    for (int i = 0; i < c->documented_ids.n; i++) json_object_set_new(doc, c->documented_ids.v[i], json_integer(c->doc_count[i]));
    json_object_set_new(j, "documented_by_entry", doc);
    json_t *sg = json_array();
    for (int i = 0; i < c->sigs.n; i++) {
        signature *s = &c->sigs.v[i];
        json_t *o = json_pack("{ss ss ss ss ss sI ss ss}", "direction", s->dir == 1 ? "false-accept" : "false-reject", "category",
                              dp_cat_names[s->cat], "what", s->what, "target", s->target, "key", s->key, "count",
                              (json_int_t)s->count, "libptx", s->lib_msg, "ptxas", s->dir == 1 ? s->px_msg : "ok");
        if (s->case_file[0]) json_object_set_new(o, "case", json_string(s->case_file));
        if (s->example) json_object_set_new(o, "example", json_string(s->reduced ? s->reduced : s->example));
        json_array_append_new(sg, o);
    }
    json_object_set_new(j, "disagreements", sg);
    int nforms = isa_form_count(), covered = 0;
    for (int i = 0; i < nforms; i++) covered += c->form_ok[i] > 0;
    json_object_set_new(j, "forms", json_pack("{si si}", "table", nforms, "with_an_instance_ptxas_accepts", covered));
    json_object_set_new(j, "ptxas", json_pack("{sI sf sI sI}", "runs", (json_int_t)c->o.runs, "seconds", c->o.seconds,
                                              "reduce_runs", (json_int_t)c->reduce_tests, "batch_inconsistencies",
                                              (json_int_t)c->batch_inconsistent));
    json_object_set_new(j, "wall_seconds", json_real(now() - c->t0));
    int rc = 0;
    if (c->json_path) {
        char tmp[600];
        snprintf(tmp, sizeof tmp, "%s.tmp", c->json_path);
        if (json_dump_file(j, tmp, JSON_INDENT(2) | JSON_SORT_KEYS) || rename(tmp, c->json_path)) {
            fprintf(stderr, "diff_ptxas: cannot write %s\n", c->json_path);
            rc = 2;
        }
    }
    json_decref(j);
    return rc;
}

static int run_campaign(campaign *c) {
    c->t0 = now();
    c->form_ok = calloc((size_t)isa_form_count(), sizeof(long));
    for (long b0 = c->first; b0 < c->first + c->n; b0 += c->batch) {
        long batch = (b0 - c->first) / c->batch;
        long nb = c->first + c->n - b0 < c->batch ? c->first + c->n - b0 : c->batch;
        int nfresh = (int)(nb - nb * c->token_pct / 100);
        int nmut = (int)nb - nfresh;
        dp_prog *fresh = calloc((size_t)nfresh, sizeof(dp_prog));
        bool *acc = calloc((size_t)nfresh, sizeof(bool));
        for (int i = 0; i < nfresh; i++) {
            dp_gen_program(c->seed, (uint64_t)(b0 + i), &fresh[i]);
            c->cat[fresh[i].cat].programs++;
            c->all.programs++;
        }
        check_all(c, batch, fresh, nfresh, acc);
        /* coverage of the table: a form program ptxas accepted somewhere */
        for (int i = 0; i < nfresh; i++) {
            if (!acc[i] || fresh[i].cat != DP_FORM) continue;
            c->form_ok[dp_gen_form_of((uint64_t)(b0 + i))]++;
        }
        /* one-token mutants of accepted programs */
        int npar = 0;
        for (int i = 0; i < nfresh; i++) npar += acc[i];
        if (nmut && npar) {
            dp_prog *mut = calloc((size_t)nmut, sizeof(dp_prog));
            dp_rng r = dp_rng_of(c->seed ^ 0xABCDull, (uint64_t)batch);
            int made = 0;
            for (int k = 0; k < nmut; k++) {
                int pick = dp_below(&r, npar), i = 0;
                for (;; i++)
                    if (acc[i] && pick-- == 0) break;
                char name[24];
                snprintf(name, sizeof name, "k%ld", b0 + nfresh + k);
                if (dp_gen_token_mutant(c->seed, (uint64_t)(b0 + nfresh + k), &fresh[i], name, &mut[made])) {
                    c->cat[DP_TOKEN].programs++;
                    c->all.programs++;
                    made++;
                }
            }
            check_all(c, batch, mut, made, NULL);
            for (int k = 0; k < made; k++) dp_prog_free(&mut[k]);
            free(mut);
        }
        for (int i = 0; i < nfresh; i++) dp_prog_free(&fresh[i]);
        free(fresh);
        free(acc);
        progress(c, b0 + nb - c->first);
        if (c->json_path && batch % 20 == 19) write_json(c);
    }
    int rc = write_json(c);
    long bad = c->all.false_accept + c->all.false_reject;
    long good = c->all.both_ok + c->all.both_bad + c->all.documented;
    printf("diff_ptxas: %ld programs, %ld checks on %d targets: %ld agree, %ld documented differences, %ld disagreements "
           "(%ld false accepts, %ld false rejects, %d kinds), %ld ptxas timeouts\n",
           c->all.programs, c->all.checks, c->ntargets, c->all.both_ok + c->all.both_bad, c->all.documented, bad,
           c->all.false_accept, c->all.false_reject, c->sigs.n, c->all.timeouts);
    for (int i = 0; i < c->sigs.n; i++)
        printf("  %-12s %6ld  %s [%s, %s]%s%s\n", c->sigs.v[i].dir == 1 ? "false-accept" : "false-reject", c->sigs.v[i].count,
               c->sigs.v[i].key + (c->sigs.v[i].dir == 1 ? 13 : 13), dp_cat_names[c->sigs.v[i].cat], c->sigs.v[i].what,
               c->sigs.v[i].case_file[0] ? " -> " : "", c->sigs.v[i].case_file);
    printf("%ld passed, %ld failed\n", good, bad);
    free(c->form_ok);
    for (int i = 0; i < c->sigs.n; i++) { free(c->sigs.v[i].example); free(c->sigs.v[i].reduced); }
    pg_vec_free(c->sigs);
    for (int i = 0; i < c->documented_ids.n; i++) free(c->documented_ids.v[i]);
    pg_vec_free(c->documented_ids);
    return rc ? rc : bad ? 1 : 0;
}

/* ---- regression cases: tests/ptx/valid (both accept) and tests/ptx/invalid (both reject) ---- */
static const dp_target *target_of_text(const char *text, dp_target *tmp) {
    const char *t = strstr(text, ".target");
    char name[32] = "sm_80";
    if (t) {
        t += 7;
        while (*t == ' ' || *t == '\t') t++;
        size_t k = 0;
        while (t[k] && t[k] != ',' && t[k] != '\n' && t[k] != ' ' && k + 1 < sizeof name) { name[k] = t[k]; k++; }
        name[k] = 0;
    }
    const dp_target *f = dp_target_find(name);
    if (f) return f;
    static char keep[32];
    snprintf(keep, sizeof keep, "%s", name);
    tmp->name = keep;
    tmp->arch = keep;
    return tmp;
}

static int run_regress(int nfiles, char **files) {
    dp_oracle o;
    bool have = dp_oracle_open(&o);
    if (!have) printf("regression cases: ptxas not found; libptx side only\n");
    int pass = 0, fail = 0;
    for (int i = 0; i < nfiles; i++) {
        char *s;
        size_t n;
        pg_diag_sink d = {0};
        if (pg_read_file(files[i], PTX_MAX_FILE_BYTES, &s, &n, &d) != PG_OK) {
            printf("FAIL %s: cannot read\n", files[i]);
            fail++;
            continue;
        }
        bool want = strstr(files[i], "/invalid/") == NULL;
        dp_verdict lib, px;
        dp_libptx_check(s, n, &lib);
        bool ok = lib.ok == want;
        if (!ok) printf("FAIL %s: libptx %s%s%s (expected %s)\n", files[i], lib.ok ? "accepts" : "rejects: ", lib.code, lib.ok ? "" : lib.msg,
                        want ? "accept" : "reject");
        if (have) {
            dp_target tmp;
            dp_ptxas_check(&o, target_of_text(s, &tmp), s, n, &px);
            if (px.ok != want) {
                printf("FAIL %s: ptxas %s%s (the case expects %s: ptxas changed, or the case is wrong)\n", files[i],
                       px.ok ? "accepts" : "rejects: ", px.ok ? "" : px.msg, want ? "accept" : "reject");
                ok = false;
            }
        }
        ok ? pass++ : fail++;
        free(s);
    }
    if (have) dp_oracle_close(&o);
    printf("regression cases: %d passed, %d failed\n", pass, fail);
    return fail ? 1 : 0;
}

int dp_run_walks(int argc, char **argv);

/* --probe TARGET PTX: each line of stdin is the body of one kernel (instructions
 * over registers of every type: %p, %xh/%xr/%xd (b16/32/64), %uh/%ur/%ud,
 * %sh/%sr/%sd, %ub/%sb/%xb (8-bit), %hh (f16), %hx (f16x2), %f, %fd, %xq (b128
 * from PTX 8.3), variables sh, mbar (.shared), lo (.local), params pa, pn, pf,
 * pb, a label $L0, and the preamble); prints both verdicts per line, '!!' where
 * they differ.  A tool for writing table rows. */
static int run_probe(const char *tname, int ptx) {
    const dp_target *t = dp_target_find(tname);
    if (!t) { fprintf(stderr, "diff_ptxas --probe: unknown target %s\n", tname); return 2; }
    dp_oracle o;
    if (!dp_oracle_open(&o)) { printf("SKIPPED: ptxas not found\n"); return 0; }
    PG_VEC(dp_prog) progs = {0};
    char line[4096];
    const char *regs = "\t.reg .pred %p<8>;\n\t.reg .b16 %xh<8>;\n\t.reg .b32 %xr<8>;\n\t.reg .b64 %xd<8>;\n\t.reg .u16 %uh<8>;\n"
                       "\t.reg .u32 %ur<8>;\n\t.reg .u64 %ud<8>;\n\t.reg .s16 %sh<8>;\n\t.reg .s32 %sr<8>;\n\t.reg .s64 %sd<8>;\n"
                       "\t.reg .u8 %ub<8>;\n\t.reg .s8 %sb<8>;\n\t.reg .b8 %xb<8>;\n\t.reg .f16 %hh<8>;\n\t.reg .f16x2 %hx<8>;\n"
                       "\t.reg .f32 %f<8>;\n\t.reg .f64 %fd<8>;\n\t.shared .align 16 .b8 sh[256];\n\t.shared .align 8 .b64 mbar;\n"
                       "\t.local .align 16 .b8 lo[64];\n";
    while (fgets(line, sizeof line, stdin)) {
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == ' ')) line[--n] = 0;
        if (!n || line[0] == '#') continue;
        dp_prog p;
        memset(&p, 0, sizeof p);
        snprintf(p.name, sizeof p.name, "k%d", progs.n);
        pg_buf b = {0};
        pg_buf_printf(&b, ".visible .entry %s(\n\t.param .u64 pa,\n\t.param .u32 pn,\n\t.param .f32 pf,\n\t.param .align 16 .b8 pb[16]\n)\n{\n%s%s",
                      p.name, regs, ptx >= 83 ? "\t.reg .b128 %xq<8>;\n" : "");
        pg_buf_printf(&b, "\t%s\n$L0:\n\tret;\n}\n", line);
        p.text = b.data;
        snprintf(p.what, sizeof p.what, "%.60s", line);
        pg_vec_push(progs, p);
    }
    dp_prog **ptrs = malloc(sizeof(dp_prog *) * (size_t)(progs.n ? progs.n : 1));
    dp_verdict *px = calloc((size_t)(progs.n ? progs.n : 1), sizeof(dp_verdict));
    for (int i = 0; i < progs.n; i++) ptrs[i] = &progs.v[i];
    dp_ptxas_batch(&o, t, ptx, ptrs, progs.n, px);
    int diff = 0;
    for (int i = 0; i < progs.n; i++) {
        char *text = module_text(t, ptx, &progs.v[i]);
        dp_verdict lib;
        dp_libptx_check(text, strlen(text), &lib);
        free(text);
        const char *body = strstr(progs.v[i].text, "\n\t") ? strrchr(progs.v[i].text, '$') : NULL;
        (void)body;
        bool d = lib.ok != px[i].ok;
        diff += d;
        printf("%s ptxas:%s libptx:%s  %s", d ? "!!" : "  ", px[i].ok ? "ok " : "BAD", lib.ok ? "ok " : "BAD", progs.v[i].what);
        if (!px[i].ok) printf("   [%s]", px[i].msg);
        if (!lib.ok) printf("   <%s %s>", lib.code, lib.msg);
        printf("\n");
        free(progs.v[i].text);
    }
    fprintf(stderr, "%d disagreements of %d\n", diff, progs.n);
    free(ptrs);
    free(px);
    pg_vec_free(progs);
    dp_oracle_close(&o);
    return 0;
}

static void first_err(void *user, const pg_diag *d) {
    char *buf = user;
    if (!buf[0]) pg_diag_format(d, buf, 300);
}

static int usage(void) {
    fprintf(stderr, "usage: diff_ptxas [--seed S] [--programs N] [--first I] [--targets sm_70,sm_80,sm_90] [--batch B]\n"
                    "                  [--token-pct P] [--known FILE] [--cases DIR] [--max-cases K] [--no-reduce] [--json OUT] [--quiet]\n"
                    "       diff_ptxas --regress FILE...\n"
                    "       diff_ptxas --walks N --tokenizer tokenizer.json [--seed S] [--targets ...] [--json OUT]\n");
    return 2;
}

int main(int argc, char **argv) {
    char ierr[300] = "";
    pg_diag_sink isink = {first_err, ierr, 0, 0, 0};
    if (isa_init(&isink) != PG_OK) { fprintf(stderr, "diff_ptxas: the ISA table does not compile: %s\n", ierr); return 2; }
    if (argc > 1 && !strcmp(argv[1], "--regress")) return run_regress(argc - 2, argv + 2);
    if (argc > 3 && !strcmp(argv[1], "--probe")) return run_probe(argv[2], atoi(argv[3]));
    if (argc > 3 && !strcmp(argv[1], "--dump")) {   /* --dump SEED FIRST [N]: print programs */
        uint64_t seed = strtoull(argv[2], NULL, 10);
        long first = atol(argv[3]), n = argc > 4 ? atol(argv[4]) : 1;
        for (long i = first; i < first + n; i++) {
            dp_prog p;
            dp_gen_program(seed, (uint64_t)i, &p);
            printf("// program %ld: %s %s\n%s", i, dp_cat_names[p.cat], p.what, p.text);
            dp_prog_free(&p);
        }
        return 0;
    }
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--walks")) return dp_run_walks(argc, argv);
    campaign c;
    memset(&c, 0, sizeof c);
    c.seed = 1;
    c.n = 1000;
    c.batch = 250;
    c.token_pct = 15;
    c.max_cases = 200;
    c.reduce = true;
    const char *targets = "sm_70,sm_80,sm_90", *known = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--seed") && v) { c.seed = strtoull(v, NULL, 10); i++; }
        else if (!strcmp(a, "--programs") && v) { c.n = atol(v); i++; }
        else if (!strcmp(a, "--first") && v) { c.first = atol(v); i++; }
        else if (!strcmp(a, "--targets") && v) { targets = v; i++; }
        else if (!strcmp(a, "--batch") && v) { c.batch = atoi(v); i++; }
        else if (!strcmp(a, "--token-pct") && v) { c.token_pct = atoi(v); i++; }
        else if (!strcmp(a, "--known") && v) { known = v; i++; }
        else if (!strcmp(a, "--cases") && v) { c.cases_dir = v; i++; }
        else if (!strcmp(a, "--max-cases") && v) { c.max_cases = atoi(v); i++; }
        else if (!strcmp(a, "--json") && v) { c.json_path = v; i++; }
        else if (!strcmp(a, "--no-reduce")) c.reduce = false;
        else if (!strcmp(a, "--only") && v) {
            if (!dp_gen_set_only(v)) { fprintf(stderr, "diff_ptxas: --only: '%s' names no opcode or category\n", v); return 2; }
            i++;
        }
        else if (!strcmp(a, "--quiet")) c.quiet = true;
        else return usage();
    }
    if (c.n < 0 || c.first < 0 || c.batch < 1 || c.token_pct < 0 || c.token_pct > 90) return usage();
    char tl[256];
    snprintf(tl, sizeof tl, "%s", targets);
    for (char *p = strtok(tl, ","); p; p = strtok(NULL, ",")) {
        const dp_target *t = dp_target_find(p);
        if (!t || c.ntargets >= 8) { fprintf(stderr, "diff_ptxas: unknown target '%s'\n", p); return 2; }
        c.targets[c.ntargets++] = t;
    }
    char err[300] = "";
    c.known = dp_known_load(known, err, sizeof err);
    if (!c.known) { fprintf(stderr, "diff_ptxas: %s\n", err); return 2; }
    if (!dp_oracle_open(&c.o)) {
        printf("SKIPPED: ptxas not found (set PTXAS or CUDA_HOME): no differential run\n0 passed, 0 failed\n");
        dp_known_free(c.known);
        return 0;
    }
    /* the preamble must be valid everywhere, or every verdict is noise */
    for (int ti = 0; ti < c.ntargets; ti++)
        for (const int *v = c.targets[ti]->versions; *v; v++) {
            dp_prog empty = {0};
            empty.text = (char *)"";
            char *text = module_text(c.targets[ti], *v, &empty);
            dp_verdict px, lib;
            dp_ptxas_check(&c.o, c.targets[ti], text, strlen(text), &px);
            dp_libptx_check(text, strlen(text), &lib);
            if (!px.ok || !lib.ok) {
                fprintf(stderr, "diff_ptxas: the preamble is rejected on %s PTX %d.%d: ptxas: %s; libptx: %s %s\n",
                        c.targets[ti]->name, *v / 10, *v % 10, px.ok ? "ok" : px.msg, lib.code, lib.msg);
                free(text);
                return 2;
            }
            free(text);
        }
    int rc = run_campaign(&c);
    dp_oracle_close(&c.o);
    dp_known_free(c.known);
    return rc;
}
