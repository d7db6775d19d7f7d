/* test_generate.c — `ptxgen gen` as a library call: pipe_generate_json on the random tiny
 * model (tests/gen/tiny) gives the JSON report on `out` and the summary on `log` (the
 * library prints nothing: a caller sees only what it asked for), its errors are statuses
 * with a reason; the names, paths and plan-line helpers gen uses.  Run from the
 * repository root. */
#include "common/test.h"
#include "ptxgen/pipeline.h"

#include <stdlib.h>
#include <unistd.h>

static void test_generate_json(void) {
    char dir[] = "/tmp/ptxgen-test-generate-XXXXXX";
    if (!mkdtemp(dir)) { CHECK(false, "temp dir"); return; }
    char req[1024], outp[600];
    snprintf(outp, sizeof outp, "%s/k.ptx", dir);
    snprintf(req, sizeof req, "{\"request\": \"vector add\", \"model\": \"tests/gen/tiny\", \"samples\": 1, \"seed\": 5, \"out\": \"%s\"}",
             outp);
    pg_buf out = {0}, log = {0};
    int rc = pipe_generate_json(req, &out, &log);
    CHECK(rc == 0 || rc == 1, "gen on the tiny model: exit %d (%s)", rc, log.data ? log.data : "");
    CHECK(out.data && strstr(out.data, "\"kernel\": \"vector_add\""), "the JSON report names the kernel: %.300s", out.data ? out.data : "");
    CHECK(out.data && strstr(out.data, "\"signature_source\": \"model\""), "the signature's source is reported");
    CHECK(log.data && strstr(log.data, "gen: vector_add: "), "the summary line goes to the log: %.300s", log.data ? log.data : "");
    char *ptx = test_slurp(outp);
    CHECK(ptx && !strncmp(ptx, "// GENERATED_BY: ptxgen ", 24), "the kernel is written to \"out\"");
    free(ptx);
    unlink(outp);
    pg_buf_free(&out);
    pg_buf_free(&log);

    rc = pipe_generate_json("{\"request\": \"x\", \"model\": \"/nonexistent/model\"}", &out, &log);
    CHECK(rc == 2 && log.len && !out.len, "a missing model: exit %d, a reason on the log and no report", rc);
    pg_buf_free(&out);
    pg_buf_free(&log);
    rc = pipe_generate_json("{\"request\": \"x\", \"verify\": \"maybe\"}", &out, &log);
    CHECK(rc == 2 && log.data && strstr(log.data, "--verify wants check, ptxas or gpu"), "a bad verify word: %s",
          log.data ? log.data : "");
    pg_buf_free(&out);
    pg_buf_free(&log);
    rc = pipe_generate_json("[1, 2]", &out, &log);
    CHECK(rc == 2 && log.len, "a request that is not an object");
    pg_buf_free(&out);
    pg_buf_free(&log);
    rmdir(dir);
}

static void test_names(void) {
    char n[64];
    pipe_name_from_request("tiled 16x16 SGEMM with shared memory", n, sizeof n);
    CHECK(!strcmp(n, "tiled_16x16_sgemm"), "name from a request: %s", n);
    pipe_name_from_request("计算向量的和", n, sizeof n);
    CHECK(!strcmp(n, "kernel"), "no ASCII words: %s", n);
    CHECK(pipe_name_ok("saxpy_2") && !pipe_name_ok("2x") && !pipe_name_ok(""), "identifiers");
    char p[64];
    pipe_sibling_path("out/k.ptx", ".cu", p, sizeof p);
    CHECK(!strcmp(p, "out/k.cu"), "sibling: %s", p);
    char ptx[] = "// GENERATED_BY: x\n.entry k()\n{\n\t// y = a*x\n\tret;\n}\n";
    pipe_strip_plan_lines(ptx);
    CHECK(!strcmp(ptx, "// GENERATED_BY: x\n.entry k()\n{\n\tret;\n}\n"), "plan lines stripped: %s", ptx);
    char bad[] = "ok \xff\xfe end";
    pipe_utf8_clean(bad);
    CHECK(!strcmp(bad, "ok ?? end"), "utf8 cleaned: %s", bad);
}

int main(void) {
    test_generate_json();
    test_names();
    printf("%d passed, %d failed\n", t_pass, t_fail);
    return t_fail != 0;
}
