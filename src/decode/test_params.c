/* test_params.c — gen_params_plain: the names of a signature the model wrote are
 * words of the request or a<k>, renamed everywhere they are used, and the
 * module still validates. */
#include "common/test.h"
#include "ptxgen/decode.h"
#include "ptxgen/ptx.h"

static const char *relu =
    "// GENERATED_BY: ptxgen default  (S2_LOOP4666651211266667771166667 in a comment stays)\n"
    ".version 8.0\n.target sm_80\n.address_size 64\n\n"
    ".visible .entry relu(\n"
    "\t.param .b32 S2_LOOP4666651211266667771166667,\n"
    "\t.param .u64 x,\n"
    "\t.param .u64 y,\n"
    "\t.param .u32 n\n"
    ")\n"
    "{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<6>;\n\t.reg .f32 %f<3>;\n\t.reg .b64 %rd<8>;\n\n"
    "\tld.param.u64 %rd1, [x];\n"
    "\tld.param.u64 %rd2, [y];\n"
    "\tld.param.u32 %r1, [n];\n"
    "\tld.param.b32 %r5, [S2_LOOP4666651211266667771166667];\n"
    "\tmov.u32 %r2, %ctaid.x;\n\tmov.u32 %r3, %ntid.x;\n\tmov.u32 %r4, %tid.x;\n"
    "\tmad.lo.s32 %r2, %r2, %r3, %r4;\n"
    "\tsetp.ge.u32 %p1, %r2, %r1;\n"
    "\t@%p1 bra DONE;\n"
    "\tcvta.to.global.u64 %rd3, %rd1;\n\tcvta.to.global.u64 %rd4, %rd2;\n"
    "\tmul.wide.u32 %rd5, %r2, 4;\n\tadd.s64 %rd6, %rd3, %rd5;\n\tadd.s64 %rd7, %rd4, %rd5;\n"
    "\tld.global.f32 %f1, [%rd6];\n\tmax.f32 %f2, %f1, 0f00000000;\n\tst.global.f32 [%rd7], %f2;\n"
    "DONE:\n\tret;\n}\n";

static bool validates(const char *text) {
    ptx_module *m = NULL;
    pg_diag_sink q = {0};
    bool ok = ptx_parse(text, strlen(text), "t", &m, &q) == PG_OK && ptx_validate(m, &q) == PG_OK && !q.nerrors;
    ptx_module_free(m);
    return ok;
}

int main(void) {
    CHECK(validates(relu), "the fixture validates");
    pg_buf out = {0};
    int n = gen_params_plain(relu, "逐元素计算 y = relu(x) over n floats", &out);
    CHECK(n == 1, "one name is not a word of the request (%d renamed)", n);
    CHECK(strstr(out.data, "\t.param .b32 a0,\n") != NULL, "the junk parameter is a0:\n%s", out.data);
    CHECK(strstr(out.data, "[a0];") != NULL, "and so is its use");
    CHECK(strstr(out.data, ".param .u64 x,") && strstr(out.data, "[y];") && strstr(out.data, "[n];"), "request words kept");
    CHECK(strstr(out.data, "(S2_LOOP4666651211266667771166667 in a comment stays)") != NULL, "comments are not rewritten");
    CHECK(!strstr(out.data, "[S2_LOOP"), "no use of the old name is left");
    CHECK(validates(out.data), "the renamed module validates:\n%s", out.data);
    pg_buf_free(&out);

    /* a request without those words: every parameter plain, by position */
    n = gen_params_plain(relu, "rectify a vector", &out);
    CHECK(n == 4, "all four renamed (%d)", n);
    CHECK(strstr(out.data, ".param .u64 a1,") && strstr(out.data, ".param .u64 a2,") && strstr(out.data, ".param .u32 a3\n"),
          "a0..a3 by position:\n%s", out.data);
    CHECK(strstr(out.data, ".entry relu(") != NULL, "the entry's name is not a parameter name");
    CHECK(validates(out.data), "still validates");
    pg_buf_free(&out);

    /* nothing to rename: an exact copy */
    n = gen_params_plain(relu, "S2_LOOP4666651211266667771166667 x y n", &out);
    CHECK(n == 0 && !strcmp(out.data, relu), "all names from the request: unchanged");
    pg_buf_free(&out);

    /* a0 taken by a request word: the new name does not collide; whole tokens only (x vs xs) */
    char *clash = test_replace(relu, "\t.param .u64 x,\n", "\t.param .u64 a0,\n");
    char *c2 = clash ? test_replace(clash, "[x];", "[a0];") : NULL;
    n = c2 ? gen_params_plain(c2, "scale a0 by y over n", &out) : -1;
    CHECK(n == 1 && strstr(out.data, ".param .b32 a0_,") && strstr(out.data, ".param .u64 a0,"), "a clash gets a0_:\n%s",
          out.data ? out.data : "");
    CHECK(out.data && validates(out.data), "the clash case validates");
    pg_buf_free(&out);
    free(clash);
    free(c2);

    /* a parameter named like the kernel: the entry keeps its name, the parameter is renamed */
    char *same = test_replace(relu, "\t.param .u64 y,\n", "\t.param .u64 relu,\n");
    char *s2 = same ? test_replace(same, "[y];", "[relu];") : NULL;
    n = s2 ? gen_params_plain(s2, "x and n", &out) : -1;
    CHECK(n == 2 && strstr(out.data, ".entry relu(") && strstr(out.data, ".param .u64 a2,") && strstr(out.data, "[a2];"),
          "entry name kept, parameter renamed:\n%s", out.data ? out.data : "");
    CHECK(out.data && validates(out.data), "validates");
    pg_buf_free(&out);
    free(same);
    free(s2);

    /* text without an entry: copied */
    n = gen_params_plain("not ptx at all", "x", &out);
    CHECK(n == 0 && !strcmp(out.data, "not ptx at all"), "no entry: copy");
    pg_buf_free(&out);
    return TEST_DONE();
}
