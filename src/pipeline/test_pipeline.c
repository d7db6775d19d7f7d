/* test_pipeline.c — the two-stage pipeline without a GPU: the plan check (twin_parse,
 * nvcc), the signature a plan gives a free-form request, the PTX turn's options, the
 * two-stage prompts against their goldens (tests/golden/prompts/, UPDATE_GOLDEN=1
 * rewrites them), and the two-stage model marker in base.json.  With the SmolLM2 base
 * present (models/base), the whole path once: the model's plan turn, then a literate PTX
 * turn under the constraint from a given plan.  pipe_select verifies the same kernel once
 * (greedy best-of-3 from the 15M models/default, ptxas counted).  The plans' GPU check
 * (pipe_in.gpu_check): its verdicts (pipe_plan_gpu_judge), and plans from a list on ew_silu --
 * here without a GPU (the old path, a note), under tests/gpu/fakecuda.c ($FAKECUDA_TASK_KERNEL set:
 * that test alone, tests/gpu_engine_fake.sh) a wrong plan drawn again.  Run from the repository root. */
#include "common/test.h"
#include "ptxgen/pipeline.h"
#include "ptxgen/ptx.h"
#include "draw.h"
#include "plan.h"
#include "ptxgen/gpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static bool have_nvcc(void) {
    char p[1024];
    return ptx_cuda_tool_find("nvcc", "NVCC", p, sizeof p);
}

static void test_prompts(void) {
    task_spec *t = NULL;
    pg_diag_sink q = {0};
    CHECK(task_load("bench/suite/relu6/task.json", &t, &q) == PG_OK, "relu6 task loads");
    if (!t) return;
    pg_buf csig = {0}, sig = {0}, p1 = {0}, p2 = {0}, p3 = {0};
    gen_c_signature_from_task(t, &csig);
    CHECK(!strcmp(csig.data, "extern \"C\" __global__ void relu6(const float* x, float* y, unsigned int n)"), "C signature: %s",
          csig.data);
    gen_signature_from_task(t, &sig);
    gen_prompt_build_plan(t->desc[TASK_STYLE_TERSE], "sm_80", csig.data, &p1);
    test_golden_file("tests/golden/prompts/plan.txt", p1.data);
    gen_prompt_build_plan("y = relu(x)", "sm_90", NULL, &p3);
    CHECK(strstr(p3.data, "choose its name and parameters.<|im_end|>") != NULL, "without a signature the model chooses it");
    char *plan = test_slurp("tests/gen/two_stage/plan_scale.cu");
    gen_prompt_build_ptx_plan(t->desc[TASK_STYLE_TERSE], "sm_80", plan ? plan : "", sig.data, &p2);
    test_golden_file("tests/golden/prompts/ptx_plan.txt", p2.data);
    /* with the task's launch, as gen and `prompts --stage` build both turns */
    pg_buf launch = {0}, p4 = {0}, p5 = {0};
    gen_launch_from_task(t, &launch);
    CHECK(!strcmp(launch.data, "block 256, grid cdiv(n,256)"), "launch: %s", launch.data);
    gen_prompt_build_plan_ex(t->desc[TASK_STYLE_TERSE], "sm_80", launch.data, csig.data, NULL, 0, &p4);
    test_golden_file("tests/golden/prompts/plan_launch.txt", p4.data);
    gen_prompt_build_ptx_plan_ex(t->desc[TASK_STYLE_TERSE], "sm_80", launch.data, plan ? plan : "", sig.data, NULL, 0, &p5);
    test_golden_file("tests/golden/prompts/ptx_plan_launch.txt", p5.data);
    p4.len = 0;
    gen_prompt_build_plan_ex(t->desc[TASK_STYLE_TERSE], "sm_80", "", csig.data, NULL, 0, &p4);
    CHECK(!strcmp(p4.data, p1.data), "an empty launch adds no line");
    free(plan);
    pg_buf_free(&csig); pg_buf_free(&sig); pg_buf_free(&p1); pg_buf_free(&p2); pg_buf_free(&p3);
    pg_buf_free(&launch); pg_buf_free(&p4); pg_buf_free(&p5);
    task_free(t);
}

/* The launch line of 2-D, 3-D and shared-memory tasks: trailing 1s dropped, smem only when asked. */
static void launch_is(const char *task_path, const char *want) {
    task_spec *t = NULL;
    pg_diag_sink q = {0};
    CHECK(task_load(task_path, &t, &q) == PG_OK, "%s loads", task_path);
    if (!t) return;
    pg_buf b = {0};
    gen_launch_from_task(t, &b);
    CHECK(!strcmp(b.data, want), "%s: launch %s, want %s", task_path, b.data, want);
    pg_buf_free(&b);
    task_free(t);
}

static void test_launch(void) {
    launch_is("bench/suite/blur2d_9pt_clamp/task.json", "block 16 x 16, grid cdiv(W,16) x cdiv(H,16)");
    launch_is("bench/suite/heat3d_varcoef/task.json", "block 32 x 8, grid cdiv(W,32) x cdiv(H,8) x D");
    launch_is("bench/suite/dot_f64_atomic/task.json", "block 256, grid min(cdiv(n,2048),1024)");
    launch_is("corpus/conv1d/task.json", "block 256, grid cdiv(n,1024), dynamic shared memory 4*(1024+2*R) bytes");
}

/* A given plan: checked without the model (pipe_plan never samples). */
/* pipe_plan refuses `plan` (nothing kept) and its diagnostic names `why`. */
static void plan_refused(pipe_in *in, const char *plan, const char *why) {
    pg_diag_sink q = {test_diag_capture, NULL, 0, 0, 10};
    pipe_out out;
    memset(&out, 0, sizeof out);
    in->plan = plan;
    test_diag_log()[0] = 0;
    CHECK(pipe_plan(NULL, NULL, in, &out, &q) == PG_ERR_INVALID && strstr(test_diag_log(), why), "refused (%s): %s", why, test_diag_log());
    CHECK(!out.plan, "no plan kept (%s)", why);
    pipe_out_free(&out);
}

/* A pipe_in with gen's defaults and the ChatML prompts of the two-stage models. */
static void chatml_in(pipe_in *in) {
    memset(in, 0, sizeof *in);
    gen_opts_default(&in->gen);
    in->gen.format = GEN_FMT_CHATML;
}

static void test_given_plan(void) {
    char *good = test_slurp("tests/gen/two_stage/plan_scale.cu"), *bad = test_slurp("tests/gen/two_stage/plan_bad.cu");
    CHECK(good && bad, "plans readable");
    if (!good || !bad) { free(good); free(bad); return; }
    pipe_in in;
    chatml_in(&in);
    in.request = "scale x by a into y";
    in.plan = good;
    pipe_out out;
    memset(&out, 0, sizeof out);
    pg_diag_sink q = {0};
    CHECK(pipe_plan(NULL, NULL, &in, &out, &q) == PG_OK, "a good plan passes");
    CHECK(out.kernel && !strcmp(out.kernel, "scale"), "the plan names the kernel: %s", out.kernel ? out.kernel : "(null)");
    CHECK(out.signature && !strcmp(out.signature, ".visible .entry scale(\n\t.param .u64 x,\n\t.param .u64 y,\n\t.param .f32 a,\n"
                                                   "\t.param .u32 n\n)"),
          "a free-form request gets the plan's signature: %s", out.signature ? out.signature : "(null)");
    CHECK(out.nvcc_ran == have_nvcc(), "nvcc compiled the plan iff nvcc is here");
    CHECK(out.plan_attempts == 0 && out.plan && !strcmp(out.plan, good), "the given plan is kept as it is, no attempt drawn");
    /* the PTX turn's options */
    gen_opts o;
    pg_buf prompt = {0};
    pipe_ptx_opts(&in, &out, &o, &prompt);
    CHECK(o.prompt == prompt.data && strstr(prompt.data, "The plan (CUDA C):\n// scale: y[i]") && strstr(prompt.data, GEN_PTX_REQUEST),
          "the PTX turn carries the plan and the request");
    CHECK(o.signature == out.signature && !o.entry_name && o.comment_max == PTX_LITERATE_LINE_MAX + 1, "signature forced, comments on");
    CHECK(o.plan == out.plan, "the comments quote the plan");
    CHECK(!out.ref_ptx && !o.draft_ref, "no reference drafts without speculative decoding");
    pg_buf_free(&prompt);
    pipe_out_free(&out);
    /* speculative decoding: nvcc's literate PTX of the plan is the PTX turn's draft reference */
    for (int off = 0; off < 2; off++) {
        in.gen.draft_max = 8;
        in.no_draft_ref = off;
        memset(&out, 0, sizeof out);
        CHECK(pipe_plan(NULL, NULL, &in, &out, &q) == PG_OK, "a good plan passes (draft 8)");
        pipe_ptx_opts(&in, &out, &o, &prompt);
        if (off) CHECK(!out.ref_ptx && !o.draft_ref, "--no-draft-ref: no reference");
        else if (have_nvcc())
            CHECK(out.ref_ptx && o.draft_ref == out.ref_ptx && strstr(out.ref_ptx, ".visible .entry scale(\n\t.param .u64 x,") &&
                      strstr(out.ref_ptx, "ld.param.f32 %f1, [a];") && strstr(out.ref_ptx, "\t// if (i < n) y[i] = a * x[i];\n") &&
                      strstr(out.ref_ptx, ".version ") == out.ref_ptx,
                  "the reference: canonical literate PTX, the signature's parameter names, plan comments:\n%s (%s)",
                  out.ref_ptx ? out.ref_ptx : "(null)", out.ref_note);
        else CHECK(!out.ref_ptx && strstr(out.ref_note, "nvcc"), "no nvcc: no reference, the note says why (%s)", out.ref_note);
        pg_buf_free(&prompt);
        pipe_out_free(&out);
    }
    /* a canonical-style model (base.json "regs": "canonical"): the reference is nvcc's, its registers renumbered in
     * order of first appearance as the model was trained to write them; the same text otherwise */
    if (have_nvcc()) {
        in.gen.draft_max = 8;
        in.no_draft_ref = false;
        pipe_out plain_ref;
        memset(&plain_ref, 0, sizeof plain_ref);
        memset(&out, 0, sizeof out);
        CHECK(pipe_plan(NULL, NULL, &in, &plain_ref, &q) == PG_OK && plain_ref.ref_ptx, "nvcc's reference");
        in.ref_regs_canonical = true;
        CHECK(pipe_plan(NULL, NULL, &in, &out, &q) == PG_OK && out.ref_ptx, "the canonical reference (%s)", out.ref_note);
        in.ref_regs_canonical = false;
        if (plain_ref.ref_ptx && out.ref_ptx) {
            ptx_module *a = NULL, *b = NULL;
            pg_diag_sink qa = {0}, qb = {0};
            CHECK(ptx_parse(plain_ref.ref_ptx, strlen(plain_ref.ref_ptx), "nvcc", &a, &qa) == PG_OK &&
                      ptx_parse(out.ref_ptx, strlen(out.ref_ptx), "canonical", &b, &qb) == PG_OK,
                  "both references parse");
            if (a && b) {
                CHECK(ptx_regs_renumber(a) == PG_OK, "nvcc's renumbers");
                pg_buf pa = {0}, pb = {0};
                ptx_print(a, &pa);
                ptx_print(b, &pb);
                CHECK(pa.data && pb.data && !strcmp(pa.data, pb.data), "the canonical reference is nvcc's renumbered:\n%s\n%s",
                      pa.data ? pa.data : "", pb.data ? pb.data : "");
                pg_buf_free(&pa);
                pg_buf_free(&pb);
            }
            ptx_module_free(a);
            ptx_module_free(b);
            /* nvcc loads `n` into %r2 (its %r1 is the index, computed later): first in order, it becomes %r1 */
            CHECK(strcmp(plain_ref.ref_ptx, out.ref_ptx) != 0 && strstr(out.ref_ptx, "ld.param.u32 %r1, [n];") &&
                      strstr(out.ref_ptx, "\t// if (i < n) y[i] = a * x[i];\n") &&
                      strstr(out.ref_ptx, ".visible .entry scale(\n\t.param .u64 x,") == strstr(out.ref_ptx, ".visible"),
                  "the registers moved, the comments and signature stayed:\n%s\n%s", plain_ref.ref_ptx, out.ref_ptx);
        }
        pipe_out_free(&plain_ref);
        pipe_out_free(&out);
    } else printf("SKIPPED: nvcc not found; the canonical reference drafts are not checked\n");
    in.gen.draft_max = 0;
    in.no_draft_ref = false;
    /* a task whose kernel the plan does not define */
    task_spec *t = NULL;
    CHECK(task_load("bench/suite/relu6/task.json", &t, &q) == PG_OK, "relu6 loads");
    in.task = t;
    pg_diag_sink q2 = {test_diag_capture, NULL, 0, 0, 10};
    test_diag_log()[0] = 0;
    memset(&out, 0, sizeof out);
    CHECK(pipe_plan(NULL, NULL, &in, &out, &q2) == PG_ERR_INVALID && strstr(test_diag_log(), "named relu6"),
          "a plan without the task's kernel is refused: %s", test_diag_log());
    pipe_out_free(&out);
    in.task = NULL;
    task_free(t);
    /* nvcc rejects the plan */
    if (have_nvcc()) {
        plan_refused(&in, bad, "nvcc rejects the plan");
        /* nvcc compiles the plan to no kernel (round 6's looping plans were comments only): refused */
        pg_buf off = {0};
        pg_buf_printf(&off, "#if 0\n%s#endif\n", good);
        plan_refused(&in, off.data, "has no kernel (.entry)");
        pg_buf_free(&off);
    } else printf("SKIPPED: nvcc not found; the refusal of a plan nvcc rejects or compiles to no kernel is not checked\n");
    /* a single-stage format is refused */
    in.plan = good;
    in.gen.format = GEN_FMT_PTXGEN;
    memset(&out, 0, sizeof out);
    CHECK(pipe_plan(NULL, NULL, &in, &out, &q) == PG_ERR_USAGE, "the ptxgen format has no plan turn");
    pipe_out_free(&out);
    free(good);
    free(bad);
}

static void test_marker(void) {
    CHECK(pipe_model_is_two_stage("tests/gen/two_stage"), "the test model is two-stage");
    CHECK(pipe_model_is_two_stage("models/qwen-plan"), "the committed plan adapter is two-stage");
    CHECK(!pipe_model_is_two_stage("tests/gen/tiny"), "a folder without base.json is not");
    CHECK(!pipe_model_is_two_stage("tests/model/gguf_engine/tiny_qwen2.gguf"), "a GGUF file is not");
    CHECK(!pipe_model_is_two_stage("/nonexistent/model"), "a missing path is not");
    /* the register style: base.json "regs" */
    CHECK(!pipe_model_regs_named("tests/gen/two_stage"), "no \"regs\": numbered");
    CHECK(!pipe_model_regs_named("tests/gen/tiny"), "no base.json: numbered");
    char dir[] = "/tmp/ptxgen-regs-XXXXXX", p[64];
    if (mkdtemp(dir)) {
        snprintf(p, sizeof p, "%s/base.json", dir);
        const char *styles[] = {"{\"regs\": \"named\"}", "{\"regs\": \"numbered\"}", "{\"regs\": 3}", "{\"regs\": \"canonical\"}"};
        for (int i = 0; i < 4; i++) {
            FILE *f = fopen(p, "w");
            if (f) { fputs(styles[i], f); fclose(f); }
            CHECK(pipe_model_regs_named(dir) == (i == 0), "%s", styles[i]);
            CHECK(pipe_model_regs_canonical(dir) == (i == 3), "%s: canonical?", styles[i]);
        }
        remove(p);
        rmdir(dir);
    }
}

/* The model in dir (one thread), its tokenizer and their vocabulary trie; false at the first failure
 * (what did load is left to the caller's frees). */
static bool load_model(const char *dir, model_model **m, tok_tokenizer **tok, dec_vocab **v, pg_diag_sink *q) {
    model_load_opts lo = {NULL, 1, NULL, false, false, NULL, false};
    char tp[4200];
    return model_load(dir, &lo, m, q) == PG_OK && model_tokenizer_path(dir, tp, sizeof tp, q) == PG_OK && tok_load(tp, tok, q) == PG_OK &&
           dec_vocab_new(*tok, v, q) == PG_OK;
}

/* With the SmolLM2 base: the model's own plan turn (random adapter: the plan is nonsense and
 * fails its check, which is what is tested), then the PTX turn of a given plan under the
 * constraint: valid PTX with the plan's signature. */
static void test_with_model(void) {
    struct stat sb;
    if (stat("models/base/smollm2-135m-instruct.Q4_1.gguf", &sb) != 0) {
        printf("SKIPPED: models/base/smollm2-135m-instruct.Q4_1.gguf absent (bash models/fetch_base.sh --smollm2)\n");
        return;
    }
    model_model *m = NULL;
    tok_tokenizer *tok = NULL;
    dec_vocab *v = NULL;
    pg_diag_sink q = {0};
    if (!load_model("tests/gen/two_stage", &m, &tok, &v, &q)) {
        CHECK(false, "the two-stage test model loads (%d errors)", q.nerrors);
        goto done;
    }
    pipe_in in;
    memset(&in, 0, sizeof in);
    gen_opts_default(&in.gen);
    in.gen.format = gen_prompt_fmt_of(tok);
    CHECK(in.gen.format == GEN_FMT_CHATML, "SmolLM2 speaks ChatML");
    in.gen.max_tokens = 160;
    in.request = "scale x by a into y";
    in.plan_max_tokens = 24;
    in.plan_samples = 2;
    pipe_out out;
    memset(&out, 0, sizeof out);
    pg_status st = pipe_plan(m, tok, &in, &out, &q);
    CHECK(out.plan_attempts == 2 && st == PG_ERR_INVALID, "two model plans drawn, both refused (random adapter): %d, %d",
          out.plan_attempts, (int)st);
    pipe_out_free(&out);
    char *plan = test_slurp("tests/gen/two_stage/plan_scale.cu");
    in.plan = plan;
    memset(&out, 0, sizeof out);
    CHECK(pipe_plan(m, tok, &in, &out, &q) == PG_OK && pipe_ptx(m, tok, v, &in, &out, &q) == PG_OK, "the PTX turn of a given plan");
    const char *ptx = out.ptx.ptx ? out.ptx.ptx : "";
    CHECK(strstr(ptx, ".visible .entry scale(\n\t.param .u64 x,") != NULL, "the plan's signature is forced:\n%s", ptx);
    ptx_module *mod = NULL;
    pg_diag_sink q2 = {0};
    CHECK(ptx_parse(ptx, strlen(ptx), "turn", &mod, &q2) == PG_OK && ptx_validate(mod, &q2) == PG_OK, "valid PTX by construction:\n%s", ptx);
    ptx_module_free(mod);
    free(plan);
    pipe_out_free(&out);
done:
    dec_vocab_free(v);
    tok_free(tok);
    model_free(m);
}

/* pipe_draw's wire (a GPU engine's child to its parent): results, diagnostics and the engine's
 * description round-trip; a cut buffer is refused whole. */
static int seen_diags;
static char seen_msg[512];
static void count_diag(void *u, const pg_diag *d) {
    (void)u;
    seen_diags++;
    snprintf(seen_msg, sizeof seen_msg, "%s", d->msg);
}
static void test_draw_wire(void) {
    gen_result in[3] = {{0}};
    in[0].ptx = "// kernel one\n.entry a() { ret; }\n";
    in[0].gen_tokens = 17, in[0].seconds = 0.25, in[0].finished = true, in[0].drafted_by[2] = 5;
    in[2].ptx = "x";
    in[2].cut = true, in[2].forwards = 9;   /* in[1]: no text */
    pg_diag d = {0};
    d.id = PG_E_GPU;
    snprintf(d.msg, sizeof d.msg, "the child said this");
    pipe_draw_head h = {PG_ERR_EXTERNAL, "fake GPU (f16 weights)", 3}, got;
    pg_buf b = {0};
    pipe_draw_encode(&b, &h, &d, 1, in);
    gen_result out[3];
    pg_diag_sink q = {count_diag, NULL, 0, 0, 0};
    CHECK(pipe_draw_decode(b.data, b.len, 3, &got, out, &q), "the wire decodes");
    CHECK(got.st == PG_ERR_EXTERNAL && !strcmp(got.desc, h.desc) && got.n == 3, "the head round-trips");
    CHECK(seen_diags == 1 && !strcmp(seen_msg, "the child said this") && q.nerrors == 1, "the child's diagnostic is re-emitted");
    CHECK(out[0].ptx && !strcmp(out[0].ptx, in[0].ptx) && out[0].gen_tokens == 17 && out[0].seconds == 0.25 && out[0].finished &&
              out[0].drafted_by[2] == 5, "result 0 round-trips");
    CHECK(!out[1].ptx && out[2].ptx && !strcmp(out[2].ptx, "x") && out[2].cut && out[2].forwards == 9, "results 1 and 2 round-trip");
    for (int i = 0; i < 3; i++) gen_result_free(&out[i]);
    for (size_t cut = 0; cut < b.len; cut += 7) CHECK(!pipe_draw_decode(b.data, cut, 3, &got, out, NULL), "a buffer cut at %zu is refused", cut);
    CHECK(!pipe_draw_decode(b.data, b.len, 2, &got, out, NULL), "a count that differs is refused");
    pg_buf_free(&b);
}

/* pipe_draw's request (the parent to the GPU engine's child): the kind, k, the options and every
 * string round-trip (NULL stays NULL, "" stays ""); a cut buffer is refused. */
static void test_draw_request(void) {
    gen_opts o;
    gen_opts_default(&o);
    o.signature = ".visible .entry k(\n)";
    o.entry_name = "";
    o.plan = "extern \"C\" __global__ void k() {}";
    o.draft_max = 8;
    o.sampler.seed = 99;
    o.block[0] = 256;
    pipe_draw_req q = {PIPE_DRAW_K, "add two vectors", NULL, &o, 16}, got;
    pg_buf b = {0};
    pipe_draw_req_encode(&b, &q);
    gen_opts go;
    CHECK(pipe_draw_req_decode(b.data, b.len, &got, &go), "the request decodes");
    CHECK(got.kind == PIPE_DRAW_K && got.k == 16 && got.o == &go && !strcmp(got.text, "add two vectors") && !got.ptx, "kind, k, text");
    CHECK(!strcmp(go.arch, "sm_80") && !strcmp(go.signature, o.signature) && !strcmp(go.entry_name, "") && !strcmp(go.plan, o.plan) &&
              !go.prompt && !go.draft_ref && !go.baseline_ptx, "the options' strings");
    CHECK(go.draft_max == 8 && go.sampler.seed == 99 && go.block[0] == 256 && go.constrained && go.max_tokens == o.max_tokens, "the options' values");
    for (size_t cut = 0; cut < b.len; cut += 5) CHECK(!pipe_draw_req_decode(b.data, cut, &got, &go), "a request cut at %zu is refused", cut);
    pg_buf_free(&b);
}

/* A candidate that reads a register before any write never passes (pipe_verify -> unwritten), and
 * a retry after a failed check draws hotter (pipe_retry_temperature). */
static void test_verdict_unwritten(void) {
    const char *tmpl =
        ".version 8.0\n.target sm_80\n.address_size 64\n"
        ".visible .entry saxpy(.param .u64 x, .param .u64 y, .param .f32 a)\n{\n"
        "  .reg .b32 %r<2>;\n  .reg .f32 %f<5>;\n  .reg .b64 %rd<6>;\n"
        "  ld.param.u64 %rd1, [x];\n  ld.param.u64 %rd2, [y];\n  ld.param.f32 %f1, [a];\n"
        "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd3, %r1, 4;\n  add.s64 %rd4, %rd1, %rd3;\n"
        "  ld.global.f32 %f2, [%rd4];\n  add.s64 %rd5, %rd2, %rd3;\n";
    const char *tail = "  fma.rn.f32 %f4, %f1, %f2, %f3;\n  st.global.f32 [%rd5], %f4;\n  ret;\n}\n";
    char path[] = "/tmp/ptxgen-unwritten-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "temp file");
    if (fd < 0) return;
    close(fd);
    for (int with_load = 0; with_load < 2; with_load++) {
        char text[2048];
        snprintf(text, sizeof text, "%s%s%s", tmpl, with_load ? "  ld.global.f32 %f3, [%rd5];\n" : "", tail);
        FILE *f = fopen(path, "w");
        CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "write %s", path);
        pipe_verdict v;
        pipe_verify(text, path, "sm_80", NULL, 0, false, NULL, &v);
        CHECK(!strcmp(v.check, "pass"), "the validator takes it (%s)", v.why);
        if (with_load) {
            CHECK(!v.unwritten[0] && pipe_passed(&v, 0), "with y loaded: passes (unwritten '%s')", v.unwritten);
        } else {
            CHECK(!strcmp(v.unwritten, "%f3 in saxpy") && !pipe_passed(&v, 0) && strstr(v.why, "reads %f3 in saxpy before"),
                  "y never loaded: refused (unwritten '%s', why '%s')", v.unwritten, v.why);
        }
    }
    unlink(path);
    CHECK(pipe_retry_temperature(0.3f, 1) == 0.3f && fabsf(pipe_retry_temperature(0.3f, 2) - 0.5f) < 1e-6f &&
              fabsf(pipe_retry_temperature(0.3f, 4) - 0.9f) < 1e-6f && pipe_retry_temperature(0.3f, 9) == 1.0f,
          "retries at 0.3 draw at 0.3, 0.5, ..., at most 1.0");
    CHECK(pipe_retry_temperature(0, 3) == 0 && pipe_retry_temperature(1.5f, 3) == 1.5f, "greedy and t >= 1 stay");
}

/* The same kernel is verified once (pipe_same_kernel, pipe_select): comment and blank lines do not
 * make a new kernel; greedy best-of-3 draws three copies of one kernel from the 15M models/default,
 * ptxas runs once (counted by a $PTXAS wrapper), the copies reuse its verdict, and the kept
 * candidate and its verdict are best-of-1's. */
static void test_same_kernel(void) {
    const char *k = "// GENERATED_BY: ptxgen m\n.version 8.0\n.visible .entry k()\n{\n\tret;\n}\n";
    CHECK(pipe_same_kernel(k, k), "a kernel is itself");
    CHECK(pipe_same_kernel(k, ".version 8.0\n\n.visible .entry k()\n{\n\t// y = x\n  \t//\n\tret;\n}"),
          "whole-line comments, blank lines and the last newline do not count");
    CHECK(!pipe_same_kernel(k, ".version 8.0\n.visible .entry k()\n{\n\tret; // done\n}\n"), "a comment after an instruction counts");
    CHECK(!pipe_same_kernel(k, ".version 8.0\n.visible .entry k()\n{\n\tret;\n\tret;\n}\n"), "an extra instruction");
    CHECK(!pipe_same_kernel(k, ".version 8.0\n.visible .entry k()\n{\n\tret;\n"), "a shorter kernel");
    CHECK(!pipe_same_kernel(k, ".version 8.0\n.visible .entry k()\n{\n  ret;\n}\n"), "indentation of an instruction counts");

    char real[1024];
    if (!ptx_ptxas_find(real, sizeof real)) {
        printf("SKIPPED: the same-kernel selection (no ptxas)\n");
        return;
    }
    char dir[] = "/tmp/ptxgen-same-kernel-XXXXXX";
    if (!mkdtemp(dir)) { CHECK(false, "temp dir"); return; }
    char wrap[600], count[600];
    snprintf(wrap, sizeof wrap, "%s/ptxas", dir);
    snprintf(count, sizeof count, "%s/runs", dir);
    FILE *f = fopen(wrap, "w");
    CHECK(f && fprintf(f, "#!/bin/sh\necho run >> '%s'\nexec '%s' \"$@\"\n", count, real) > 0 && fclose(f) == 0, "write the wrapper");
    chmod(wrap, 0755);
    char *old = getenv("PTXAS") ? strdup(getenv("PTXAS")) : NULL;
    setenv("PTXAS", wrap, 1);

    model_model *m = NULL;
    tok_tokenizer *tok = NULL;
    dec_vocab *v = NULL;
    pg_diag_sink q = {0};
    pipe_select_out a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    if (!load_model("models/default", &m, &tok, &v, &q)) {
        CHECK(false, "models/default loads (%d errors)", q.nerrors);
        goto done;
    }
    gen_opts o;
    gen_opts_default(&o);
    o.format = gen_prompt_fmt_of(tok);
    o.sampler.temperature = 0;   /* greedy: every candidate is the same kernel */
    o.max_tokens = 400;
    uint64_t seed0 = o.sampler.seed;
    pipe_select_in in = {"add two float vectors", NULL, 3, 1, true, dir, NULL};
    CHECK(pipe_select(m, tok, v, &o, &in, &a, NULL, &q) == PG_OK && a.nattempts == 3, "best-of-3 ran (%d attempts)", a.nattempts);
    char *runs = test_slurp(count);
    int n = 0;
    for (const char *p = runs ? runs : ""; (p = strstr(p, "run")); p += 3) n++;
    free(runs);
    CHECK(a.bestv.fr.ptxas_ran && n == 1 && a.nverified == 1, "ptxas ran once for three copies (%d runs, %d verified; %s: %s)", n,
          a.nverified, a.bestv.fr.stage, a.bestv.why);
    CHECK(a.nattempts == 3 && !a.attempts[0].same_as && a.attempts[1].same_as == 1 && a.attempts[2].same_as == 1 &&
              a.attempts[1].fr.ptxas_s == 0 && a.attempts[0].fr.ptxas_s > 0,
          "attempts 2 and 3 are attempt 1's kernel, nothing run for them");
    CHECK(a.best_attempt == 1, "the earliest of equals is kept (attempt %d)", a.best_attempt);
    o.sampler.seed = seed0;
    in.samples = 1;
    CHECK(pipe_select(m, tok, v, &o, &in, &b, NULL, &q) == PG_OK && b.best.ptx && a.best.ptx, "best-of-1 ran");
    if (a.best.ptx && b.best.ptx)
        CHECK(!strcmp(a.best.ptx, b.best.ptx) && !strcmp(a.bestv.check, b.bestv.check) && !strcmp(a.bestv.ptxas, b.bestv.ptxas) &&
                  !strcmp(a.bestv.gpu, b.bestv.gpu) && a.bestv.registers == b.bestv.registers && a.passed == b.passed,
              "best-of-3 of one kernel keeps best-of-1's candidate and verdict (%s/%s vs %s/%s)", a.bestv.check, a.bestv.ptxas,
              b.bestv.check, b.bestv.ptxas);
done:
    pipe_select_out_free(&a);
    pipe_select_out_free(&b);
    dec_vocab_free(v);
    tok_free(tok);
    model_free(m);
    if (old) { setenv("PTXAS", old, 1); free(old); }
    else unsetenv("PTXAS");
    unlink(count);
    unlink(wrap);
    rmdir(dir);
}

/* pipe_plan_gpu_judge: which verdicts redraw a plan (wrong values, a fault, a hang, a module that does
 * not load) and which say nothing about it (no GPU, the validator, ptxas, the task's setup). */
static pipe_verdict judged(const char *check, const char *ptxas, const char *gpu, bool ran, const char *status, const char *stage) {
    pipe_verdict v;
    memset(&v, 0, sizeof v);
    v.check = check;
    v.ptxas = ptxas;
    v.gpu = gpu;
    v.fr.gpu_ran = ran;
    v.fr.gpu_status = status;
    v.fr.stage = stage;
    v.fr.gpu_sets = 90;
    snprintf(v.fr.detail, sizeof v.fr.detail, "detail of %s", stage);
    return v;
}
static void test_plan_gpu_judge(void) {
    char why[400];
    pipe_verdict v = judged("pass", "pass", "pass", true, "ok", "correct");
    CHECK(pipe_plan_gpu_judge(&v, why, sizeof why) == PIPE_PLAN_GPU_RIGHT && strstr(why, "90 input sets"), "correct: right (%s)", why);
    const char *wrong[][2] = {{"wrong", "wrong"}, {"fault", "fault"}, {"timeout", "timeout"}, {"load-error", "load"}};
    for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++) {
        v = judged("pass", "pass", "fail", true, wrong[i][0], wrong[i][1]);
        CHECK(pipe_plan_gpu_judge(&v, why, sizeof why) == PIPE_PLAN_GPU_WRONG && strstr(why, wrong[i][1]) && strstr(why, "detail of"),
              "%s: wrong, drawn again (%s)", wrong[i][0], why);
    }
    v = judged("pass", "pass", "fail", true, "setup-error", "load");
    CHECK(pipe_plan_gpu_judge(&v, why, sizeof why) == PIPE_PLAN_GPU_UNSETTLED, "the task's setup failed: unsettled (%s)", why);
    v = judged("pass", "pass", "fail", true, "no-gpu", "load");
    CHECK(pipe_plan_gpu_judge(&v, why, sizeof why) == PIPE_PLAN_GPU_UNSETTLED, "no GPU in the harness: unsettled (%s)", why);
    v = judged("pass", "pass", "not run", false, NULL, "gpu-not-run");
    CHECK(pipe_plan_gpu_judge(&v, why, sizeof why) == PIPE_PLAN_GPU_UNSETTLED, "the GPU did not run: unsettled (%s)", why);
    v = judged("fail", "not run", "not run", false, NULL, "validator");
    CHECK(pipe_plan_gpu_judge(&v, why, sizeof why) == PIPE_PLAN_GPU_UNSETTLED && strstr(why, "validator"), "validator: unsettled (%s)", why);
    v = judged("pass", "fail", "not run", false, NULL, "ptxas");
    CHECK(pipe_plan_gpu_judge(&v, why, sizeof why) == PIPE_PLAN_GPU_UNSETTLED && strstr(why, "ptxas refuses"), "ptxas: unsettled (%s)", why);
}

/* The plans' GPU check (pipe_in.gpu_check) on bench/suite/ew_silu, plans from a list instead of the
 * model (pipe_plan_from).  WRONG computes a + 0.5 where silu is wanted (and names fakecuda_wrong, which
 * tests/gpu/fakecuda.c -DFAKECUDA_HARNESS runs wrong: nvcc's PTX is otherwise its right baseline);
 * RIGHT is silu, 4 elements a thread as the task launches it.  Without a GPU (here, make test) the old
 * path runs: the first plan nvcc compiles is kept, nothing ran, the note says so.  With one (the stand-in,
 * tests/gpu_engine_fake.sh, or a real GPU): WRONG is drawn again and RIGHT kept; two wrong plans keep the
 * last with a warning; a given wrong plan is kept with a warning; gpu_check off runs nothing. */
static const char *plan_wrong_src =
    "// ew_silu, wrong on purpose: out[i] = a[i] + 0.5\n"
    "__device__ int fakecuda_wrong;\n"
    "extern \"C\" __global__ void ew_silu(const float* __restrict__ a, float* __restrict__ out, unsigned int n)\n"
    "{\n    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) out[i] = a[i] + 0.5f;\n}\n";
static const char *plan_right_src =
    "// ew_silu: out[i] = a[i] * sigmoid(a[i]), 4 consecutive elements per thread\n"
    "extern \"C\" __global__ void ew_silu(const float* __restrict__ a, float* __restrict__ out, unsigned int n)\n"
    "{\n    unsigned int i0 = 4u * (blockIdx.x * blockDim.x + threadIdx.x);\n"
    "    for (unsigned int j = 0; j < 4; j++) {\n        unsigned int i = i0 + j;\n"
    "        if (i < n) out[i] = a[i] / (1.0f + expf(-a[i]));\n    }\n}\n";
typedef struct { const char *const *plans; int n, asked; } plan_list;
static bool next_plan(void *user, int k, pg_buf *plan) {
    plan_list *l = user;
    l->asked++;
    if (k >= l->n) return false;
    pg_buf_puts(plan, l->plans[k]);
    return true;
}
static void run_plans(pipe_in *in, const char *const *plans, int n, pipe_out *out, pg_status *st) {
    plan_list l = {plans, n, 0};
    memset(out, 0, sizeof *out);
    pg_diag_sink q = {test_diag_capture, NULL, 0, 0, 10};
    test_diag_log()[0] = 0;
    *st = pipe_plan_from(next_plan, &l, in, out, &q);
}
static void test_plan_gpu(void) {
    if (!have_nvcc()) { printf("SKIPPED: nvcc not found; the plans' GPU check needs nvcc's PTX of them\n"); return; }
    task_spec *t = NULL;
    pg_diag_sink q = {0};
    CHECK(task_load("bench/suite/ew_silu/task.json", &t, &q) == PG_OK, "ew_silu loads");
    if (!t) return;
    pipe_in in;
    chatml_in(&in);
    in.request = "silu";
    in.task = t;
    in.plan_samples = 2;
    in.gpu_check = true;
    char why[256];
    bool gpu = gpu_available(why, sizeof why);
    const char *wr[] = {plan_wrong_src, plan_right_src}, *ww[] = {plan_wrong_src, plan_wrong_src};
    pipe_out out;
    pg_status st;
    run_plans(&in, wr, 2, &out, &st);
    if (!gpu) {
        CHECK(st == PG_OK && out.plan && !strcmp(out.plan, plan_wrong_src) && out.plan_attempts == 1, "no GPU: the first plan nvcc compiles is kept (%d attempts)",
              out.plan_attempts);
        CHECK(out.plan_gpu_checked == 0 && out.plan_gpu_wrong == 0 && !strcmp(out.plan_gpu, "not run") &&
                  strstr(out.plan_gpu_note, "the plan was not run on the GPU: no GPU ("),
              "no GPU: nothing ran, the note says so: %s", out.plan_gpu_note);
        pipe_out_free(&out);
        printf("SKIPPED: no GPU (%s): a wrong plan drawn again is checked under tests/gpu/fakecuda.c (tests/gpu_engine_fake.sh)\n", why);
    } else {
        CHECK(st == PG_OK && out.plan && !strcmp(out.plan, plan_right_src) && out.plan_attempts == 2, "the wrong plan is drawn again, the right one kept (%d attempts, %s)",
              out.plan_attempts, test_diag_log());
        CHECK(out.plan_gpu_checked == 2 && out.plan_gpu_wrong == 1 && !strcmp(out.plan_gpu, "pass") && !out.plan_gpu_note[0] && !out.plan_note[0],
              "two plans ran, one wrong, the kept one right: %d, %d, %s, '%s'", out.plan_gpu_checked, out.plan_gpu_wrong, out.plan_gpu,
              out.plan_gpu_note);
        CHECK(out.kernel && !strcmp(out.kernel, "ew_silu") && out.nvcc_ran, "the kept plan's kernel");
        pipe_out_free(&out);
        /* no plan runs right: the last one nvcc compiled is kept, with a warning, not an error */
        run_plans(&in, ww, 2, &out, &st);
        CHECK(st == PG_OK && out.plan && !strcmp(out.plan, plan_wrong_src) && out.plan_attempts == 2 && out.plan_gpu_checked == 2 &&
                  out.plan_gpu_wrong == 2 && !strcmp(out.plan_gpu, "fail") && strstr(out.plan_gpu_note, "no plan ran right on the GPU (2 of 2 ran wrong)") &&
                  strstr(out.plan_gpu_note, "wrong: "),
              "two wrong plans: the last kept with a warning (%d, %d, %s): %s", out.plan_gpu_checked, out.plan_gpu_wrong, out.plan_gpu,
              out.plan_gpu_note);
        pipe_out_free(&out);
        /* a given plan that runs wrong: kept, never replaced, with a warning */
        in.plan = plan_wrong_src;
        run_plans(&in, wr, 2, &out, &st);
        CHECK(st == PG_OK && out.plan && !strcmp(out.plan, plan_wrong_src) && out.plan_attempts == 0 && out.plan_gpu_checked == 1 &&
                  out.plan_gpu_wrong == 1 && !strcmp(out.plan_gpu, "fail") && strstr(out.plan_gpu_note, "the given plan ran wrong on the GPU"),
              "a given wrong plan: kept, with a warning (%d attempts): %s", out.plan_attempts, out.plan_gpu_note);
        pipe_out_free(&out);
        in.plan = NULL;
    }
    /* gpu_check off (--no-plan-check, or no --verify gpu): nothing runs, the first compiled plan is kept */
    in.gpu_check = false;
    run_plans(&in, wr, 2, &out, &st);
    CHECK(st == PG_OK && out.plan && !strcmp(out.plan, plan_wrong_src) && out.plan_attempts == 1 && out.plan_gpu_checked == 0 &&
              !strcmp(out.plan_gpu, "not run") && !out.plan_gpu_note[0],
          "gpu_check off: the first compiled plan, nothing run (%d attempts, '%s')", out.plan_attempts, out.plan_gpu_note);
    pipe_out_free(&out);
    /* without a task there is no reference to run against: nothing runs */
    in.gpu_check = true;
    in.task = NULL;
    run_plans(&in, wr, 2, &out, &st);
    CHECK(st == PG_OK && out.plan_attempts == 1 && out.plan_gpu_checked == 0 && !out.plan_gpu_note[0], "no task: nothing run");
    pipe_out_free(&out);
    task_free(t);
}

/* One memo for the plans' checks and the candidates' (pipe_in.memo: gen's, its input sets prepared ahead),
 * on a copy of ew_silu with its four small sizes: a given plan that runs wrong (fakecuda_wrong) or traps
 * (fakecuda_trap, tests/gpu/fakecuda.c) leaves the candidates' checks sound.  The candidate after it (nvcc's PTX
 * of the right plan with its NVVM marks hidden, so the stand-in takes it for a candidate: "c", right) is
 * correct and timed, in the worker the wrong plan ran in (no CUDA start) or in a fresh one after the trap
 * (one); and every input set is built once, by the memo's preparation: none by the plan's check or the
 * candidate's.  Without a memo (PTXGEN_GPU_MEMO=0's path, pipe_in.memo NULL) the stage still checks. */
static const char *plan_trap_src =
    "// ew_silu that traps on the stand-in (names fakecuda_trap)\n"
    "__device__ int fakecuda_trap;\n"
    "extern \"C\" __global__ void ew_silu(const float* __restrict__ a, float* __restrict__ out, unsigned int n)\n"
    "{\n    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) out[i] = a[i] / (1.0f + expf(-a[i]));\n}\n";
static void test_plan_gpu_memo(void) {
    char why[256];
    if (!have_nvcc() || !gpu_available(why, sizeof why)) {
        printf("SKIPPED: %s: one memo for plans and candidates is checked under tests/gpu/fakecuda.c (tests/gpu_engine_fake.sh)\n",
               have_nvcc() ? why : "nvcc not found");
        return;
    }
    char dir[512], path[700];
    pg_tmp_path(dir, sizeof dir, "ptxgen-test-memo-XXXXXX");
    if (!mkdtemp(dir)) { CHECK(false, "a temp folder"); return; }
    pg_diag_sink q = {0};
    /* the task: bench/suite/ew_silu with its sizes from 65537 down (60 input sets) */
    char *tj = test_slurp("bench/suite/ew_silu/task.json"), *ref = test_slurp("bench/suite/ew_silu/reference.cu");
    char *small = tj ? test_replace(tj, "{\"n\": 8388608, \"time\": true}, {\"n\": 999999}, {\"n\": 65537}", "{\"n\": 65537, \"time\": true}") : NULL;
    task_spec *t = NULL;
    snprintf(path, sizeof path, "%s/reference.cu", dir);
    bool ok = small && ref && pg_write_file_atomic(path, ref, strlen(ref), &q) == PG_OK;
    snprintf(path, sizeof path, "%s/task.json", dir);
    ok = ok && pg_write_file_atomic(path, small, strlen(small), &q) == PG_OK && task_load(path, &t, &q) == PG_OK;
    CHECK(ok && t && t->nsizes == 4, "ew_silu with four sizes loads (%d errors)", q.nerrors);
    /* the candidate: nvcc's PTX of the right plan, "NVVM" hidden */
    twin_build b;
    memset(&b, 0, sizeof b);
    snprintf(path, sizeof path, "%s/right.cu", dir);
    ok = ok && pg_write_file_atomic(path, plan_right_src, strlen(plan_right_src), &q) == PG_OK && twin_compile(path, "sm_80", &b, &q) == PG_OK &&
         b.status == TWIN_BUILD_OK && b.ptx;
    unlink(path);
    char *cand = ok ? strdup(b.ptx) : NULL;
    for (char *p = cand; p && (p = strstr(p, "NVVM"));) memcpy(p, "nvvm", 4);
    char cpath[700];
    snprintf(cpath, sizeof cpath, "%s/cand.ptx", dir);
    ok = ok && cand && pg_write_file_atomic(cpath, cand, strlen(cand), &q) == PG_OK;
    CHECK(ok, "the candidate's PTX (%d errors)", q.nerrors);
    const char *plans[] = {plan_wrong_src, plan_trap_src};
    for (int k = 0; ok && k < 2; k++) {
        gpu_memo *memo = gpu_memo_new();
        gpu_run_opts ro;
        gpu_run_opts_default(&ro);
        gpu_memo_prepare(memo, t, &ro, 1);   /* as gen does when it has loaded the task */
        pipe_in in;
        chatml_in(&in);
        in.request = "silu";
        in.task = t;
        in.plan = plans[k];
        in.gpu_check = true;
        in.memo = memo;
        pipe_out out;
        pg_status st;
        run_plans(&in, NULL, 0, &out, &st);
        const char *what = k ? "a trapping plan" : "a wrong plan";
        CHECK(st == PG_OK && out.plan_gpu_checked == 1 && out.plan_gpu_wrong == 1 && !strcmp(out.plan_gpu, "fail") &&
                  strstr(out.plan_gpu_note, k ? "fault" : "wrong"),
              "%s given: kept with a warning (%d, %d): %s", what, out.plan_gpu_checked, out.plan_gpu_wrong, out.plan_gpu_note);
        CHECK(out.plan_gpu_cuda_starts == 1 && out.plan_gpu_refs == 0, "%s: one CUDA start, no set built by its check (%d, %d)", what,
              out.plan_gpu_cuda_starts, out.plan_gpu_refs);
        pipe_verdict v;
        pipe_verify(cand, cpath, "sm_80", t, 2, true, memo, &v);
        CHECK(!strcmp(v.gpu, "pass") && v.fr.stage && !strcmp(v.fr.stage, "timed") && v.fr.speedup > 0,
              "after %s the candidate is right and timed: %s %s (%s)", what, v.gpu, v.fr.stage ? v.fr.stage : "?", v.why);
        CHECK(v.fr.gpu_cuda_starts == k && v.fr.gpu_refs == 0 && v.fr.gpu_baseline_runs == 1,
              "after %s: %d CUDA start(s) for the candidate (want %d: %s), %d sets built, %d baseline runs", what, v.fr.gpu_cuda_starts, k,
              k ? "the trap retired the plan's worker" : "the plan's worker goes on", v.fr.gpu_refs, v.fr.gpu_baseline_runs);
        gpu_prep_stats ps;
        gpu_memo_prep_stats(memo, true, &ps);
        CHECK(!strcmp(ps.state, "done") && ps.sets == 60 && ps.total == 60, "after %s: every input set built once, by the preparation (%s, %d of %d)",
              what, ps.state, ps.sets, ps.total);
        pipe_out_free(&out);
        gpu_memo_free(memo);
    }
    /* no memo (PTXGEN_GPU_MEMO=0): the stage checks with none of its own, asking every time */
    if (ok) {
        setenv("PTXGEN_GPU_MEMO", "0", 1);
        pipe_in in;
        chatml_in(&in);
        in.request = "silu";
        in.task = t;
        in.plan = plan_wrong_src;
        in.gpu_check = true;
        pipe_out out;
        pg_status st;
        run_plans(&in, NULL, 0, &out, &st);
        CHECK(st == PG_OK && out.plan_gpu_checked == 1 && out.plan_gpu_wrong == 1 && out.plan_gpu_cuda_starts == 1 && out.plan_gpu_refs > 0,
              "PTXGEN_GPU_MEMO=0: the plan checked in a process of its own, which built its sets (%d, %d, %d, %d)", out.plan_gpu_checked,
              out.plan_gpu_wrong, out.plan_gpu_cuda_starts, out.plan_gpu_refs);
        pipe_out_free(&out);
        unsetenv("PTXGEN_GPU_MEMO");
    }
    twin_build_free(&b);
    free(cand);
    unlink(cpath);
    snprintf(path, sizeof path, "%s/task.json", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/reference.cu", dir);
    unlink(path);
    rmdir(dir);
    task_free(t);
    free(tj);
    free(ref);
    free(small);
}

int main(void) {
    if (getenv("FAKECUDA_TASK_KERNEL")) {   /* under tests/gpu/fakecuda.c (tests/gpu_engine_fake.sh): its tests alone */
        test_plan_gpu();
        test_plan_gpu_memo();
        printf("%d passed, %d failed\n", t_pass, t_fail);
        return t_fail != 0;
    }
    test_plan_gpu_judge();
    test_plan_gpu();
    test_plan_gpu_memo();
    test_same_kernel();
    test_verdict_unwritten();
    test_draw_request();
    test_draw_wire();
    test_prompts();
    test_launch();
    test_given_plan();
    test_marker();
    test_with_model();
    printf("%d passed, %d failed\n", t_pass, t_fail);
    return t_fail != 0;
}
