/* test_synth_dataset.c — `ptxgen synth` end to end (needs ptxas; skips with a
 * message without it): every sample has the documented fields and passes the
 * validator; output is byte-identical for the same arguments whatever the
 * number of jobs; a killed run resumes to the same bytes; --stats reads it;
 * --exclude keeps held-out tasks (by name, and by expression up to operand
 * order) out and changes nothing when no task matches. */
#define _GNU_SOURCE
#include "common/test.h"
#include "ptxgen/ptx.h"
#include "ptxgen/synth.h"
#include "ptxgen/synth_expr.h"

#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static synth_opts opts(const char *out, int count, int jobs) {
    synth_opts o;
    memset(&o, 0, sizeof o);
    o.count = count;
    o.seed = 42;
    o.out = out;
    o.corpus_dir = "corpus";
    o.arch = "sm_90";
    o.sources = SYNTH_SRC_HAND | SYNTH_SRC_EXPR | SYNTH_SRC_MUTANT;
    o.jobs = jobs;
    return o;
}

static bool put_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

/* A minimal held-out task folder: only the fields the exclusion reads. */
static bool put_task(const char *root, const char *name, const char *expr) {
    char p[600];
    snprintf(p, sizeof p, "%s/%s", root, name);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/%s/task.json", root, name);
    json_t *t = json_pack("{s:s}", "name", name);
    if (expr) json_object_set_new(t, "expr", json_string(expr));
    char *txt = json_dumps(t, 0);
    bool ok = put_file(p, txt);
    free(txt);
    json_decref(t);
    return ok;
}

/* The task identity of a sample line: "hand:<name>" or the expression. */
static void sample_identity(json_t *j, char *out, size_t n) {
    json_t *task = json_object_get(j, "task");
    const char *ex = json_string_value(json_object_get(task, "expr"));
    if (ex) snprintf(out, n, "expr:%s", ex);
    else snprintf(out, n, "hand:%s", json_string_value(json_object_get(task, "name")));
}

/* --exclude: pick two expressions and one hand task from the sample run `a`,
 * write them as a held-out suite (the first expression with the operands of
 * its root swapped when the root is commutative), and check that a second
 * run writes none of them, counts them, and that a suite matching nothing
 * leaves the output byte-identical.  The second expression is one with a
 * select or a scalar parameter when the run has one. */
static void test_exclude(const char *dir, const char *a_path) {
    char *sa = test_slurp(a_path);
    CHECK(sa != NULL, "read the reference run");
    if (!sa) return;
    char ex1[400] = "", ex2[400] = "", hand[200] = "";
    bool ex2_fancy = false;
    for (char *line = strtok(sa, "\n"); line; line = strtok(NULL, "\n")) {
        json_t *j = json_loads(line, 0, NULL);
        char id[500];
        sample_identity(j, id, sizeof id);
        bool fancy = strstr(id, "(sel ") || strstr(id, "alpha");
        if (!strncmp(id, "expr:", 5) && !ex1[0]) snprintf(ex1, sizeof ex1, "%.390s", id + 5);
        else if (!strncmp(id, "expr:", 5) && (!ex2[0] || (fancy && !ex2_fancy)) && strcmp(id + 5, ex1)) {
            snprintf(ex2, sizeof ex2, "%.390s", id + 5);
            ex2_fancy = fancy;
        } else if (!strncmp(id, "hand:", 5) && !hand[0]) snprintf(hand, sizeof hand, "%.190s", id + 5);
        json_decref(j);
    }
    free(sa);
    CHECK(ex1[0] && ex2[0] && hand[0], "the sample run has two expressions and a hand task");
    CHECK(ex2_fancy, "the sample run has an expression with a select or a scalar");
    /* the first expression, operands of a commutative root swapped */
    char err[160], swapped[400];
    expr_tree *e = expr_parse(ex1, err, sizeof err);
    CHECK(e != NULL, "parse %s", ex1);
    if (!e) return;
    bool comm = e->op == EXPR_ADD || e->op == EXPR_MUL || e->op == EXPR_MIN || e->op == EXPR_MAX;
    if (comm) { expr_tree *t = e->kid[0]; e->kid[0] = e->kid[1]; e->kid[1] = t; }
    pg_buf pre = {0};
    expr_to_prefix(e, &pre);
    snprintf(swapped, sizeof swapped, "%s", pre.data);
    pg_buf_free(&pre);
    expr_free(e);

    char suite[400], none[400], out[400], out2[400];
    snprintf(suite, sizeof suite, "%s/suite", dir);
    snprintf(none, sizeof none, "%s/none", dir);
    snprintf(out, sizeof out, "%s/x.jsonl", dir);
    snprintf(out2, sizeof out2, "%s/y.jsonl", dir);
    mkdir(suite, 0755);
    mkdir(none, 0755);
    CHECK(put_task(suite, "heldout_one", swapped) && put_task(suite, "heldout_two", ex2) && put_task(suite, hand, NULL),
          "write the held-out suite");
    char readme[450];
    snprintf(readme, sizeof readme, "%s/README.md", suite);
    put_file(readme, "not a task folder: ignored\n");

    pg_diag_sink q = {0};
    synth_report r;
    synth_opts o = opts(out, 48, 2);
    o.exclude_dir = suite;
    CHECK(synth_dataset_write(&o, &r, &q) == PG_OK && r.written == 48, "48 samples with --exclude (%d)", r.written);
    CHECK(r.excluded > 0, "held-out candidates were skipped (%ld)", r.excluded);
    char *sx = test_slurp(out);
    int leaks = 0, n = 0;
    for (char *line = sx ? strtok(sx, "\n") : NULL; line; line = strtok(NULL, "\n")) {
        json_t *j = json_loads(line, 0, NULL);
        char id[500];
        sample_identity(j, id, sizeof id);
        n++;
        if ((!strncmp(id, "expr:", 5) && (!strcmp(id + 5, ex1) || !strcmp(id + 5, ex2))) ||
            (!strncmp(id, "hand:", 5) && !strcmp(id + 5, hand)))
            leaks++;
        json_decref(j);
    }
    free(sx);
    CHECK(n == 48 && leaks == 0, "no held-out task in the dataset (%d of %d samples leak)", leaks, n);

    /* the same suite split over two folders, given as a comma list (what repeated --exclude
     * options become), excludes the same candidates: a byte-identical dataset */
    char part_a[400], part_b[400], list[820], out3[400];
    snprintf(part_a, sizeof part_a, "%s/suite_a", dir);
    snprintf(part_b, sizeof part_b, "%s/suite_b", dir);
    snprintf(out3, sizeof out3, "%s/z.jsonl", dir);
    mkdir(part_a, 0755);
    mkdir(part_b, 0755);
    CHECK(put_task(part_a, "heldout_one", swapped) && put_task(part_b, "heldout_two", ex2) && put_task(part_b, hand, NULL),
          "write the held-out suite as two folders");
    snprintf(list, sizeof list, "%s,%s", part_a, part_b);
    long excluded_one = r.excluded;
    o = opts(out3, 48, 2);
    o.exclude_dir = list;
    CHECK(synth_dataset_write(&o, &r, &q) == PG_OK && r.excluded == excluded_one, "two folders exclude as much as one (%ld vs %ld)",
          r.excluded, excluded_one);
    char *sa1 = test_slurp(out), *sa2 = test_slurp(out3);
    CHECK(sa1 && sa2 && !strcmp(sa1, sa2), "a comma list of folders excludes exactly what one folder with all tasks does");
    free(sa1);
    free(sa2);

    /* a suite that matches nothing changes nothing */
    CHECK(put_task(none, "unrelated", "(sub (sub (sub a b) (sub c d)) 3.75)") &&
          put_task(none, "unrelated_sel", "(sel (sub d beta) (sub (sub a b) 3.75) (mul alpha (add c 0.25)))"),
          "write an unrelated suite");
    o = opts(out2, 48, 1);
    o.exclude_dir = none;
    CHECK(synth_dataset_write(&o, &r, &q) == PG_OK && r.excluded == 0, "unrelated suite: nothing excluded");
    char *s1 = test_slurp(a_path), *s2 = test_slurp(out2);
    CHECK(s1 && s2 && !strcmp(s1, s2), "an exclusion that matches nothing leaves the output byte-identical");
    free(s1);
    free(s2);

    /* a missing folder or a malformed spec is an error, not a silent leak */
    char missing[400], bad[400];
    snprintf(missing, sizeof missing, "%s/no-such-suite", dir);
    o = opts(out2, 4, 1);
    o.exclude_dir = missing;
    pg_diag_sink q2 = {0};
    CHECK(synth_dataset_write(&o, &r, &q2) == PG_ERR_IO && q2.nerrors > 0, "missing --exclude folder -> PG_ERR_IO");
    /* in a list too, and an empty entry (a stray comma) is no silent skip */
    snprintf(list, sizeof list, "%s,%s", none, missing);
    o.exclude_dir = list;
    pg_diag_sink q4 = {0};
    CHECK(synth_dataset_write(&o, &r, &q4) == PG_ERR_IO && q4.nerrors == 1, "a missing folder in a list -> PG_ERR_IO (%d errors)", q4.nerrors);
    snprintf(list, sizeof list, "%s,", none);
    pg_diag_sink q5 = {0};
    CHECK(synth_dataset_write(&o, &r, &q5) == PG_ERR_IO && q5.nerrors == 1, "a trailing comma in the list -> PG_ERR_IO (%d errors)", q5.nerrors);
    snprintf(bad, sizeof bad, "%s/bad", dir);
    mkdir(bad, 0755);
    CHECK(put_task(bad, "broken", "(add a"), "write a malformed suite");
    o.exclude_dir = bad;
    pg_diag_sink q3 = {0};
    CHECK(synth_dataset_write(&o, &r, &q3) == PG_ERR_INVALID && q3.nerrors > 0, "malformed expr in the suite -> PG_ERR_INVALID");
}

int main(void) {
    char path[256];
    if (!ptx_ptxas_find(path, sizeof path)) {
        printf("SKIPPED: synth dataset tests need ptxas (not found)\n");
        return TEST_DONE();
    }
    char dir[] = "/tmp/ptxgen-synth-test-XXXXXX";
    if (!mkdtemp(dir)) return 2;
    char a[300], b[300], c[300];
    snprintf(a, sizeof a, "%s/a.jsonl", dir);
    snprintf(b, sizeof b, "%s/b.jsonl", dir);
    snprintf(c, sizeof c, "%s/c.jsonl", dir);
    pg_diag_sink q = {0};
    synth_report r;
    synth_opts o = opts(a, 48, 2);
    CHECK(synth_dataset_write(&o, &r, &q) == PG_OK && r.written == 48, "48 samples written (%d)", r.written);
    o = opts(b, 48, 1);
    CHECK(synth_dataset_write(&o, &r, &q) == PG_OK, "second run");
    char *sa = test_slurp(a), *sb = test_slurp(b);
    CHECK(sa && sb && !strcmp(sa, sb), "byte-identical with 1 and 2 jobs");
    /* fields and validity */
    int n = 0, valid = 0, fields = 0, sources[3] = {0};
    for (char *line = sa ? strtok(sa, "\n") : NULL; line; line = strtok(NULL, "\n")) {
        json_t *j = json_loads(line, 0, NULL);
        n++;
        const char *need[] = {"id", "family", "source", "arch", "task", "description", "instruction_level_desc", "ptx_code",
                              "performance_note", "ptxas", "split", "description_style", "description_frame"};
        bool all = j != NULL;
        for (size_t k = 0; all && k < sizeof need / sizeof need[0]; k++) all = json_object_get(j, need[k]) != NULL;
        fields += all;
        const char *code = json_string_value(json_object_get(j, "ptx_code"));
        ptx_module *m = NULL;
        pg_diag_sink s = {0};
        if (code && ptx_parse(code, strlen(code), "s", &m, &s) == PG_OK && ptx_validate(m, &s) == PG_OK && !s.nwarnings) valid++;
        ptx_module_free(m);
        const char *src = json_string_value(json_object_get(j, "source"));
        if (src && !strcmp(src, "hand")) sources[0]++;
        if (src && !strcmp(src, "ptx-template")) sources[1]++;
        if (src && !strcmp(src, "mutant")) sources[2]++;
        const char *perf = json_string_value(json_object_get(j, "performance_note"));
        CHECK(perf && (strstr(perf, "Measured") || strstr(perf, "Estimated")), "performance note says measured or estimated");
        json_decref(j);
    }
    CHECK(n == 48 && fields == 48, "every sample has every field (%d of %d)", fields, n);
    CHECK(valid == 48, "every sample passes the validator (%d)", valid);
    CHECK(sources[0] > 0 && sources[1] > 0 && sources[2] > 0, "all three sources appear (%d %d %d)", sources[0], sources[1], sources[2]);
    /* an interrupted run resumes to the same bytes */
    char state[400];
    snprintf(state, sizeof state, "%s.partial.state", c);
    pid_t pid = fork();
    if (pid == 0) {
        synth_opts oc = opts(c, 48, 1);
        synth_report rc;
        pg_diag_sink qc = {0};
        synth_dataset_write(&oc, &rc, &qc);
        _exit(0);
    }
    struct stat st;
    for (int i = 0; i < 400 && stat(state, &st) != 0; i++) usleep(20000);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    bool interrupted = stat(state, &st) == 0 && access(c, F_OK) != 0;
    CHECK(interrupted, "the run was interrupted mid-way (state file present, no output yet)");
    /* a torn last line, as after a crash */
    char partial[400];
    snprintf(partial, sizeof partial, "%s.partial", c);
    FILE *f = fopen(partial, "a");
    if (f) { fputs("{\"id\": \"torn", f); fclose(f); }
    /* a resume must use the interrupted run's arguments: another seed or a smaller
     * count is refused before any work, and the partial file is left alone */
    char *before = test_slurp(partial);
    o = opts(c, 48, 2);
    o.seed = 7;
    pg_diag_sink qm = {0};
    CHECK(synth_dataset_write(&o, &r, &qm) == PG_ERR_USAGE && qm.nerrors == 1 && r.candidates == 0, "resume with another seed refused");
    o = opts(c, 20, 2);
    CHECK(synth_dataset_write(&o, &r, &qm) == PG_ERR_USAGE && r.candidates == 0, "resume with a smaller count refused");
    char *after = test_slurp(partial);
    CHECK(before && after && !strcmp(before, after), "a refused resume leaves the partial file alone");
    free(before);
    free(after);
    o = opts(c, 48, 2);
    CHECK(synth_dataset_write(&o, &r, &q) == PG_OK && r.resumed_from > 0, "resumed (from %d)", r.resumed_from);
    char *sc = test_slurp(c);
    char *sa2 = test_slurp(a);
    CHECK(sc && sa2 && !strcmp(sc, sa2), "the resumed run equals an uninterrupted one");
    test_exclude(dir, a);
    /* one count of failures: the per-family counts add up to the total */
    long fam_sum = 0;
    o = opts(b, 48, 2);
    unlink(b);
    CHECK(synth_dataset_write(&o, &r, &q) == PG_OK, "rerun for the counts");
    for (int i = 0; i < r.nfam; i++) fam_sum += r.fam_failed[i];
    CHECK(fam_sum == r.failed, "failures per family (%ld) add up to the total (%ld)", fam_sum, r.failed);
    /* what would fail after the work is checked before it */
    pg_diag_sink qe = {0};
    o = opts(b, 10, 1);
    o.arch = "sm_1";
    CHECK(synth_dataset_write(&o, &r, &qe) == PG_ERR_USAGE && r.candidates == 0 && qe.nerrors == 1, "--arch sm_1 refused up front");
    o = opts(dir, 10, 1);
    CHECK(synth_dataset_write(&o, &r, &qe) == PG_ERR_USAGE && r.candidates == 0, "--out naming a folder refused up front");
    char garbage[400];
    snprintf(garbage, sizeof garbage, "%s/garbage.json", dir);
    put_file(garbage, "not json at all");
    o = opts(b, 10, 1);
    o.results = garbage;
    CHECK(synth_dataset_write(&o, &r, &qe) == PG_ERR_IO && r.candidates == 0, "unreadable --results refused");
    put_file(garbage, "{\"rows\": []}");
    CHECK(synth_dataset_write(&o, &r, &qe) == PG_ERR_IO, "--results without a tasks array refused");
    /* --stats of an empty file: zero samples, no undefined behaviour */
    pg_buf es = {0};
    put_file(garbage, "");
    CHECK(synth_dataset_stats(garbage, &es, &qe) == PG_OK && es.data && strstr(es.data, "\"samples\": 0"), "stats of an empty file");
    pg_buf_free(&es);
    /* stats */
    pg_buf st_out = {0};
    CHECK(synth_dataset_stats(a, &st_out, &q) == PG_OK && st_out.data && strstr(st_out.data, "\"samples\": 48") &&
          strstr(st_out.data, "ptx_lines_p95") && strstr(st_out.data, "\"descriptions_by_family\"") &&
          strstr(st_out.data, "\"distinct\": "), "stats");
    pg_buf_free(&st_out);
    free(sa); free(sb); free(sc); free(sa2);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {}
    return TEST_DONE();
}
