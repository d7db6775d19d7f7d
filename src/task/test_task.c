/* test_task.c — task specs, size expressions, generators, comparison,
 * references and the watchdog (all without a GPU). */
#define _GNU_SOURCE
#include "common/test.h"
#include "ptxgen/gpu.h"
#include "ptxgen/task.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct { char msgs[8][600]; int n; } dlog;
static void collect(void *u, const pg_diag *d) {
    dlog *l = u;
    if (l->n < 8) snprintf(l->msgs[l->n++], 600, "%s", d->msg);
}
static bool logged(const dlog *l, const char *needle) {
    for (int i = 0; i < l->n; i++)
        if (strstr(l->msgs[i], needle)) return true;
    return false;
}

static char tmpdir[] = "/tmp/ptxgen-task-XXXXXX";
static const char *write_spec(const char *name, const char *json) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s.json", tmpdir, name);
    FILE *f = fopen(path, "w");
    fputs(json, f);
    fclose(f);
    return path;
}

#define SAXPY_SPEC(extra) "{\"name\": \"saxpy\", \"kernel\": \"saxpy\"," \
    "\"descriptions\": {\"terse\": \"t\", \"detailed\": \"d\", \"card\": \"## c\", \"zh\": \"z\"}," \
    "\"params\": [{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\"}," \
    "             {\"name\": \"y\", \"type\": \"f32*\", \"role\": \"inout\", \"len\": \"n\"}," \
    "             {\"name\": \"a\", \"type\": \"f32\", \"value\": \"2.5\"}, {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]," \
    "\"sizes\": [{\"n\": 1000}, {\"n\": 3}]," \
    "\"launch\": {\"block\": [\"256\"], \"grid\": [\"cdiv(n,256)\"]}," \
    "\"distributions\": [\"uniform(-1,1)\", \"normal(0,10)\"]," \
    "\"reference\": {\"kind\": \"c\", \"name\": \"saxpy\"}, \"cost\": {\"bytes\": \"12*n\", \"flops\": \"2*n\"}" extra "}"

static void test_halfs(void) {
    CHECK(task_f32_to_f16(1.0f) == 0x3C00 && task_f16_to_f32(0x3C00) == 1.0f, "f16 1.0");
    CHECK(task_f32_to_f16(65504.0f) == 0x7BFF && task_f32_to_f16(1e6f) == 0x7C00, "f16 max and overflow");
    CHECK(task_f16_to_f32(0x0001) == 5.9604644775390625e-08f, "f16 smallest subnormal");
    CHECK(task_f32_to_f16(-2.0f) == 0xC000, "f16 -2");
    CHECK(task_f32_to_bf16(1.0f) == 0x3F80 && task_bf16_to_f32(0x3F80) == 1.0f, "bf16 1.0");
    CHECK(task_f32_to_bf16(1.00390625f) == 0x3F80, "bf16 ties to even");
    CHECK(isnan(task_f16_to_f32(task_f32_to_f16(NAN))) && isnan(task_bf16_to_f32(task_f32_to_bf16(NAN))), "NaN survives");
}

static void test_spec_errors(void) {
    struct { const char *name, *json, *want; } bad[] = {
        {"notjson", "{\"name\": ", "end of file"},
        {"noname", "{\"kernel\": \"k\"}", "$: missing required field 'name'"},
        {"badtype", SAXPY_SPEC(", \"x\": 1") , NULL},
        {"onesize", "{\"name\": \"t\", \"kernel\": \"k\", \"sizes\": [{\"n\": 1}]}", "$.sizes: need an array of at least 2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (!bad[i].want) continue;
        dlog l = {0};
        pg_diag_sink s = {collect, &l, 0, 0, 0};
        task_spec *t = NULL;
        pg_status st = task_load(write_spec(bad[i].name, bad[i].json), &t, &s);
        CHECK(st != PG_OK && !t && logged(&l, bad[i].want), "%s: expected '%s' (got '%s')", bad[i].name, bad[i].want, l.n ? l.msgs[0] : "");
    }
    /* targeted edits of a valid spec: each names its JSON path */
    struct { const char *from, *to, *want; } edits[] = {
        {"\"f32*\", \"role\": \"in\"", "\"f33*\", \"role\": \"in\"", "$.params[0]: unknown type 'f33'"},
        {"\"role\": \"inout\"", "\"role\": \"both\"", "$.params[1]: role must be in, out or inout"},
        {"\"len\": \"n\"}", "\"len\": \"q\"}", "$.params[0]: len 'q': unknown size variable 'q'"},
        {"\"uniform(-1,1)\"", "\"gaussian(0,1)\"", "$.distributions: unknown generator 'gaussian(0,1)'"},
        {"\"name\": \"saxpy\"}", "\"name\": \"nope\"}", "$.reference.name: no C reference named 'nope'"},
        {"\"cdiv(n,256)\"", "\"cdiv(n,0)\"", "$.launch.grid"},
        {"\"kind\": \"c\"", "\"kind\": \"py\"", "$.reference.kind: must be \"c\" or \"cu\""},
        {"\"kind\": \"c\"", "\"kind\": \"cu\", \"must_write\": 1", "$.reference.must_write: must be true or false"},
        {"\"kind\": \"c\"", "\"kind\": \"c\", \"must_write\": true", "$.reference.must_write: only a \"cu\" oracle"},
        /* hostile specs: paths, ranges, generator domains, launch limits */
        {"\"name\": \"saxpy\", \"kernel\"", "\"name\": \"../../X\", \"kernel\"", "$.name: '../../X' must be a plain file name"},
        {"\"name\": \"saxpy\", \"kernel\"", "\"name\": \".hidden\", \"kernel\"", "$.name: '.hidden' must be"},
        {"\"kernel\": \"saxpy\"", "\"kernel\": \"a/b\"", "$.kernel: 'a/b' is not a PTX identifier"},
        {"{\"n\": 3}", "{\"n\": 8589934592}", "value 'n' is 8589934592 for size 1, out of range for .u32"},
        {"\"value\": \"n\"", "\"value\": \"n-4\"", "value 'n-4' is -1 for size 1, out of range for .u32"},
        {"\"uniform(-1,1)\"", "\"uniform(1,-1)\"", "$.distributions[0]: uniform(1,-1): low 1 is greater than high -1"},
        {"\"normal(0,10)\"", "\"normal(0,-1)\"", "$.distributions[1]: normal(0,-1): the standard deviation -1 is negative"},
        {"\"uniform(-1,1)\"", "\"uniform(nan,1)\"", "uniform(nan,1): argument 1 is not a finite number"},
        {"\"uniform(-1,1)\"", "\"uniform(-1,inf)\"", "uniform(-1,inf): argument 2 is not a finite number"},
        {"\"grid\": [\"cdiv(n,256)\"]}", "\"grid\": [\"cdiv(n,256)\"], \"smem\": \"300000\"}", "$.launch.smem: '300000' is 300000 bytes"},
        {"\"grid\": [\"cdiv(n,256)\"]}", "\"grid\": [\"cdiv(n,256)\"], \"smem\": \"0-n\"}", "$.launch.smem: '0-n' is -1000 bytes"},
        {"\"block\": [\"256\"]", "\"block\": [\"2048\"]", "$.launch.block: '2048' is 2048 for size 0: more than the block limit of 1024"},
        {"\"block\": [\"256\"]", "\"block\": [\"64\", \"64\"]", "$.launch.block: 4096 threads per block"},
        {"\"len\": \"n\"}", "\"len\": \"n*n*n*n*n*n*n\"}", "$.params[0]: len 'n*n*n*n*n*n*n': overflows a 64-bit integer"},
        {"\"len\": \"n\"}", "\"len\": \"n*n*n*n*n\"}", "$.params[0]: len 'n*n*n*n*n' is 1000000000000000 elements for size 0: more than 1 TiB"},
    };
    const char *good = SAXPY_SPEC("");
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        char json[4096];
        const char *at = strstr(good, edits[i].from);
        if (!at) { CHECK(false, "test bug: '%s' not in the spec", edits[i].from); continue; }
        snprintf(json, sizeof json, "%.*s%s%s", (int)(at - good), good, edits[i].to, at + strlen(edits[i].from));
        dlog l = {0};
        pg_diag_sink s = {collect, &l, 0, 0, 0};
        task_spec *t = NULL;
        const char *p = write_spec("edit", json);
        CHECK(task_load(p, &t, &s) != PG_OK && logged(&l, edits[i].want), "edit %zu: want '%s', got '%s'", i, edits[i].want, l.n ? l.msgs[0] : "(nothing)");
        task_free(t);
    }
    dlog l = {0};
    pg_diag_sink s = {collect, &l, 0, 0, 0};
    task_spec *t = NULL;
    CHECK(task_load("/nonexistent/task.json", &t, &s) == PG_ERR_IO, "missing file is an I/O error");
    /* a launch expression nested 50k deep: an error naming the field, not SIGSEGV */
    size_t depth = 50000;
    char *grid = malloc(2 * depth + 20);
    memset(grid, '(', depth);
    memcpy(grid + depth, "n", 1);
    memset(grid + depth + 1, ')', depth);
    grid[2 * depth + 1] = 0;
    char *json = malloc(2 * depth + 4096);
    const char *at = strstr(good, "cdiv(n,256)");
    sprintf(json, "%.*s%s%s", (int)(at - good), good, grid, at + strlen("cdiv(n,256)"));
    dlog l2 = {0};
    pg_diag_sink s2 = {collect, &l2, 0, 0, 0};
    CHECK(task_load(write_spec("deep", json), &t, &s2) != PG_OK && logged(&l2, "$.launch.grid") && logged(&l2, "nested deeper"),
          "deep grid expression: %s", l2.n ? l2.msgs[0] : "(nothing)");
    free(grid);
    free(json);
}

static void test_instances_and_reference(void) {
    task_spec *t = NULL;
    pg_diag_sink s = {0};
    if (task_load(write_spec("saxpy", SAXPY_SPEC("")), &t, &s) != PG_OK) { CHECK(false, "saxpy spec loads"); return; }
    CHECK(t->nparams == 4 && t->nsizes == 2 && t->sizes[0].time_it && t->tol[TASK_T_F32] == 1e-5, "spec fields");
    /* descriptions land in desc[] by the style table's order; the absent prose stays NULL */
    const char *want_desc[TASK_NSTYLES] = {"t", "d", "## c", "z", NULL};
    for (int k = 0; k < TASK_NSTYLES; k++)
        CHECK(want_desc[k] ? t->desc[k] && !strcmp(t->desc[k], want_desc[k]) : !t->desc[k], "descriptions.%s", task_styles[k]);
    CHECK(!strcmp(task_styles[TASK_STYLE_ZH], "zh") && !strcmp(task_styles[TASK_STYLE_PROSE], "prose"), "style names");
    task_inst a, b, c;
    CHECK(task_inst_make(t, 0, 0, 1, &a, &s) == PG_OK && task_inst_make(t, 0, 0, 1, &b, &s) == PG_OK &&
          task_inst_make(t, 0, 0, 2, &c, &s) == PG_OK, "instances build");
    CHECK(!memcmp(a.args[0].data, b.args[0].data, a.args[0].bytes), "same seed, same inputs");
    CHECK(memcmp(a.args[0].data, c.args[0].data, a.args[0].bytes) != 0, "other seed, other inputs");
    CHECK(a.grid[0] == 4 && a.block[0] == 256 && a.bytes == 12000 && a.flops == 2000, "launch and cost");
    int blk[3];
    task_block_max(t, blk);
    CHECK(blk[0] == 256 && blk[1] == 1 && blk[2] == 1, "task_block_max: %d %d %d", blk[0], blk[1], blk[2]);
    float *x = a.args[0].data;
    bool in_range = true;
    for (size_t i = 0; i < a.args[0].count; i++) in_range &= x[i] >= -1 && x[i] <= 1;
    CHECK(in_range, "uniform(-1,1) stays in range");
    /* hand-computed reference: y = 2.5*x + y */
    task_inst small;
    task_inst_make(t, 1, 0, 1, &small, &s);
    float *sx = small.args[0].data, *sy = small.args[1].data;
    sx[0] = 1; sx[1] = 2; sx[2] = -4;
    sy[0] = 3; sy[1] = 4; sy[2] = 10;
    task_inst ref;
    CHECK(task_reference_run(&small, &ref, &s) == PG_OK, "reference runs");
    float *ry = ref.args[1].data;
    CHECK(ry[0] == 5.5f && ry[1] == 9.0f && ry[2] == 0.0f, "saxpy reference: %g %g %g", ry[0], ry[1], ry[2]);
    /* comparison */
    task_inst got;
    task_inst_clone(&ref, &got);
    task_cmp cmp = task_compare(t, 1, &got.args[1], &ref.args[1]);
    CHECK(cmp.ok && cmp.rel_l2 == 0, "identical output passes");
    ((float *)got.args[1].data)[1] = NAN;
    cmp = task_compare(t, 1, &got.args[1], &ref.args[1]);
    CHECK(!cmp.ok && cmp.nan_count == 1 && cmp.first_bad == 1, "one NaN fails");
    ((float *)got.args[1].data)[1] = 9.0f * (1 + 1e-7f);
    cmp = task_compare(t, 1, &got.args[1], &ref.args[1]);
    CHECK(cmp.ok, "tiny error within tolerance passes (rel %g)", cmp.rel_l2);
    ((float *)got.args[1].data)[1] = 9.1f;
    cmp = task_compare(t, 1, &got.args[1], &ref.args[1]);
    CHECK(!cmp.ok && cmp.rel_l2 > 1e-3, "wrong value fails (rel %g)", cmp.rel_l2);
    /* partial write: half of a big output still poisoned */
    task_inst big, bigref, bigot;
    task_inst_make(t, 0, 1, 3, &big, &s);
    task_reference_run(&big, &bigref, &s);
    task_inst_clone(&bigref, &bigot);
    task_poison(TASK_T_F32, (float *)bigot.args[1].data + 500, 500);
    cmp = task_compare(t, 1, &bigot.args[1], &bigref.args[1]);
    CHECK(!cmp.ok && cmp.nan_count == 500 && cmp.first_bad == 500, "partial write fails");
    /* inputs unchanged */
    CHECK(task_inputs_unchanged(t, &big, &bigot, NULL), "untouched inputs are unchanged");
    ((float *)bigot.args[0].data)[7] += 1;
    int badp = -1;
    CHECK(!task_inputs_unchanged(t, &big, &bigot, &badp) && badp == 0, "a clobbered input is detected");
    task_inst_free(&a); task_inst_free(&b); task_inst_free(&c); task_inst_free(&small); task_inst_free(&ref);
    task_inst_free(&got); task_inst_free(&big); task_inst_free(&bigref); task_inst_free(&bigot);
    task_free(t);
}

static void test_generators(void) {
    const char *json = "{\"name\": \"g\", \"kernel\": \"k\","
        "\"descriptions\": {\"terse\": \"t\", \"detailed\": \"d\", \"card\": \"c\", \"zh\": \"z\"},"
        "\"params\": [{\"name\": \"rp\", \"type\": \"s32*\", \"role\": \"in\", \"len\": \"rows+1\", \"dist\": [\"rowptr(nnz)\", \"rowptr(nnz)\"]},"
        "             {\"name\": \"ci\", \"type\": \"s32*\", \"role\": \"in\", \"len\": \"nnz\", \"dist\": [\"int(0,cols-1)\", \"perm\"]},"
        "             {\"name\": \"h\", \"type\": \"u8*\", \"role\": \"in\", \"len\": \"nnz\", \"dist\": [\"int(0,255)\", \"const(7)\"]},"
        "             {\"name\": \"o\", \"type\": \"u32*\", \"role\": \"out\", \"len\": \"rows\"}],"
        "\"sizes\": [{\"rows\": 100, \"cols\": 50, \"nnz\": 1234}, {\"rows\": 1, \"cols\": 1, \"nnz\": 0}],"
        "\"launch\": {\"block\": [\"128\"], \"grid\": [\"rows\"]}, \"distributions\": [\"uniform(0,1)\", \"uniform(0,1)\"],"
        "\"reference\": {\"kind\": \"cu\"}}";
    task_spec *t = NULL;
    dlog l = {0};
    pg_diag_sink s = {collect, &l, 0, 0, 0};
    if (task_load(write_spec("gen", json), &t, &s) != PG_OK) { CHECK(false, "generator spec loads: %s", l.n ? l.msgs[0] : ""); return; }
    task_inst in;
    CHECK(task_inst_make(t, 0, 0, 9, &in, &s) == PG_OK, "instance builds");
    int32_t *rp = in.args[0].data, *ci = in.args[1].data;
    bool mono = rp[0] == 0 && rp[100] == 1234, cols_ok = true;
    for (int i = 0; i < 100; i++) mono &= rp[i] <= rp[i + 1];
    for (int i = 0; i < 1234; i++) cols_ok &= ci[i] >= 0 && ci[i] < 50;
    CHECK(mono, "rowptr is non-decreasing from 0 to nnz");
    CHECK(cols_ok, "int(0,cols-1) stays in range");
    uint32_t *o = in.args[3].data;
    CHECK(o[0] == 0xA5A5A5A5u && o[99] == 0xA5A5A5A5u, "integer outputs are poisoned");
    task_inst_free(&in);
    CHECK(task_inst_make(t, 0, 1, 9, &in, &s) == PG_OK, "second distribution builds");
    ci = in.args[1].data;
    char *seen = calloc(1234, 1);
    bool perm = true;
    for (int i = 0; i < 1234; i++) { perm &= ci[i] >= 0 && ci[i] < 1234 && !seen[ci[i]]; if (ci[i] >= 0 && ci[i] < 1234) seen[ci[i]] = 1; }
    free(seen);
    CHECK(perm, "perm is a permutation");
    CHECK(((uint8_t *)in.args[2].data)[100] == 7, "const(7)");
    task_inst_free(&in);
    CHECK(task_inst_make(t, 1, 0, 1, &in, &s) == PG_OK && in.args[1].count == 0, "empty buffers are fine");
    task_inst_free(&in);
    task_free(t);
}

static void child_hello(void *arg, int fd) { (void)arg; ssize_t w = write(fd, "hello", 5); (void)w; }
static void child_hang(void *arg, int fd) { (void)arg; (void)fd; for (;;) pause(); }
static void child_crash(void *arg, int fd) { (void)arg; (void)fd; kill(getpid(), SIGKILL); }
static void child_exit3(void *arg, int fd) { (void)arg; (void)fd; _exit(3); }

static void test_watchdog(void) {
    char *out;
    int ec;
    CHECK(gpu_isolate(child_hello, NULL, 5, &out, &ec) == 0 && out && !strcmp(out, "hello"), "child output comes back");
    free(out);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(gpu_isolate(child_hang, NULL, 0.3, &out, &ec) == 1, "a hang is a timeout");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    CHECK(dt < 3.0, "the watchdog fires on time (%.2f s)", dt);
    free(out);
    CHECK(gpu_isolate(child_crash, NULL, 5, &out, &ec) == 2 && ec == 128 + SIGKILL, "a crash is reported (exit %d)", ec);
    free(out);
    CHECK(gpu_isolate(child_exit3, NULL, 5, &out, &ec) == 2 && ec == 3, "a nonzero exit is reported");
    free(out);
}

static void test_signature(void) {
    task_spec *t = NULL;
    pg_diag_sink q = {0};
    if (task_load(write_spec("saxpy", SAXPY_SPEC("")), &t, &q) != PG_OK) return;
    const char *ptx_ok = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry saxpy(.param .u64 x, .param .u64 y, .param .f32 a, .param .u32 n)\n{\nret;\n}\n";
    const char *ptx_bad = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry saxpy(.param .u64 x, .param .u32 y, .param .f32 a)\n{\nret;\n}\n";
    const char *ptx_other = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry other()\n{\nret;\n}\n";
    ptx_module *m = NULL;
    CHECK(ptx_parse(ptx_ok, strlen(ptx_ok), "k.ptx", &m, &q) == PG_OK && task_check_signature(t, m, "k.ptx", &q) == PG_OK,
          "matching signature passes");
    ptx_module_free(m);
    dlog l = {0};
    pg_diag_sink s = {collect, &l, 0, 0, 0};
    CHECK(ptx_parse(ptx_bad, strlen(ptx_bad), "k.ptx", &m, &q) == PG_OK && task_check_signature(t, m, "k.ptx", &s) != PG_OK &&
          logged(&l, "has 3 parameters but the task's signature has 4") && logged(&l, "parameter 2 (y) is .u32"),
          "mismatches are named");
    ptx_module_free(m);
    CHECK(ptx_parse(ptx_other, strlen(ptx_other), "k.ptx", &m, &q) == PG_OK && task_check_signature(t, m, "k.ptx", &s) != PG_OK &&
          logged(&l, "no .entry named 'saxpy'"), "a missing entry is named");
    ptx_module_free(m);
    task_free(t);
    char why[256];
    if (!gpu_available(why, sizeof why)) printf("SKIPPED: GPU execution tests need a GPU (%s)\n", why);
}

/* task_ptx_params / task_ptx_block / task_from_ptx on an nvcc-style saxpy: the element
 * types come from the accesses, the spec builds instances, bad parameters are refused. */
static void test_from_ptx(void) {
    const char *ptx =
        ".version 8.0\n.target sm_80\n.address_size 64\n"
        ".visible .entry saxpy(.param .f32 a, .param .u64 x, .param .u64 y, .param .u32 n, .param .u64 k)\n"
        ".maxntid 128, 1, 1\n{\n.reg .pred %p<2>;\n.reg .b32 %r<6>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<9>;\n"
        "ld.param.f32 %f1, [a];\nld.param.u64 %rd1, [x];\nld.param.u64 %rd2, [y];\nld.param.u32 %r1, [n];\n"
        "mov.u32 %r2, %tid.x;\nsetp.ge.u32 %p1, %r2, %r1;\n@%p1 bra DONE;\n"
        "cvta.to.global.u64 %rd3, %rd1;\ncvta.to.global.u64 %rd4, %rd2;\nmul.wide.u32 %rd5, %r2, 4;\n"
        "add.s64 %rd6, %rd3, %rd5;\nadd.s64 %rd7, %rd4, %rd5;\nld.global.f32 %f2, [%rd6];\nld.global.f32 %f3, [%rd7];\n"
        "fma.rn.f32 %f3, %f1, %f2, %f3;\nst.global.f32 [%rd7], %f3;\nDONE:\nret;\n}\n";
    ptx_module *m = NULL;
    pg_diag_sink q = {0};
    CHECK(ptx_parse(ptx, strlen(ptx), "saxpy.ptx", &m, &q) == PG_OK && m->nfuncs == 1, "from_ptx: the module parses");
    if (!m || m->nfuncs != 1) { ptx_module_free(m); return; }
    const ptx_func *f = &m->funcs[0];
    task_ptx_param sp[5];
    task_ptx_params(f, sp);
    CHECK(!sp[0].is_pointer && sp[0].dtype == TASK_T_F32, "a: f32 scalar");
    CHECK(sp[1].is_pointer && sp[1].dtype == TASK_T_F32 && sp[2].is_pointer && sp[2].dtype == TASK_T_F32, "x, y: f32*");
    CHECK(!sp[3].is_pointer && sp[3].dtype == TASK_T_U32, "n: u32 scalar");
    CHECK(!sp[4].is_pointer && sp[4].dtype == TASK_T_U64, "k: a 64-bit value never used as an address is a scalar");
    CHECK(task_ptx_block(f, 256) == 128, "block from .maxntid: %d", task_ptx_block(f, 256));
    task_spec *t = NULL;
    CHECK(task_from_ptx(f, sp, 1000, 128, &t, &q) == PG_OK && t, "from_ptx: spec built");
    if (t) {
        CHECK(t->nparams == 5 && !strcmp(t->kernel, "saxpy") && !strcmp(t->grid[0], "cdiv(n,128)") && t->params[1].role == TASK_ROLE_INOUT,
              "from_ptx: spec fields");
        task_inst in;
        CHECK(task_inst_make(t, 0, 0, 1, &in, &q) == PG_OK && in.grid[0] == 8 && in.args[1].count == 1000 && in.args[3].scalar.i == 1000,
              "from_ptx: an instance of n=1000 (grid %u)", in.grid[0]);
        task_inst_free(&in);
        /* the differential test of the kernel against itself: agreement on a GPU, else "no-gpu" */
        char why[256];
        bool gpu = gpu_available(why, sizeof why), timed_out = true;
        json_t *r = gpu_run_diff(t, ptx, ptx, 2, 60, &timed_out);
        const char *st = json_string_value(json_object_get(r, "status"));
        CHECK(!timed_out && st && !strcmp(st, gpu ? "pass" : "no-gpu"), "gpu_run_diff of a kernel with itself: %s (%s)",
              st ? st : "?", json_string_value(json_object_get(r, "detail")));
        json_decref(r);
        task_free(t);
    }
    sp[2].unsupported = true;
    t = NULL;
    dlog l = {0};
    pg_diag_sink s = {collect, &l, 0, 0, 0};
    CHECK(task_from_ptx(f, sp, 1000, 128, &t, &s) == PG_ERR_USAGE && !t && logged(&l, "parameter 3 (y)"),
          "from_ptx: an unsupported parameter is refused and named");
    ptx_module_free(m);
}

int main(void) {
    if (!mkdtemp(tmpdir)) return 2;
    test_halfs();
    test_spec_errors();
    test_instances_and_reference();
    test_generators();
    test_watchdog();
    test_signature();
    test_from_ptx();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd)) {}
    return TEST_DONE();
}
