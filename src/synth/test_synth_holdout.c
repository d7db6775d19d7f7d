/* test_synth_holdout.c — no family generates a task of the held-out suites (bench/suite,
 * bench/suite-prose), without a GPU or nvcc: the family generators are called directly (their
 * task.json only, no kernel compiled), seeds 1..N per family (N = 2000, PTXGEN_HOLDOUT_SEEDS
 * overrides).
 *
 * `synth --exclude` matches samples by identity (hand:<name>, expr:<key>), which a family sample
 * never shares with a suite task, so each family holds out its suite twins itself (reduce drew
 * reduce_max_f32_b512 until 2026-12-07).  A family sample is "the same task" as a suite task when
 *   1. the signature is the same: as many parameters, each with the same pointer-ness, dtype and
 *      (pointers) role, in the same order (names are not compared);
 *   2. at every size of the suite task the family's own expressions, evaluated with the suite's
 *      size variables, give the same launch (block, grid) and the same buffer lengths (an
 *      expression over a variable the suite lacks: not the same);
 *   3. the two C references, run on the suite's inputs (its buffers, its outputs' poison and its
 *      scalar values copied into the family's instance) at the suite's smallest sizes (up to 3,
 *      each buffer under 2^21 elements) and first two input distributions, agree on every output
 *      within the suite's tolerance.
 * Reference names are not compared (a family's reference is family-wide, a suite task's its own),
 * nor descriptions or kernel names: what counts is the computation, the signature and the launch.
 * A task with the same computation but another launch (grid-stride, another block) is a
 * different task. */
#include "common/test.h"
#include "ptxgen/expr.h"
#include "ptxgen/synth_family.h"
#include "ptxgen/task.h"
#include "synth/family_internal.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_SUITE = 256, MAX_SIZES = 3, BIG = 1 << 21 };

static bool gen(const char *fname, uint64_t seed, synth_family_sample *s) {
    memset(s, 0, sizeof *s);
    return synth_fam_draw(fname, seed, s) == PG_OK && s->task_json.len;
}

typedef struct {
    task_spec *t;
    int sizes[MAX_SIZES], nsizes;   /* the small sizes compared */
    task_inst in[MAX_SIZES][2];     /* inputs per (size, distribution) */
    task_inst ref[MAX_SIZES][2];    /* the suite reference's outputs */
    int ndist;
    int hits;                       /* family samples found to be this task */
} suite_task;

/* The longest buffer of t at size env (-1 when a length does not evaluate). */
static int64_t max_len(const task_spec *t, const expr_env *env) {
    int64_t m = 0;
    for (int p = 0; p < t->nparams; p++) {
        int64_t v;
        if (!t->params[p].is_pointer) continue;
        if (!expr_size_eval(t->params[p].len, env, &v, NULL, 0)) return -1;
        if (v > m) m = v;
    }
    return m;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int load_suite(const char *dir, suite_task *out, int max) {
    DIR *d = opendir(dir);
    CHECK(d != NULL, "%s opens (run from the repository root)", dir);
    if (!d) return 0;
    char *names[MAX_SUITE];
    int nn = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nn < MAX_SUITE)
        if (e->d_name[0] != '.') names[nn++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)nn, sizeof *names, cmp_str);
    int n = 0;
    for (int i = 0; i < nn; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s/task.json", dir, names[i]);
        free(names[i]);
        if (n >= max) continue;
        FILE *f = fopen(path, "rb");
        if (!f) continue;   /* README.md and the like */
        fclose(f);
        suite_task *st = &out[n];
        memset(st, 0, sizeof *st);
        pg_diag_sink q = {0};
        CHECK(task_load(path, &st->t, &q) == PG_OK, "%s loads", path);
        if (!st->t) continue;
        CHECK(!strcmp(st->t->ref.kind, "c") || !strcmp(st->t->ref.kind, "cu"), "%s: reference kind %s", path, st->t->ref.kind);
        if (strcmp(st->t->ref.kind, "c")) {   /* a CUDA reference needs a GPU: signature only, reported */
            fprintf(stderr, "note: %s has a CUDA reference: not compared\n", path);
            task_free(st->t);
            continue;
        }
        st->ndist = st->t->ndists < 2 ? st->t->ndists : 2;
        /* the smallest sizes (by their largest buffer), up to MAX_SIZES, each under BIG elements */
        int64_t big[64];
        int ns = st->t->nsizes < 64 ? st->t->nsizes : 64;
        for (int si = 0; si < ns; si++) big[si] = max_len(st->t, &st->t->sizes[si].env);
        for (int pick = 0; pick < MAX_SIZES; pick++) {
            int si = -1;
            for (int j = 0; j < ns; j++)
                if (big[j] >= 0 && big[j] <= BIG && (si < 0 || big[j] < big[si])) si = j;
            if (si < 0) break;
            big[si] = -1;
            int k = st->nsizes;
            bool ok = true;
            for (int di = 0; di < st->ndist && ok; di++) {
                ok = task_inst_make(st->t, si, di, 42 + (uint64_t)di, &st->in[k][di], &q) == PG_OK &&
                     task_reference_run(&st->in[k][di], &st->ref[k][di], &q) == PG_OK;
                CHECK(ok, "%s: size %d distribution %d: suite reference runs", path, si, di);
            }
            if (!ok) {
                for (int di = 0; di < st->ndist; di++) { task_inst_free(&st->in[k][di]); task_inst_free(&st->ref[k][di]); }
                continue;
            }
            st->sizes[st->nsizes++] = si;
        }
        CHECK(st->nsizes > 0, "%s: a size with buffers under %d elements", path, BIG);
        n++;
    }
    return n;
}

static void free_suite(suite_task *st) {
    for (int k = 0; k < st->nsizes; k++)
        for (int di = 0; di < st->ndist; di++) {
            task_inst_free(&st->in[k][di]);
            task_inst_free(&st->ref[k][di]);
        }
    task_free(st->t);
}

static bool same_signature(const task_spec *a, const task_spec *b) {
    if (a->nparams != b->nparams) return false;
    for (int p = 0; p < a->nparams; p++) {
        const task_param *x = &a->params[p], *y = &b->params[p];
        if (x->is_pointer != y->is_pointer || x->dtype != y->dtype) return false;
        if (x->is_pointer && x->role != y->role) return false;
    }
    return true;
}

/* Does family task f, at the suite's size si, launch the same and have the same buffer lengths?
 * (Both tasks' expressions over the suite's size variables; no buffer is made.) */
static bool same_shape_at(const task_spec *f, const task_spec *s, int si) {
    const expr_env *env = &s->sizes[si].env;
    for (int d = 0; d < 3; d++) {
        int64_t b, g, sb, sg;
        if (!expr_size_eval(f->block[d], env, &b, NULL, 0) || !expr_size_eval(f->grid[d], env, &g, NULL, 0)) return false;
        if (!expr_size_eval(s->block[d], env, &sb, NULL, 0) || !expr_size_eval(s->grid[d], env, &sg, NULL, 0)) return false;
        if (b != sb || g != sg) return false;
    }
    for (int p = 0; p < s->nparams; p++) {
        int64_t v, sv;
        if (!s->params[p].is_pointer) continue;
        if (!expr_size_eval(f->params[p].len, env, &v, NULL, 0) || !expr_size_eval(s->params[p].len, env, &sv, NULL, 0) || v != sv)
            return false;
    }
    return true;
}

/* The same launch and lengths at every size of the suite task (the timed one too). */
static bool same_shape(const task_spec *f, const suite_task *st) {
    if (!same_signature(f, st->t) || st->nsizes == 0) return false;
    for (int si = 0; si < st->t->nsizes; si++)
        if (!same_shape_at(f, st->t, si)) return false;
    return true;
}

/* Do the references of f (loaded from a file: a family reference re-reads its family_params
 * there) and of the suite task agree on the suite's inputs at size k?  A reference that does not
 * run is a failed check (the test could not decide), not "another task". */
static bool same_outputs_at(task_spec *f, const suite_task *st, int k) {
    const task_spec *s = st->t;
    task_size *fs = f->sizes;   /* the family's expressions over the suite's size variables */
    int fn = f->nsizes;
    f->sizes = s->sizes;
    f->nsizes = s->nsizes;
    task_inst fi;
    memset(&fi, 0, sizeof fi);
    pg_diag_sink q = {0};
    pg_status ps = task_inst_make(f, st->sizes[k], 0, 1, &fi, &q);
    f->sizes = fs;
    f->nsizes = fn;
    CHECK(ps == PG_OK, "%s: an instance at %s's size %d", f->path, s->name, st->sizes[k]);
    if (ps != PG_OK) return false;
    bool same = true;
    for (int di = 0; di < st->ndist && same; di++) {
        /* the suite's inputs (buffers, the outputs' poison, scalar values) in the family's instance */
        const task_inst *sin = &st->in[k][di];
        for (int p = 0; p < s->nparams; p++) {
            if (s->params[p].is_pointer) memcpy(fi.args[p].data, sin->args[p].data, sin->args[p].bytes);
            else fi.args[p].scalar = sin->args[p].scalar;
        }
        task_inst fr;
        memset(&fr, 0, sizeof fr);
        ps = task_reference_run(&fi, &fr, &q);
        CHECK(ps == PG_OK, "%s: its reference %s runs at %s's size %d", f->path, f->ref.name, s->name, st->sizes[k]);
        if (ps != PG_OK) { task_inst_free(&fr); same = false; break; }
        for (int p = 0; p < s->nparams && same; p++) {
            if (!s->params[p].is_pointer || s->params[p].role == TASK_ROLE_IN) continue;
            const task_arg *want = &st->ref[k][di].args[p];
            if (fr.args[p].bytes == want->bytes && !memcmp(fr.args[p].data, want->data, want->bytes)) continue;   /* poison left alike */
            task_cmp c = task_compare(s, p, &fr.args[p], want);
            if (!c.ok) same = false;
        }
        task_inst_free(&fr);
    }
    task_inst_free(&fi);
    return same;
}

/* f must have been loaded from a file (see same_outputs_at). */
static bool same_task(task_spec *f, const suite_task *st) {
    if (!same_shape(f, st)) return false;
    for (int k = st->nsizes - 1; k >= 0; k--)   /* the largest first: the most telling */
        if (!same_outputs_at(f, st, k)) return false;
    return true;
}

/* A task loaded from text through a file in dir (removed again). */
static task_spec *load_via_file(const char *dir, const char *text) {
    char path[600];
    snprintf(path, sizeof path, "%s/task.json", dir);
    FILE *f = fopen(path, "wb");
    if (!f) return NULL;
    bool ok = fwrite(text, 1, strlen(text), f) == strlen(text);
    ok = fclose(f) == 0 && ok;
    task_spec *t = NULL;
    pg_diag_sink q = {0};
    if (ok && task_load(path, &t, &q) != PG_OK) t = NULL;
    return t;
}

/* The criterion on hand-made cases: a suite task is itself, and changing its launch, its
 * operator or a buffer's role makes another task. */
/* The reduce family's draw of reduce_max_f32_b512 before 2026-12-07 (seed 40: f32 max, 512 threads
 * x 8 elements, one 4096-element chunk per block, warp shuffles, partials). */
static const char PREFIX_REDUCE[] =
    "{\"name\": \"reduce_max_f32_shfl_b512_e8\", \"family\": \"reduce\", \"kernel\": \"reduce_max_f32_shfl_b512_e8\","
    " \"descriptions\": {\"terse\": \"per-block max\"},"
    " \"family_params\": {\"op\": \"max\", \"dtype\": \"f32\", \"block\": 512, \"ept\": 8, \"tile\": 4096, \"gridstride\": false,"
    " \"grid_cap\": 0, \"block_reduce\": \"shfl\", \"atomic\": false},"
    " \"params\": [{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\"},"
    " {\"name\": \"out\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"cdiv(n,4096)\"}, {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}],"
    " \"sizes\": [{\"n\": 1000003}, {\"n\": 777}],"
    " \"launch\": {\"block\": [\"512\"], \"grid\": [\"cdiv(n,4096)\"], \"smem\": \"0\"},"
    " \"distributions\": [\"uniform(-1,1)\", \"uniform(0,1)\"], \"tolerance\": {\"f32\": 1e-05},"
    " \"reference\": {\"kind\": \"c\", \"name\": \"fam_reduce\"}}";

static void check_criterion(suite_task *suite, int ns, const char *dir) {
    suite_task *rm = NULL;
    for (int i = 0; i < ns; i++)
        if (!strcmp(suite[i].t->name, "reduce_max_f32_b512")) rm = &suite[i];
    CHECK(rm != NULL, "bench/suite has reduce_max_f32_b512");
    if (!rm) return;
    CHECK(same_task(rm->t, rm), "a suite task is the same task as itself");
    task_spec *pre = load_via_file(dir, PREFIX_REDUCE);
    CHECK(pre != NULL, "the pre-fix reduce draw loads");
    if (pre) CHECK(same_task(pre, rm), "the reduce family's pre-fix draw is reduce_max_f32_b512");
    task_free(pre);
    char *sum = test_replace(PREFIX_REDUCE, "\"op\": \"max\"", "\"op\": \"min\"");
    task_spec *other = sum ? load_via_file(dir, sum) : NULL;
    CHECK(other != NULL, "the same draw with op min loads");
    if (other) CHECK(!same_task(other, rm), "the reduce family's f32 min with the same launch is another task");
    task_free(other);
    free(sum);
    FILE *f = fopen("bench/suite/reduce_max_f32_b512/task.json", "rb");
    char buf[16384];
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = 0;
    struct { const char *from, *to, *why; } v[] = {
        {"\"block\": [\"512\"]", "\"block\": [\"256\"]", "another block"},
        {"\"suite_reduce_max_b512\"", "\"suite_maxabs\"", "another operator (max |x|, into out[0])"},
        {"\"grid\": [\"cdiv(n,4096)\"]", "\"grid\": [\"cdiv(n,4096)+1\"]", "another grid"},
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        char *txt = test_replace(buf, v[i].from, v[i].to);
        CHECK(txt != NULL, "reduce_max_f32_b512's task.json has %s", v[i].from);
        if (!txt) continue;
        task_spec *t = NULL;
        pg_diag_sink q = {0};
        if (task_load_text(txt, strlen(txt), "bench/suite/reduce_max_f32_b512/task.json", &t, &q) == PG_OK) {
            bool is_ref = task_ref_lookup(t->ref.name) != NULL;
            CHECK(!is_ref || !same_task(t, rm), "%s is another task", v[i].why);
            task_free(t);
        } else {
            CHECK(false, "variant '%s' loads", v[i].why);
        }
        free(txt);
    }
}

int main(void) {
    static suite_task suite[2 * MAX_SUITE];
    int ns = load_suite("bench/suite", suite, MAX_SUITE);
    ns += load_suite("bench/suite-prose", suite + ns, MAX_SUITE);
    CHECK(ns >= 80, "%d suite tasks with a C reference", ns);

    int nseeds = 2000;
    const char *e = getenv("PTXGEN_HOLDOUT_SEEDS");
    if (e && atoi(e) > 0) nseeds = atoi(e);
    char dir[] = "/tmp/ptxgen-holdout-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "a temp folder");
    check_criterion(suite, ns, dir);
    long compared = 0, shaped = 0, leaks = 0;
    for (int fam = 0; fam < synth_family_count(); fam++) {
        const char *fname = synth_family_name(fam);
        int bad_gen = 0, fam_leaks = 0;
        for (uint64_t seed = 1; seed <= (uint64_t)nseeds; seed++) {
            synth_family_sample s;
            if (!gen(fname, seed, &s)) { bad_gen++; synth_family_sample_free(&s); continue; }
            task_spec *t = NULL;
            pg_diag_sink q = {0};
            if (task_load_text(s.task_json.data, s.task_json.len, "synth.json", &t, &q) != PG_OK) {
                bad_gen++;
                synth_family_sample_free(&s);
                continue;
            }
            task_spec *tf = NULL;   /* t through a file, made when a shape agrees */
            for (int i = 0; i < ns; i++) {
                if (!same_signature(t, suite[i].t)) continue;
                compared++;
                if (!same_shape(t, &suite[i])) continue;
                shaped++;
                if (!tf) tf = load_via_file(dir, s.task_json.data);
                CHECK(tf != NULL, "%s seed %llu: the task loads from %s", fname, (unsigned long long)seed, dir);
                if (tf && same_task(tf, &suite[i])) {
                    suite[i].hits++;
                    fam_leaks++;
                    leaks++;
                    if (suite[i].hits <= 3)
                        fprintf(stderr, "LEAK: %s seed %llu (%s, %s) is the suite's %s\n", fname, (unsigned long long)seed, s.name,
                                s.identity, suite[i].t->path);
                }
            }
            task_free(tf);
            task_free(t);
            synth_family_sample_free(&s);
        }
        CHECK(bad_gen == 0, "%s: %d of %d seeds did not generate a loadable task", fname, bad_gen, nseeds);
        CHECK(fam_leaks == 0, "%s generates %d samples of held-out suite tasks (LEAK lines above)", fname, fam_leaks);
    }
    for (int i = 0; i < ns; i++) {
        if (suite[i].hits) fprintf(stderr, "held-out %s: drawn %d times\n", suite[i].t->path, suite[i].hits);
        free_suite(&suite[i]);
    }
    char path[600];
    snprintf(path, sizeof path, "%s/task.json", dir);
    unlink(path);
    rmdir(dir);
    printf("%d families x %d seeds against %d suite tasks: %ld pairs with the same signature, %ld also the same launch and lengths, %ld leaks\n",
           synth_family_count(), nseeds, ns, compared, shaped, leaks);
    printf("%d passed, %d failed\n", t_pass, t_fail);
    return t_fail ? 1 : 0;
}
