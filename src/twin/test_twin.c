/* test_twin.c — CUDA C twins: the kernel reader, the PTX signature, task
 * inference (golden task.json files in tests/golden/twin_*.task.json; rerun
 * with TWIN_GOLDEN_UPDATE=1 to rewrite them after a deliberate change, and read
 * the diff), nvcc (when installed) and the verdict's wording.  Run from the
 * repository root. */
#include "common/test.h"
#include "ptxgen/twin.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *slurp(const char *path) {
    char *s = NULL;
    size_t n = 0;
    pg_diag_sink q = {0};
    return pg_read_file(path, 1 << 20, &s, &n, &q) == PG_OK ? s : NULL;
}

static pg_diag last;
static void keep(void *u, const pg_diag *d) { (void)u; last = *d; }

static void test_parse(void) {
    char *src = slurp("tests/twin/saxpy.cu");
    twin_kernel k;
    pg_diag_sink q = {0};
    CHECK(src && twin_parse(src, "saxpy.cu", NULL, &k, &q) == PG_OK, "saxpy parses");
    CHECK(k.kernel && !strcmp(k.kernel, "saxpy"), "name %s", k.kernel ? k.kernel : "(null)");
    CHECK(k.nparams == 4, "params %d", k.nparams);
    if (k.nparams == 4) {
        CHECK(k.params[0].is_pointer && k.params[0].is_const && k.params[0].dtype == TASK_T_F32, "x const float*");
        CHECK(!strcmp(k.params[0].ctype, "const float *"), "ctype '%s'", k.params[0].ctype);
        CHECK(k.params[1].is_pointer && !k.params[1].is_const, "y float*");
        CHECK(!k.params[2].is_pointer && k.params[2].dtype == TASK_T_F32, "a float");
        CHECK(!k.params[3].is_pointer && k.params[3].dtype == TASK_T_S32, "n int");
        CHECK(k.line == 2, "line %d", k.line);
    }
    pg_buf sig = {0};
    CHECK(twin_ptx_signature(&k, &sig) &&
              !strcmp(sig.data, ".visible .entry saxpy(\n\t.param .u64 x,\n\t.param .u64 y,\n\t.param .f32 a,\n\t.param .s32 n\n)"),
          "signature:\n%s", sig.data);
    pg_buf_free(&sig);
    twin_kernel_free(&k);
    free(src);

    /* launch bounds, unsigned, extern "C" block */
    src = slurp("tests/twin/rowmax.cu");
    CHECK(src && twin_parse(src, "rowmax.cu", NULL, &k, &q) == PG_OK && k.launch_bounds == 128 && k.nparams == 4 &&
              k.params[0].dtype == TASK_T_F64 && k.params[2].dtype == TASK_T_U32, "rowmax");
    twin_kernel_free(&k);
    free(src);
    src = slurp("tests/twin/gemv.cu");
    CHECK(src && twin_parse(src, "gemv.cu", NULL, &k, &q) == PG_OK && k.nparams == 5, "gemv inside extern \"C\" { }");
    twin_kernel_free(&k);
    free(src);

    /* errors name the place and the cause */
    struct { const char *file, *kernel, *want; int line; } bad[] = {
        {"tests/twin/not_extern.cu", NULL, "not extern \"C\"", 1},
        {"tests/twin/two.cu", NULL, "a second extern \"C\" __global__ kernel 'second'", 2},
        {"tests/twin/ptrptr.cu", NULL, "pointer to a pointer", 1},
        {"tests/twin/saxpy.cu", "nope", "no extern \"C\" __global__ kernel named 'nope'", 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        src = slurp(bad[i].file);
        pg_diag_sink s = {keep, NULL, 0, 0, 0};
        memset(&last, 0, sizeof last);
        CHECK(src && twin_parse(src, bad[i].file, bad[i].kernel, &k, &s) == PG_ERR_PARSE, "%s rejected", bad[i].file);
        CHECK(strstr(last.msg, bad[i].want) && last.line == bad[i].line && !strcmp(last.code, "E704"),
              "%s: %s:%d %s", bad[i].file, last.code, last.line, last.msg);
        CHECK(k.kernel == NULL && k.params == NULL, "nothing left allocated on failure");
        free(src);
    }
    src = slurp("tests/twin/two.cu");
    CHECK(src && twin_parse(src, "two.cu", "second", &k, &q) == PG_OK && !strcmp(k.kernel, "second"), "named kernel picked");
    twin_kernel_free(&k);
    free(src);
}

/* A PTX module that stores through y (never loads it): y is an output. */
static const char *gemv_ptx =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry gemv(.param .u64 A, .param .u64 x, .param .u64 y, .param .u32 rows, .param .u32 cols)\n{\n"
    "\t.reg .b64 %rd<4>;\n\t.reg .f32 %f<2>;\n"
    "\tld.param.u64 %rd1, [y];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.f32 %f1, 0f00000000;\n"
    "\tst.global.f32 [%rd2], %f1;\n\tret;\n}\n";

static void golden(const char *name, const char *request, const char *ptx, const char *lens[], int nlens) {
    char cu[256], gp[256];
    snprintf(cu, sizeof cu, "tests/twin/%s.cu", name);
    snprintf(gp, sizeof gp, "tests/golden/twin_%s.task.json", name);
    char *src = slurp(cu);
    twin_kernel k;
    pg_diag_sink q = {0};
    if (!src || twin_parse(src, cu, NULL, &k, &q) != PG_OK) { CHECK(0, "%s parses", cu); free(src); return; }
    char file[128];
    snprintf(file, sizeof file, "%s.cu", name);
    twin_infer_in in = {request, &k, file, ptx, 0};
    pg_buf out = {0};
    CHECK(twin_infer_task(&in, &out, &q) == PG_OK && out.len, "%s: inferred", name);
    if (getenv("TWIN_GOLDEN_UPDATE")) pg_write_file_atomic(gp, out.data, out.len, &q);
    char *want = slurp(gp);
    CHECK(want && out.data && !strcmp(want, out.data), "%s differs from the golden file %s:\n%s", name, gp, out.data);
    /* it loads as a task, and the lengths are the expected expressions */
    char dir[256] = "/tmp/ptxgen-test-twin-XXXXXX", tp[512];
    pg_tmp_path(dir, sizeof dir, "ptxgen-test-twin-XXXXXX");
    if (mkdtemp(dir)) {
        snprintf(tp, sizeof tp, "%s/%s.task.json", dir, name);
        pg_write_file_atomic(tp, out.data, out.len, &q);
        task_spec *t = NULL;
        pg_diag_sink s = {keep, NULL, 0, 0, 0};
        CHECK(task_load(tp, &t, &s) == PG_OK, "%s: task_load: %s", name, last.msg);
        for (int i = 0; t && i < nlens && i < t->nparams; i++)
            if (lens[i]) CHECK(t->params[i].len && !strcmp(t->params[i].len, lens[i]), "%s param %d len %s, want %s", name, i, t->params[i].len, lens[i]);
        if (t && !strcmp(t->ref.kind, "cu")) CHECK(!strcmp(t->ref.file, file), "reference file %s", t->ref.file);
        if (t) {
            pg_buf sum = {0};
            twin_task_summary(t, &sum);
            CHECK(sum.data && strstr(sum.data, "launch: grid") && strstr(sum.data, "sizes:"), "summary:\n%s", sum.data);
            task_spec v;
            twin_task_view(t, "/elsewhere", "other.cu", &v);
            CHECK(!strcmp(v.ref.kind, "cu") && !strcmp(v.ref.file, "other.cu") && !strcmp(v.dir, "/elsewhere") &&
                      v.params == t->params && v.ref.must_write && t->ref.must_write,
                  "the inferred task and the view ask the twin to write its outputs");
            pg_buf_free(&sum);
        }
        task_free(t);
        unlink(tp);
        rmdir(dir);
    }
    free(want);
    pg_buf_free(&out);
    twin_kernel_free(&k);
    free(src);
}

static void test_infer(void) {
    const char *saxpy[] = {"n", "n", NULL, NULL};
    golden("saxpy", "y = a*x + y over n floats", NULL, saxpy, 4);
    const char *gemv[] = {"rows*cols", "cols", "rows", NULL, NULL};
    golden("gemv", "y = A x for a row-major rows x cols matrix", gemv_ptx, gemv, 5);
    const char *rowmax[] = {"rows*cols", "rows", NULL, NULL};
    golden("rowmax", "## rowmax\n- Input: `const double* in` (rows*cols)\n- Output: `double* out` (rows)\n- Goal: the largest value of every row", NULL, rowmax, 4);
    const char *gather[] = {"n", "n", "n", NULL};
    golden("gather", "逐元素 dst[i] = src[idx[i]]", NULL, gather, 4);

    /* a twin file name that would leave the folder is refused */
    char *src = slurp("tests/twin/saxpy.cu");
    twin_kernel k;
    pg_diag_sink q = {0};
    if (src && twin_parse(src, "saxpy.cu", NULL, &k, &q) == PG_OK) {
        twin_infer_in in = {"x", &k, "../saxpy.cu", NULL, 0};
        pg_buf out = {0};
        pg_diag_sink s = {keep, NULL, 0, 0, 0};
        CHECK(twin_infer_task(&in, &out, &s) == PG_ERR_USAGE && strstr(last.msg, "plain file name") && !out.len, "../ refused");
        pg_buf_free(&out);
        twin_kernel_free(&k);
    }
    free(src);
}

static void test_compile(void) {
    char nvcc[1024];
    twin_build b;
    pg_diag_sink q = {0};
    /* $NVCC naming something that is not there: "not found", never a fall-back */
    setenv("NVCC", "/nonexistent/nvcc", 1);
    CHECK(twin_compile("tests/twin/saxpy.cu", "sm_80", &b, &q) == PG_OK && b.status == TWIN_BUILD_NO_NVCC && !b.ptx, "no nvcc");
    twin_build_free(&b);
    unsetenv("NVCC");
    if (!ptx_cuda_tool_find("nvcc", "NVCC", nvcc, sizeof nvcc)) {
        printf("nvcc not found: twin_compile with nvcc SKIPPED\n");
        return;
    }
    CHECK(twin_compile("tests/twin/saxpy.cu", "sm_80", &b, &q) == PG_OK && b.status == TWIN_BUILD_OK && b.ptx &&
              strstr(b.ptx, ".entry saxpy("), "saxpy compiles: %s", b.log ? b.log : "");
    twin_build_free(&b);
    char dir[256], cu[300];
    pg_tmp_path(dir, sizeof dir, "ptxgen-test-twin-XXXXXX");
    if (mkdtemp(dir)) {
        snprintf(cu, sizeof cu, "%s/broken.cu", dir);
        const char *text = "extern \"C\" __global__ void k(float *x) { x[0] = undefined_name; }\n";
        pg_write_file_atomic(cu, text, strlen(text), &q);
        CHECK(twin_compile(cu, "sm_80", &b, &q) == PG_OK && b.status == TWIN_BUILD_FAILED && !b.ptx && strstr(b.log, "undefined_name"),
              "nvcc rejects: %s", b.log ? b.log : "");
        twin_build_free(&b);
        unlink(cu);
        rmdir(dir);
    }
}

static void test_strip_fence(void) {
#define BODY "extern \"C\" __global__ void k(float *x) {\n    x[0] = 1.0f;\n}\n"
    struct { const char *in, *want; } c[] = {
        {BODY, BODY},                                                     /* no fence: as it is */
        {"```cuda\n" BODY "```\n", BODY},
        {"```\n" BODY "```", BODY},
        {" \t```c++ \n" BODY " ``` \nThis kernel sets x[0].\n", BODY},   /* blanks around the fences, prose after */
        {"Here is the twin:\n\n```cuda\n" BODY "\n\n```\n", BODY},       /* prose before, newlines folded */
        {"```cuda\n" BODY "  x[1] = 2;", BODY "  x[1] = 2;\n"},          /* cut by the token limit */
        {"```cuda\n" BODY "```\nand\n```cuda\nint other;\n```\n", BODY},   /* the first block only */
        {"int a; // not ```cuda\n", "int a; // not ```cuda\n"},           /* inside a line: no fence */
        {"```cuda x\n" BODY, "```cuda x\n" BODY},                         /* a tag with a blank: no fence */
        {"```cuda", "\n"},                                                /* an opening and nothing else */
        {"", ""},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        pg_buf b = {0};
        twin_strip_fence(c[i].in, &b);
        CHECK(!strcmp(b.data ? b.data : "", c[i].want), "fence case %zu: '%s'", i, b.data ? b.data : "");
        pg_buf_free(&b);
    }
    pg_buf b = {0};   /* appends */
    pg_buf_puts(&b, "// head\n");
    twin_strip_fence("```cuda\nint x;\n```\n", &b);
    CHECK(b.data && !strcmp(b.data, "// head\nint x;\n"), "appends: '%s'", b.data);
    pg_buf_free(&b);
#undef BODY
}

static void test_verdict(void) {
    struct { twin_verdict v; int sets; const char *detail, *want; } c[] = {
        {TWIN_V_NO_NVCC, 0, NULL, "twin written; nvcc not found; not compiled"},
        {TWIN_V_NVCC_FAILED, 0, "error: x", "twin written; nvcc rejects it: error: x; not run"},
        {TWIN_V_NOT_RUN, 0, "no GPU: libcuda.so.1 not found", "twin compiles; not run (no GPU: libcuda.so.1 not found)"},
        {TWIN_V_AGREES, 45, NULL, "agrees with its CUDA twin on 45 input sets"},
        {TWIN_V_AGREES, 1, NULL, "agrees with its CUDA twin on 1 input set "},
        {TWIN_V_DIFFERS, 0, "input set 1 of 45 wrong", "differs from its CUDA twin: input set 1 of 45 wrong"},
        {TWIN_V_NOT_COMPARED, 0, "oracle faulted", "not compared with its CUDA twin: oracle faulted"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        pg_buf b = {0};
        twin_verdict_line(c[i].v, c[i].sets, c[i].detail, &b);
        CHECK(b.data && !strncmp(b.data, c[i].want, strlen(c[i].want)), "verdict %zu: '%s'", i, b.data);
        /* never "correct": the twin is not a reference */
        CHECK(!strstr(b.data, "correct"), "verdict %zu claims correctness: %s", i, b.data);
        pg_buf_free(&b);
    }
    CHECK(!strcmp(twin_verdict_name(TWIN_V_AGREES), "agrees") && !strcmp(twin_verdict_name(TWIN_V_NO_NVCC), "no-nvcc"), "names");
}

/* what a verdict shows of nvcc's log: the whole line that says "error", else the first line */
static void test_first_error(void) {
    struct { const char *log, *want; size_t n; } c[] = {
        {"k.cu(3): warning #177-D: unused\nk.cu(5): error: identifier \"y\" is undefined\n1 error detected\n",
         "k.cu(5): error: identifier \"y\" is undefined", 200},
        {"error: x\n", "error: x", 200},
        {"nvcc fatal   : Unsupported gpu architecture\n", "nvcc fatal   : Unsupported gpu architecture", 200},
        {"", "", 200},
        {NULL, "", 200},
        {"k.cu(5): error: long\n", "k.cu(", 6},   /* truncated to n - 1 */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char out[200];
        twin_log_first_error(c[i].log, out, c[i].n);
        CHECK(!strcmp(out, c[i].want), "first error %zu: '%s'", i, out);
    }
}

int main(void) {
    test_parse();
    test_infer();
    test_compile();
    test_strip_fence();
    test_verdict();
    test_first_error();
    return TEST_DONE();
}
