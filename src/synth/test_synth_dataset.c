/* test_synth_dataset.c — `ptxgen synth` end to end (needs ptxas; skips with a
 * message without it): every sample has the documented fields and passes the
 * validator; output is byte-identical for the same arguments whatever the
 * number of jobs; a killed run resumes to the same bytes; --stats reads it. */
#define _GNU_SOURCE
#include "common/test.h"
#include "ptxgen/ptx.h"
#include "ptxgen/synth.h"

#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *slurp(const char *p) {
    char *s = NULL;
    size_t n;
    pg_diag_sink q = {0};
    return pg_read_file(p, 1 << 28, &s, &n, &q) == PG_OK ? s : NULL;
}

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

int main(void) {
    char path[256];
    if (!ptxas_find(path, sizeof path)) {
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
    char *sa = slurp(a), *sb = slurp(b);
    CHECK(sa && sb && !strcmp(sa, sb), "byte-identical with 1 and 2 jobs");
    /* fields and validity */
    int n = 0, valid = 0, fields = 0, sources[3] = {0};
    for (char *line = sa ? strtok(sa, "\n") : NULL; line; line = strtok(NULL, "\n")) {
        json_t *j = json_loads(line, 0, NULL);
        n++;
        const char *need[] = {"id", "family", "source", "arch", "task", "description", "instruction_level_desc", "ptx_code",
                              "performance_note", "ptxas", "split"};
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
    o = opts(c, 48, 2);
    CHECK(synth_dataset_write(&o, &r, &q) == PG_OK && r.resumed_from > 0, "resumed (from %d)", r.resumed_from);
    char *sc = slurp(c);
    char *sa2 = slurp(a);
    CHECK(sc && sa2 && !strcmp(sc, sa2), "the resumed run equals an uninterrupted one");
    /* stats */
    pg_buf st_out = {0};
    CHECK(synth_dataset_stats(a, &st_out, &q) == PG_OK && st_out.data && strstr(st_out.data, "\"samples\": 48") &&
          strstr(st_out.data, "ptx_lines_p95"), "stats");
    pg_buf_free(&st_out);
    free(sa); free(sb); free(sc); free(sa2);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {}
    return TEST_DONE();
}
