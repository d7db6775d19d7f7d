/* test_synth_weights.c — curriculum weights over the parametric families
 * (`ptxgen synth --family-weight`): the parser names every bad item; the pick
 * follows the weights (a family of weight 10 among weights 1 gets about
 * 10/(10+N-1) of the family candidates, weight 0 none), stays a pure function
 * of (seed, idx), draws exactly the uniform pick when every weight is 1, and
 * leaves the share of family candidates alone.  With ptxas: a small weighted
 * run is dominated by the heavy family and byte-identical whatever --jobs is,
 * and a resume with other weights (or none) is refused. */
#define _GNU_SOURCE
#include "common/test.h"
#include "ptxgen/ptx.h"
#include "ptxgen/synth.h"
#include "ptxgen/synth_family.h"

#include <jansson.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Parse spec; expect PG_ERR_USAGE and a message that quotes `names`. */
static void bad_spec(const char *spec, const char *names) {
    int w[SYNTH_MAX_FAMILIES];
    pg_diag_sink q = test_sink();
    pg_status st = synth_family_weights_parse(spec, w, &q);
    CHECK(st == PG_ERR_USAGE && q.nerrors == 1 && strstr(test_diag_log(), names) && strstr(test_diag_log(), "--family-weight"),
          "'%s' refused naming %s: %s", spec, names, test_diag_log());
}

static void test_parse(void) {
    int n = synth_family_count(), w[SYNTH_MAX_FAMILIES];
    int sm = synth_family_find("softmax"), rn = synth_family_find("rownorm"), gm = synth_family_find("gemm");
    CHECK(sm >= 0 && rn >= 0 && gm >= 0, "the families of the examples exist");
    pg_diag_sink q = test_sink();
    CHECK(synth_family_weights_parse("softmax=10", w, &q) == PG_OK && q.nerrors == 0, "softmax=10 parses");
    bool rest = true;
    for (int f = 0; f < n; f++) rest = rest && (f == sm ? w[f] == 10 : w[f] == 1);
    CHECK(rest, "softmax weighs 10, every other family 1");
    /* repeated options arrive joined with commas */
    CHECK(synth_family_weights_parse("softmax=10,rownorm=0,gemm=100", w, &q) == PG_OK && w[sm] == 10 && w[rn] == 0 && w[gm] == 100,
          "a comma list; 0 and 100 are in range");
    /* the bits family (issue 28) is weighted like the others: its default 1, FAMILY_WEIGHT=bits=N */
    int bi = synth_family_find("bits");
    CHECK(bi >= 0 && synth_family_weights_parse("bits=5", w, &q) == PG_OK && w[bi] == 5 && w[sm] == 1, "bits=5 parses, the others stay 1");
    CHECK(synth_family_weights_parse("softmax=2", w, &q) == PG_OK && bi >= 0 && w[bi] == 1, "bits weighs 1 by default");
    bad_spec("sofmax=10", "'sofmax'");
    bad_spec("softmax=10,bogus=2", "'bogus'");
    bad_spec("softmax=abc", "softmax=abc");
    bad_spec("softmax=101", "softmax=101");
    bad_spec("softmax=-1", "softmax=-1");
    bad_spec("softmax=", "'softmax='");
    bad_spec("softmax=1e2", "softmax=1e2");
    bad_spec("softmax= 5", "softmax= 5");
    bad_spec("softmax=0100", "softmax=0100");
    bad_spec("softmax", "'softmax'");
    bad_spec("softmax=2,softmax=3", "named twice");
    bad_spec("softmax=1,", "empty item");
    bad_spec("", "empty item");
    /* every family at 0: nothing could be drawn */
    pg_buf all = {0};
    for (int f = 0; f < n; f++) pg_buf_printf(&all, "%s%s=0", f ? "," : "", synth_family_name(f));
    bad_spec(all.data, "weight 0");
    /* but one left at its default 1 is enough */
    all.len = 0;
    for (int f = 1; f < n; f++) pg_buf_printf(&all, "%s%s=0", f > 1 ? "," : "", synth_family_name(f));
    q = test_sink();
    CHECK(synth_family_weights_parse(all.data, w, &q) == PG_OK && w[0] == 1, "all but one family at 0");
    pg_buf_free(&all);
}

static synth_opts opts(const char *out, int count, int jobs, const int *weights) {
    synth_opts o;
    memset(&o, 0, sizeof o);
    o.count = count;
    o.seed = 42;
    o.out = out;
    o.arch = "sm_90";
    o.sources = SYNTH_SRC_FAMILY;   /* every candidate a family one, no corpus needed */
    o.jobs = jobs;
    o.family_weight = weights;
    return o;
}

static void test_pick(void) {
    enum { N_IDX = 4000 };
    int n = synth_family_count(), w[SYNTH_MAX_FAMILIES], ones[SYNTH_MAX_FAMILIES];
    for (int f = 0; f < n; f++) ones[f] = 1;
    int sm = synth_family_find("softmax"), rn = synth_family_find("rownorm");
    pg_diag_sink q = test_sink();
    CHECK(synth_family_weights_parse("softmax=10,rownorm=0", w, &q) == PG_OK, "weights parse");
    synth_opts plain = opts("x", 1, 1, NULL), unit = opts("x", 1, 1, ones), heavy = opts("x", 1, 1, w);
    int hits = 0, zero = 0, nonfam = 0, same_as_uniform = 0, deterministic = 0;
    for (int64_t i = 0; i < N_IDX; i++) {
        int f = synth_family_pick(&heavy, 0, i);
        nonfam += f < 0;
        hits += f == sm;
        zero += f == rn;
        same_as_uniform += synth_family_pick(&unit, 0, i) == synth_family_pick(&plain, 0, i);
        deterministic += synth_family_pick(&heavy, 0, i) == f;
    }
    /* softmax 10, rownorm 0, the other n-2 families 1 */
    double want = 10.0 / (10.0 + (n - 2)), got = (double)hits / N_IDX;
    CHECK(nonfam == 0, "with only the family source every candidate is a family one (%d are not)", nonfam);
    CHECK(fabs(got - want) < 0.03, "softmax share %.3f, want %.3f +- 0.03", got, want);
    CHECK(zero == 0, "a family of weight 0 is never drawn (%d times)", zero);
    CHECK(same_as_uniform == N_IDX, "weights all 1 pick exactly what no weights pick (%d of %d)", same_as_uniform, N_IDX);
    CHECK(deterministic == N_IDX, "the pick is a pure function of (seed, idx)");
    /* uniform: softmax near 1/n */
    int uni = 0;
    for (int64_t i = 0; i < N_IDX; i++) uni += synth_family_pick(&plain, 0, i) == sm;
    CHECK(fabs((double)uni / N_IDX - 1.0 / n) < 0.02, "uniform softmax share %.3f, want %.3f", (double)uni / N_IDX, 1.0 / n);
    /* another seed draws another sequence */
    synth_opts other = heavy;
    other.seed = 43;
    int differ = 0;
    for (int64_t i = 0; i < 200; i++) differ += synth_family_pick(&other, 0, i) != synth_family_pick(&heavy, 0, i);
    CHECK(differ > 100, "another seed, another sequence (%d of 200 differ)", differ);
    /* with every source on, weights change which family, never whether a candidate is a family one */
    synth_opts mix_plain = plain, mix_heavy = heavy;
    mix_plain.sources = mix_heavy.sources = SYNTH_SRC_HAND | SYNTH_SRC_EXPR | SYNTH_SRC_FAMILY | SYNTH_SRC_MUTANT;
    int gate_same = 0, fam = 0;
    for (int64_t i = 0; i < N_IDX; i++) {
        int a = synth_family_pick(&mix_plain, 50, i), b = synth_family_pick(&mix_heavy, 50, i);
        gate_same += (a >= 0) == (b >= 0);
        fam += b >= 0;
    }
    CHECK(gate_same == N_IDX && fam > N_IDX / 5 && fam < N_IDX / 2, "the family share is unchanged (%d of %d family candidates)", fam,
          N_IDX);
}

/* The weights of the real runs: map heavy, the other PTX-template families
 * light, every nvcc family 0 (nvcc would make the test slow). */
static void template_weights(int *w, const char *map_weight) {
    pg_buf spec = {0};
    pg_buf_printf(&spec, "map=%s", map_weight);
    for (int f = 0; f < synth_family_count(); f++)
        if (synth_family_uses_nvcc(f)) pg_buf_printf(&spec, ",%s=0", synth_family_name(f));
    pg_diag_sink q = test_sink();
    CHECK(synth_family_weights_parse(spec.data, w, &q) == PG_OK, "template weights parse: %s", test_diag_log());
    pg_buf_free(&spec);
}

static void test_runs(const char *dir) {
    int w[SYNTH_MAX_FAMILIES], w5[SYNTH_MAX_FAMILIES];
    template_weights(w, "10");
    template_weights(w5, "5");
    char a[300], b[300], c[300];
    snprintf(a, sizeof a, "%s/a.jsonl", dir);
    snprintf(b, sizeof b, "%s/b.jsonl", dir);
    snprintf(c, sizeof c, "%s/c.jsonl", dir);
    synth_report r;
    pg_diag_sink q = {0};
    synth_opts o = opts(a, 40, 2, w);
    CHECK(synth_dataset_write(&o, &r, &q) == PG_OK && r.written == 40, "40 weighted samples (%d)", r.written);
    o = opts(b, 40, 1, w);
    CHECK(synth_dataset_write(&o, &r, &q) == PG_OK, "the same with one job");
    char *sa = test_slurp(a), *sb = test_slurp(b);
    CHECK(sa && sb && !strcmp(sa, sb), "byte-identical with 1 and 2 jobs");
    /* map (10 of 12 in weight) dominates; no nvcc family appears */
    int nmap = 0, nall = 0, nvcc = 0;
    for (char *line = sa ? strtok(sa, "\n") : NULL; line; line = strtok(NULL, "\n")) {
        json_t *j = json_loads(line, 0, NULL);
        const char *fam = json_string_value(json_object_get(j, "family"));
        nall++;
        nmap += fam && !strcmp(fam, "map");
        nvcc += fam && synth_family_uses_nvcc(synth_family_find(fam));
        json_decref(j);
    }
    CHECK(nall == 40 && nmap >= 24 && nvcc == 0, "map %d of %d samples, nvcc families %d", nmap, nall, nvcc);
    free(sa);
    free(sb);

    /* an interrupted weighted run resumes only with the same weights */
    char state[400], partial[400];
    snprintf(state, sizeof state, "%s.partial.state", c);
    snprintf(partial, sizeof partial, "%s.partial", c);
    pid_t pid = fork();
    if (pid == 0) {
        synth_opts oc = opts(c, 40, 1, w);
        synth_report rc;
        pg_diag_sink qc = {0};
        synth_dataset_write(&oc, &rc, &qc);
        _exit(0);
    }
    struct stat st;
    for (int i = 0; i < 1000 && stat(state, &st) != 0; i++) usleep(20000);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    CHECK(stat(state, &st) == 0 && access(c, F_OK) != 0, "the run was interrupted mid-way");
    char *before = test_slurp(partial);
    o = opts(c, 40, 2, w5);
    pg_diag_sink qo = test_sink();
    CHECK(synth_dataset_write(&o, &r, &qo) == PG_ERR_USAGE && r.candidates == 0 && strstr(test_diag_log(), "other arguments") &&
          strstr(test_diag_log(), "--family-weight map=10"), "resume with other weights refused: %s", test_diag_log());
    o = opts(c, 40, 2, NULL);
    qo = test_sink();
    CHECK(synth_dataset_write(&o, &r, &qo) == PG_ERR_USAGE && r.candidates == 0, "resume without the weights refused");
    char *after = test_slurp(partial);
    CHECK(before && after && !strcmp(before, after), "a refused resume leaves the partial file alone");
    free(before);
    free(after);
    o = opts(c, 40, 2, w);
    CHECK(synth_dataset_write(&o, &r, &q) == PG_OK && r.resumed_from > 0, "resumed with the same weights (from %d)", r.resumed_from);
    char *sc = test_slurp(c), *sa2 = test_slurp(a);
    CHECK(sc && sa2 && !strcmp(sc, sa2), "the resumed run equals an uninterrupted one");
    free(sc);
    free(sa2);

}

/* A library caller's own array is checked too, before any work (and before
 * looking for ptxas). */
static void test_range(void) {
    int bad[SYNTH_MAX_FAMILIES];
    for (int f = 0; f < synth_family_count(); f++) bad[f] = 1;
    bad[0] = SYNTH_FAMILY_WEIGHT_MAX + 1;
    synth_opts o = opts("/nonexistent/x.jsonl", 4, 1, bad);
    synth_report r;
    pg_diag_sink q = test_sink();
    CHECK(synth_dataset_write(&o, &r, &q) == PG_ERR_USAGE && r.candidates == 0 && strstr(test_diag_log(), "=101"),
          "a weight above the range refused: %s", test_diag_log());
    bad[0] = -1;
    CHECK(synth_dataset_write(&o, &r, &q) == PG_ERR_USAGE && r.candidates == 0, "a negative weight refused");
    for (int f = 0; f < synth_family_count(); f++) bad[f] = 0;
    CHECK(synth_dataset_write(&o, &r, &q) == PG_ERR_USAGE && r.candidates == 0, "all weights 0 refused");
}

int main(void) {
    test_parse();
    test_pick();
    test_range();
    char path[256];
    if (!ptx_ptxas_find(path, sizeof path)) {
        printf("SKIPPED: weighted synth runs need ptxas (not found)\n");
        return TEST_DONE();
    }
    char dir[] = "/tmp/ptxgen-synth-weights-XXXXXX";
    if (!mkdtemp(dir)) return 2;
    test_runs(dir);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {}
    return TEST_DONE();
}
