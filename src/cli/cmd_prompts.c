/* cmd_prompts.c — `ptxgen prompts` (a synth dataset in the training format).  The canonical
 * text and the super-optimization pairs are the library's (src/pipeline/pairs.c). */
#include "cli.h"
#include "ptxgen/decode.h"
#include "ptxgen/isa.h"
#include "ptxgen/pipeline.h"
#include "ptxgen/task.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- ptxgen prompts ----------------------------------------------------------- */

static const char *prompts_usage =
    "usage: ptxgen prompts --in SYNTH.jsonl --out PAIRS.jsonl [--format ptxgen|chatml] [--no-signature-pct P]\n"
    "                      [--arch sm_90] [--widen-regs N] [--regs numbered|named|canonical]\n"
    "  One line per sample: {id, family, source, split, description_style, prompt, completion}.  The\n"
    "  prompt is gen_prompt_build_fmt(format, description, arch, signature) (ptxgen: the from-scratch\n"
    "  model's tokens; chatml: the chat template of pretrained chat models); the completion is the\n"
    "  module as `ptxgen fmt` prints it with the forced header for the arch, then the format's end\n"
    "  token (<|end|> or <|im_end|>).  P%% of the\n"
    "  samples (chosen by a hash of the id; default 25) leave the signature line empty so the\n"
    "  model also learns to write the signature itself.  Samples whose PTX does not parse and\n"
    "  validate after the rewrite are counted and dropped, never passed through.\n"
    "  --twin: pairs for the twin turn instead (gen --twin): the prompt is the PTX pair's prompt, the\n"
    "  module and the end token, then the request for the CUDA C twin (gen_prompt_build_twin_fmt); the\n"
    "  completion is the sample's \"cuda_c\" (the CUDA C of nvcc families and the corpus's reference.cu,\n"
    "  which `ptxgen synth` records), then the end token.  Samples without CUDA C are skipped and counted.\n"
    "  Held-out suite tasks stay out exactly as in the synth file (make it with --exclude).\n"
    "  --widen-regs N (1..512): every `.reg .T %x<K>;` with K < N declares N registers, so the\n"
    "  declarations written before the body no longer tell the model how long the body is\n"
    "  (`ptxgen fmt --tighten-regs` undoes it on a generated kernel).\n"
    "  --regs named: the literate samples' registers named after their plan and declared at first use\n"
    "  (ptx_regs_name, docs/LITERATE.md; the A/B's named arm); samples already named stay as they are.\n"
    "  --regs canonical: every sample's numbered registers renumbered from 1 in order of first appearance,\n"
    "  counts tightened (ptx_regs_renumber, docs/LITERATE.md); samples with a \"regs\" style stay as they are.\n"
    "  --stage plan|ptx|both (chatml only; docs/LITERATE.md): pairs of the two-stage model instead.  plan:\n"
    "  request (+ the task's CUDA C signature, except for P%% of the samples) -> the sample's cuda_c;\n"
    "  ptx: request + cuda_c as the plan + the PTX signature -> the module (literate samples keep their\n"
    "  plan comments); both: the two pairs of every sample, each line with \"turn\": \"plan\" or \"ptx\".\n"
    "  Samples without cuda_c are skipped and counted.  Without --stage, plain samples' comments are\n"
    "  dropped and literate samples keep theirs; --plain drops every comment (the single-stage arm of\n"
    "  the A/B: the same kernels without their plan).\n"
    "  --retrieve LIB (with --stage; `ptxgen retrieve build`): the --retrieve-k (2) nearest kernels of the\n"
    "  library, never the sample's own task, go into both turns' prompts (docs/LITERATE.md \"Retrieval\").\n";





static const char *superopt_usage =
    "usage: ptxgen prompts --superopt CORPUS_DIR --results RESULTS.json --out PAIRS.jsonl [--arch sm_90]\n"
    "  Training pairs for the super-optimization mode (`gen --baseline`): for every corpus task whose\n"
    "  hand-written kernel measured faster than nvcc's PTX of its reference.cu on the GPU (RESULTS.json\n"
    "  from `ptxgen run --suite corpus`), the prompt carries nvcc's PTX (<|baseline|>) and the\n"
    "  completion is the faster kernel, with the baseline's parameter names and signature.\n";

static int superopt_pairs(const char *corpus, const char *results, const char *arch, const char *outp) {
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 20};
    json_error_t e;
    json_t *res = json_load_file(results, 0, &e);
    if (!res || !json_is_array(json_object_get(res, "tasks"))) {
        fprintf(stderr, "%s:%d:%d: %s\n", results, e.line, e.column, res ? "no tasks array" : e.text);
        json_decref(res);
        return 2;
    }
    pg_buf all = {0};
    int kept = 0, skipped = 0;
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(res, "tasks"), i, r) {
        const char *name = json_string_value(json_object_get(r, "task"));
        double k = json_number_value(json_object_get(json_object_get(r, "kernel"), "ms_median"));
        double b = json_number_value(json_object_get(json_object_get(r, "baseline_nvcc"), "ms_median"));
        bool ok = json_is_true(json_object_get(json_object_get(r, "kernel"), "correct"));
        if (!name || !ok || k <= 0 || b <= 0 || b / k <= 1.0) { skipped++; continue; }   /* only faster rewrites */
        char why[128];
        if (pipe_superopt_pair(corpus, name, arch, b / k, &all, why, sizeof why, &sink)) {
            kept++;
        } else {
            fprintf(stderr, "prompts: %s skipped%s%s\n", name, why[0] ? ": " : "", why);
            skipped++;
        }
    }
    json_decref(res);
    pg_status st = pg_write_file_atomic(outp, all.data ? all.data : "", all.len, &sink);
    pg_buf_free(&all);
    if (st != PG_OK) return 2;
    fprintf(stderr, "prompts: %d super-optimization pairs -> %s (%d tasks not faster than nvcc or unusable)\n", kept, outp, skipped);
    return 0;
}

int cmd_prompts(int argc, char **argv) {
    const char *in = NULL, *outp = NULL, *arch_override = NULL, *superopt = NULL, *results = NULL;
    int nosig_pct = 25, widen_regs = 0;
    bool named = false, canonical = false;
    bool twin = false;
    long no_twin = 0;
    int stage = 0;   /* 0: the single-stage pair; 1 plan, 2 ptx, 3 both */
    bool plain = false;
    const char *retr_path = NULL;
    int retr_k = 2;
    gen_prompt_fmt fmt = GEN_FMT_PTXGEN;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--format") && i + 1 < argc) {
            if (!gen_prompt_fmt_parse(argv[++i], &fmt)) {
                fprintf(stderr, "ptxgen prompts: --format '%s': expected ptxgen or chatml\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--superopt") && i + 1 < argc) superopt = argv[++i];
        else if (!strcmp(argv[i], "--results") && i + 1 < argc) results = argv[++i];
        else if (!strcmp(argv[i], "--twin")) twin = true;
        else if (!strcmp(argv[i], "--plain")) plain = true;
        else if (!strcmp(argv[i], "--stage") && i + 1 < argc) {
            const char *v = argv[++i];
            stage = !strcmp(v, "plan") ? 1 : !strcmp(v, "ptx") ? 2 : !strcmp(v, "both") ? 3 : -1;
            if (stage < 0) { fprintf(stderr, "ptxgen prompts: --stage '%s': expected plan, ptx or both\n", v); return 2; }
        }
        else if (!strcmp(argv[i], "--retrieve") && i + 1 < argc) retr_path = argv[++i];
        else if (!strcmp(argv[i], "--retrieve-k") && i + 1 < argc) {
            if (!cli_int_arg("prompts", "--retrieve-k", argv[++i], 1, 8, &retr_k)) return 2;
        }
        else if (!strcmp(argv[i], "--in") && i + 1 < argc) in = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) outp = argv[++i];
        else if (!strcmp(argv[i], "--arch") && i + 1 < argc) arch_override = argv[++i];
        else if (!strcmp(argv[i], "--no-signature-pct") && i + 1 < argc) nosig_pct = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--widen-regs") && i + 1 < argc) {
            if (!cli_int_arg("prompts", "--widen-regs", argv[++i], 1, 512, &widen_regs)) return 2;
        }
        else if (!strcmp(argv[i], "--regs") && i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(v, "named") && strcmp(v, "numbered") && strcmp(v, "canonical")) {
                cli_usage_error("prompts", "--regs takes numbered, named or canonical");
                return 2;
            }
            named = !strcmp(v, "named");
            canonical = !strcmp(v, "canonical");
        }
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { printf("%s%s", prompts_usage, superopt_usage); return 0; }
        else { cli_usage_error("prompts", "unknown or incomplete option '%s'", argv[i]); return 2; }
    }
    int sm;
    bool as, fam;
    if (arch_override && !isa_parse_target(arch_override, &sm, &as, &fam)) {   /* it would be written into every prompt */
        fprintf(stderr, "ptxgen prompts: --arch %s is not a known target (sm_50 ... sm_120a)\n", arch_override);
        return 2;
    }
    if (superopt) {
        if (!results || !outp) { cli_usage_error("prompts", "--superopt needs --results R.json and --out F.jsonl"); return 2; }
        return superopt_pairs(superopt, results, arch_override ? arch_override : "sm_90", outp);
    }
    if (!in || !outp) { cli_usage_error("prompts", "need --in SYNTH.jsonl and --out PAIRS.jsonl"); return 2; }
    if (named && widen_regs) { cli_usage_error("prompts", "--regs named declares no counts for --widen-regs"); return 2; }
    if (canonical && widen_regs) { cli_usage_error("prompts", "--regs canonical tightens the counts: no --widen-regs"); return 2; }
    if (nosig_pct < 0 || nosig_pct > 100) { cli_usage_error("prompts", "--no-signature-pct wants 0 to 100, not %d", nosig_pct); return 2; }
    if (stage && (twin || fmt != GEN_FMT_CHATML)) {
        cli_usage_error("prompts", "--stage needs --format chatml (the two-stage model is a chat model) and no --twin");
        return 2;
    }
    pg_diag_sink osink = {cli_print_diag, NULL, 0, 0, 10};
    if (retr_path && !stage) return cli_usage_error("prompts", "--retrieve goes with --stage (the two-stage model's prompts)");
    gen_retr *retr = NULL;
    if (retr_path && gen_retr_load(retr_path, &retr, &osink) != PG_OK) return 2;
    FILE *f = fopen(in, "r");
    if (!f) { fprintf(stderr, "ptxgen prompts: %s: %s\n", in, strerror(errno)); gen_retr_free(retr); return 2; }
    struct stat si, so;
    if (fstat(fileno(f), &si) == 0 && stat(outp, &so) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino && S_ISREG(so.st_mode)) {
        fprintf(stderr, "ptxgen prompts: --out %s is the input file: it would be overwritten; name another file\n", outp);
        fclose(f);
        gen_retr_free(retr);
        return 2;
    }
    pg_out *po;
    if (pg_out_open(outp, 0, &po, &osink) != PG_OK) { fclose(f); gen_retr_free(retr); return 2; }
    FILE *o = pg_out_stream(po);
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, kept = 0, dropped = 0, bad = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (n <= 1) continue;
        json_error_t e;
        json_t *r = json_loads(line, 0, &e);
        const char *id = r ? json_string_value(json_object_get(r, "id")) : NULL;
        const char *desc = r ? json_string_value(json_object_get(r, "description")) : NULL;
        const char *ptx = r ? json_string_value(json_object_get(r, "ptx_code")) : NULL;
        const char *arch = arch_override ? arch_override : r ? json_string_value(json_object_get(r, "arch")) : NULL;
        if (!id || !desc || !ptx) {
            fprintf(stderr, "%s:%ld: %s\n", in, lineno, r ? "missing id, description or ptx_code" : e.text);
            bad++;
            json_decref(r);
            continue;
        }
        if (!arch) arch = "sm_80";
        const char *cuda_c = json_string_value(json_object_get(r, "cuda_c"));
        if ((twin || stage) && !cuda_c) { no_twin++; json_decref(r); continue; }
        const char *sfmt = json_string_value(json_object_get(r, "format"));
        bool literate = sfmt && !strcmp(sfmt, "literate") && !plain;
        pg_buf canon = {0}, sig = {0}, prompt = {0}, completion = {0};
        char why[128];
        pg_buf renamed = {0};
        if (named && literate && cuda_c && !json_string_value(json_object_get(r, "regs"))) {
            /* the named arm: the same sample with its registers named after its plan */
            ptx_module *nm = NULL;
            pg_diag_sink nq = {0};
            if (ptx_parse(ptx, strlen(ptx), id, &nm, &nq) == PG_OK && ptx_regs_name(nm, cuda_c, strlen(cuda_c), &nq) == PG_OK) {
                ptx_print(nm, &renamed);
                ptx = renamed.data;
            }
            ptx_module_free(nm);
        } else if (canonical && !json_string_value(json_object_get(r, "regs"))) {
            /* the canonical style: registers numbered in order of first appearance */
            ptx_module *nm = NULL;
            pg_diag_sink nq = {0};
            if (ptx_parse(ptx, strlen(ptx), id, &nm, &nq) == PG_OK && ptx_validate(nm, &nq) == PG_OK && ptx_regs_renumber(nm) == PG_OK) {
                ptx_print(nm, &renamed);
                ptx = renamed.data;
            }
            ptx_module_free(nm);
        }
        if (!pipe_canonical_ptx(ptx, arch, widen_regs, literate, &canon, why, sizeof why)) {
            fprintf(stderr, "%s:%ld: sample %s dropped: %s\n", in, lineno, id, why);
            dropped++;
        } else if (stage) {
            bool with_sig = (int)(pg_hash64_add(PG_HASH64_INIT_SHORT, id, strlen(id)) % 100) >= nosig_pct;
            if (!gen_signature_from_module(canon.data, &sig)) {
                fprintf(stderr, "%s:%ld: sample %s dropped: no entry signature\n", in, lineno, id);
                dropped++;
            } else {
                pg_buf lines = {0};
                char note[200] = "";
                pipe_stage_in sp = {.sample = r, .id = id, .request = desc, .arch = arch, .plan = cuda_c, .signature = sig.data,
                                    .module = canon.data, .with_signature = with_sig, .stage = stage, .retr = retr, .retr_k = retr_k};
                kept += pipe_stage_pairs(&sp, &lines, note, sizeof note);
                if (note[0]) fprintf(stderr, "%s:%ld: sample %s: %s\n", in, lineno, id, note);
                if (lines.len) fputs(lines.data, o);
                pg_buf_free(&lines);
            }
        } else {
            bool with_sig = (int)(pg_hash64_add(PG_HASH64_INIT_SHORT, id, strlen(id)) % 100) >= nosig_pct;
            if (with_sig && !gen_signature_from_module(canon.data, &sig)) with_sig = false;
            if (twin) {   /* description + PTX -> the CUDA C twin */
                gen_prompt_build_twin_fmt(fmt, desc, arch, with_sig ? sig.data : "", canon.data, &prompt);
                pg_buf_puts(&completion, cuda_c);
                while (completion.len && (completion.data[completion.len - 1] == '\n' || completion.data[completion.len - 1] == ' '))
                    completion.data[--completion.len] = 0;
                pg_buf_puts(&completion, "\n");
            } else {
                gen_prompt_build_fmt(fmt, desc, arch, with_sig ? sig.data : "", &prompt);
                pg_buf_puts(&completion, canon.data);
            }
            pg_buf_puts(&completion, gen_end_token(fmt));
            json_t *j = json_pack("{s:s, s:s?, s:s?, s:s?, s:s?, s:s, s:s}", "id", id,
                                  "family", json_string_value(json_object_get(r, "family")),
                                  "source", json_string_value(json_object_get(r, "source")),
                                  "split", json_string_value(json_object_get(r, "split")),
                                  "description_style", json_string_value(json_object_get(r, "description_style")),
                                  "prompt", prompt.data, "completion", completion.data);
            if (twin) json_object_set_new(j, "turn", json_string("twin"));
            char *s = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII);
            fprintf(o, "%s\n", s);
            free(s);
            json_decref(j);
            kept++;
        }
        pg_buf_free(&canon); pg_buf_free(&sig); pg_buf_free(&prompt); pg_buf_free(&completion); pg_buf_free(&renamed);
        json_decref(r);
    }
    free(line);
    bool rerr = ferror(f) != 0;
    fclose(f);
    gen_retr_free(retr);
    if (rerr) { fprintf(stderr, "ptxgen prompts: %s: read error\n", in); pg_out_discard(po); return 2; }
    if (pg_out_close(po, &osink) != PG_OK) return 2;
    if (twin || stage)
        fprintf(stderr, "prompts: %ld %s pairs -> %s (%ld samples without CUDA C skipped, %ld dropped, %ld malformed lines)\n",
                kept, twin ? "twin" : stage == 1 ? "plan" : stage == 2 ? "ptx" : "plan+ptx", outp, no_twin, dropped, bad);
    else
        fprintf(stderr, "prompts: %ld pairs -> %s (%ld dropped, %ld malformed lines)\n", kept, outp, dropped, bad);
    return bad ? 1 : 0;
}


