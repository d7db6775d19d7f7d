/* test_synth_family.c — the parametric families: for every family and a range
 * of seeds, output is deterministic, the PTX parses and validates (no
 * warnings), ptxas accepts it (when installed), the task.json loads and its C
 * reference runs on the smallest size with finite outputs, identities
 * differ across parameter sets, and kernel names are within PG_NAME_MAX
 * (test_synth_names checks many more seeds without nvcc).
 *
 * SYNTH_FAMILY_DUMP=DIR writes the generated task folders (task.json,
 * kernel.ptx, reference.cu for nvcc families) under DIR;
 * SYNTH_FAMILY_N=K sets the seeds per family (default 12);
 * SYNTH_FAMILY_ONLY=a,b,c checks only the named families. */
#include "ptx/test_util.h"
#include "ptxgen/ptx.h"
#include "ptxgen/synth_family.h"
#include "ptxgen/task.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void diag_print(void *user, const pg_diag *d) {
    (void)user;
    char buf[700];
    pg_diag_format(d, buf, sizeof buf);
    fprintf(stderr, "  %s\n", buf);
}

static bool write_file(const char *path, const char *data) {
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(data, 1, strlen(data), f) == strlen(data);
    return fclose(f) == 0 && ok;
}

static bool have_ptxas;

/* Is fam one of the comma-separated names in list? */
static bool listed(const char *list, const char *fam) {
    size_t n = strlen(fam);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t k = e ? (size_t)(e - p) : strlen(p);
        if (k == n && !strncmp(p, fam, n)) return true;
        p += k + (e ? 1 : 0);
    }
    return false;
}

/* The smallest size of the spec, its reference on distribution 0: outputs finite. */
static bool reference_runs(const char *task_path, const char *want_ref, char *why, size_t whyn) {
    task_spec *t = NULL;
    pg_diag_sink q = {0};
    q.fn = diag_print;
    if (task_load(task_path, &t, &q) != PG_OK) { snprintf(why, whyn, "task_load failed"); return false; }
    if (strcmp(t->ref.name, want_ref)) {   /* the task names its row's reference */
        snprintf(why, whyn, "task names reference '%s', the family row '%s'", t->ref.name, want_ref);
        task_free(t);
        return false;
    }
    int smallest = 0;
    int64_t best = INT64_MAX;
    for (int s = 0; s < t->nsizes; s++) {
        int64_t prod = 1;
        for (int v = 0; v < t->sizes[s].env.n; v++) prod *= t->sizes[s].env.val[v] > 0 ? t->sizes[s].env.val[v] : 1;
        if (prod < best) { best = prod; smallest = s; }
    }
    bool ok = false;
    task_inst in, ref;
    memset(&in, 0, sizeof in);
    memset(&ref, 0, sizeof ref);
    /* a mid-size problem too, so partial tiles and the grid-stride loop are exercised */
    for (int pass = 0; pass < 2; pass++) {
        int si = pass == 0 ? smallest : (t->nsizes > 2 ? t->nsizes - 3 : 0);
        if (task_inst_make(t, si, 0, 7, &in, &q) != PG_OK) { snprintf(why, whyn, "task_inst_make failed"); goto done; }
        if (task_reference_run(&in, &ref, &q) != PG_OK) { snprintf(why, whyn, "reference '%s' failed", t->ref.name); task_inst_free(&in); goto done; }
        for (int p = 0; p < t->nparams; p++) {
            if (!t->params[p].is_pointer || t->params[p].role == TASK_ROLE_IN) continue;
            for (size_t i = 0; i < ref.args[p].count; i++) {
                double v = t->params[p].dtype == TASK_T_F32   ? ((float *)ref.args[p].data)[i]
                           : t->params[p].dtype == TASK_T_F64 ? ((double *)ref.args[p].data)[i]
                           : t->params[p].dtype == TASK_T_F16 ? task_f16_to_f32(((uint16_t *)ref.args[p].data)[i])
                                                              : 0.0;
                if (!isfinite(v)) {
                    snprintf(why, whyn, "output %s[%zu] = %g (size %d)", t->params[p].name, i, v, si);
                    task_inst_free(&in);
                    task_inst_free(&ref);
                    goto done;
                }
            }
        }
        task_inst_free(&in);
        task_inst_free(&ref);
    }
    ok = true;
done:
    task_free(t);
    return ok;
}

int main(void) {
    char pp[1024];
    have_ptxas = ptx_ptxas_find(pp, sizeof pp);
    if (!have_ptxas) printf("SKIPPED: ptxas not found, PTX is only checked by the validator\n");
    const char *dump = getenv("SYNTH_FAMILY_DUMP");
    int nseeds = getenv("SYNTH_FAMILY_N") ? atoi(getenv("SYNTH_FAMILY_N")) : 12;
    if (nseeds < 1 || nseeds > 4096) nseeds = 12;
    if (dump) mkdir(dump, 0755);
    const char *arch = "sm_90";

    CHECK(synth_family_count() >= 4, "families: %d", synth_family_count());
    CHECK(synth_family_find("map") >= 0 && synth_family_find("nope") == -1, "find");
    CHECK(synth_family_name(-1) == NULL && synth_family_name(synth_family_count()) == NULL, "name range");
    {
        synth_family_sample s;
        memset(&s, 0, sizeof s);
        pg_diag_sink q = {0};
        CHECK(synth_family_generate(99, 1, arch, SYNTH_FMT_PLAIN, &s, &q) == PG_ERR_USAGE && q.nerrors == 1, "bad family rejected");
    }
    /* the one table: every family row's reference is in the task registry */
    CHECK(synth_family_reference(-1) == NULL && synth_family_reference(synth_family_count()) == NULL, "reference range");
    for (int f = 0; f < synth_family_count(); f++) {
        const char *r = synth_family_reference(f);
        CHECK(r && task_ref_lookup(r) != NULL, "%s: reference '%s' not registered", synth_family_name(f), r ? r : "(null)");
    }

    {   /* one kernel to literate PTX (the two-stage pipeline's reference drafts) */
        const char *cu = "// twice\nextern \"C\" __global__ void twice(const float* x, float* y, unsigned int n)\n{\n"
                         "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = 2.0f * x[i];\n}\n";
        const char *names[] = {"src", "dst", "count"};
        pg_buf out = {0};
        char why[400] = "";
        CHECK(!synth_cuda_literate_ptx(cu, "twice", names, 3, "sm80", &out, why, sizeof why) && strstr(why, "arch"),
              "literate PTX: a bad arch is refused (%s)", why);
        bool ok = synth_cuda_literate_ptx(cu, "twice", names, 3, arch, &out, why, sizeof why);
        if (!ok && strstr(why, "not found")) printf("SKIPPED: nvcc not found, literate PTX of one kernel\n");
        else {
            CHECK(ok && out.data && strstr(out.data, "// GENERATED_BY: ptxgen synth/family") && strstr(out.data, ".param .u64 src") &&
                      strstr(out.data, "[count]") && !strstr(out.data, "twice_param_") && strstr(out.data, "// if (i < n) y[i] = 2.0f * x[i];"),
                  "literate PTX of one kernel, parameters named, plan comments: %s\n%s", why, out.data ? out.data : "(none)");
            CHECK(!synth_cuda_literate_ptx("extern \"C\" __global__ void twice( {", "twice", NULL, 0, arch, &out, why, sizeof why) &&
                      strstr(why, "nvcc failed") && out.len == 0,
                  "literate PTX: a kernel nvcc rejects: false, why says so (%s)", why);
        }
        pg_buf_free(&out);
    }

    for (int f = 0; f < synth_family_count(); f++) {
        const char *fname = synth_family_name(f);
        if (getenv("SYNTH_FAMILY_ONLY") && !listed(getenv("SYNTH_FAMILY_ONLY"), fname)) continue;
        bool nvcc = synth_family_uses_nvcc(f);
        uint64_t *seeds = calloc((size_t)nseeds, sizeof *seeds);
        for (int i = 0; i < nseeds; i++) seeds[i] = 1000003ull * (uint64_t)i + 17;
        synth_family_sample *ss = calloc((size_t)nseeds, sizeof *ss);
        pg_diag_sink q = {0};
        q.fn = diag_print;
        pg_status st = synth_family_generate_batch(f, seeds, nseeds, arch, SYNTH_FMT_PLAIN, ss, &q);
        if (nvcc && st == PG_ERR_IO) {
            printf("SKIPPED: family %s needs nvcc\n", fname);
            free(seeds);
            free(ss);
            continue;
        }
        CHECK(st == PG_OK, "%s: batch status %d", fname, st);
        int good = 0, distinct = 0;
        for (int i = 0; i < nseeds; i++) {
            synth_family_sample *s = &ss[i];
            CHECK(s->ptx.len > 0 && s->task_json.len > 0, "%s seed %d: empty sample", fname, i);
            if (!s->ptx.len || !s->task_json.len) continue;
            CHECK(!strcmp(s->family, fname), "%s: family field '%s'", fname, s->family);
            CHECK(!strcmp(s->source, nvcc ? "nvcc" : "ptx-template"), "%s: source '%s'", fname, s->source);
            CHECK(strlen(s->name) <= PG_NAME_MAX, "%s seed %d: name %s is over the decoder's PG_NAME_MAX (%d)", fname, i, s->name, PG_NAME_MAX);
            /* determinism (nvcc families: the task and CUDA text; PTX templates: everything) */
            synth_family_sample again;
            memset(&again, 0, sizeof again);
            pg_diag_sink q2 = {0};
            if (!nvcc) {
                CHECK(synth_family_generate(f, seeds[i], arch, SYNTH_FMT_PLAIN, &again, &q2) == PG_OK, "%s: regenerate", fname);
                CHECK(again.ptx.data && !strcmp(again.ptx.data, s->ptx.data), "%s seed %d: PTX not deterministic", fname, i);
                CHECK(again.task_json.data && !strcmp(again.task_json.data, s->task_json.data), "%s seed %d: task not deterministic",
                      fname, i);
                CHECK(!strcmp(again.identity, s->identity), "%s: identity not deterministic", fname);
                synth_family_sample_free(&again);
            }
            /* identities: count distinct among the earlier samples */
            bool seen = false;
            for (int k = 0; k < i; k++)
                if (ss[k].ptx.len && !strcmp(ss[k].identity, s->identity)) seen = true;
            if (!seen) distinct++;
            /* validator: no errors, no warnings */
            ptx_module *m = NULL;
            pg_diag_sink vq = {0};
            vq.fn = diag_print;
            pg_status ps = ptx_parse(s->ptx.data, s->ptx.len, s->name, &m, &vq);
            if (ps == PG_OK) ps = ptx_validate(m, &vq);
            CHECK(ps == PG_OK && vq.nwarnings == 0, "%s seed %d (%s): validator %d errors %d warnings", fname, i, s->name, vq.nerrors,
                  vq.nwarnings);
            int nentries = 0;
            for (int k = 0; m && k < m->nfuncs; k++) nentries += m->funcs[k].is_entry && !strcmp(m->funcs[k].name, s->name);
            CHECK(m && m->nfuncs == 1 && nentries == 1, "%s (%s): module must hold exactly its entry", fname, s->name);
            ptx_module_free(m);
            if (ps != PG_OK) {
                if (i < 2) fprintf(stderr, "%s\n", s->ptx.data);
                continue;
            }
            /* nvcc's <entry>_param_<i> and _ZZ...E<len><var> names became the task's and the
             * CUDA variables' (nvcc_names_to_task_names) */
            if (nvcc) {
                CHECK(!strstr(s->ptx.data, "_param_"), "%s seed %d (%s): an nvcc parameter name is left", fname, i, s->name);
                char zz[160];
                snprintf(zz, sizeof zz, "_ZZ%zu%sE", strlen(s->name), s->name);
                CHECK(!strstr(s->ptx.data, zz), "%s seed %d (%s): a mangled shared-array name is left", fname, i, s->name);
            }
            char log[700] = "";
            if (have_ptxas) {
                bool ok = test_ptxas_text(s->ptx.data, strlen(s->ptx.data), arch, false, log, sizeof log) == 1;
                CHECK(ok, "%s seed %d (%s): ptxas: %s", fname, i, s->name, log);
                if (!ok) continue;
            }
            /* task.json loads and its reference runs */
            char dir[512], path[600];
            if (dump) snprintf(dir, sizeof dir, "%s/%s", dump, s->name);
            else snprintf(dir, sizeof dir, "/tmp/ptxgen-famtest-%d-%s", (int)getpid(), s->name);
            mkdir(dir, 0755);
            snprintf(path, sizeof path, "%s/task.json", dir);
            CHECK(write_file(path, s->task_json.data), "write %s", path);
            char kp[600];
            snprintf(kp, sizeof kp, "%s/kernel.ptx", dir);
            write_file(kp, s->ptx.data);
            char cp[600] = "";
            if (s->cu.len) {
                snprintf(cp, sizeof cp, "%s/reference.cu", dir);
                write_file(cp, s->cu.data);
            }
            char why[300] = "";
            bool rok = reference_runs(path, synth_family_reference(f), why, sizeof why);
            CHECK(rok, "%s seed %d (%s): %s", fname, i, s->name, why);
            if (rok) good++;
            if (!dump) {
                unlink(path);
                unlink(kp);
                if (cp[0]) unlink(cp);
                rmdir(dir);
            }
        }
        /* parameters vary: most seeds give another parameter set (the nvcc
         * families have smaller spaces: ~18-60 sets) */
        CHECK(distinct >= (nvcc ? nseeds / 3 : (nseeds * 2) / 3), "%s: only %d distinct identities in %d seeds", fname, distinct, nseeds);
        printf("family %-10s %2d/%d samples fully checked, %d distinct identities\n", fname, good, nseeds, distinct);
        for (int i = 0; i < nseeds; i++) synth_family_sample_free(&ss[i]);
        free(ss);
        free(seeds);
    }
    return TEST_DONE();
}
