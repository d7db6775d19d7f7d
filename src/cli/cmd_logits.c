/* cmd_logits.c — `ptxgen logits` (run the C engine and print logits, for cross-checks
 * against PyTorch and transformers). */
#include "cli.h"
#include "ptxgen/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- ptxgen logits ------------------------------------------------------------- */
static const char *logits_usage =
    "usage: ptxgen logits --model DIR|FILE.gguf [--adapter DIR] (--ids 1,2,3 | --text T --tokenizer FILE)\n"
    "                     [--steps K] [--top N] [--full] [--dtype f32|bf16|q8] [--threads N] [--exact]\n"
    "                     [--device cpu|gpu]\n"
    "  runs the prompt as one batch and prints JSON: the top-N next-token logits at every prompt\n"
    "  position, then K greedy decode steps (each step's token and top-N); --full adds every\n"
    "  logit of the last position (for cross-checks against transformers); --model takes a HF\n"
    "  directory, a .gguf file or a shipped-model directory (base.json + adapter); --exact: GGUF\n"
    "  decode with f32 activations (no int8 rounding); --verify-base: check base.json's sha256\n"
    "  --device gpu: the GPU engine (f16 weights; compare with the CPU engine's logits).\n"
    "  exit 0: ok; 1: the model could not be run; 2: usage, I/O or model-file error\n";

/* [[id, logit], ...] of the n largest logits, largest first */
static json_t *logits_top(const float *l, int vocab, int n) {
    json_t *a = json_array();
    int *best = pg_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *best);
    int k = 0;
    for (int i = 0; i < vocab && n > 0; i++) {
        int at;
        if (k < n) at = k++;
        else if (l[i] > l[best[n - 1]]) at = n - 1;
        else continue;
        while (at > 0 && l[best[at - 1]] < l[i]) { best[at] = best[at - 1]; at--; }
        best[at] = i;
    }
    for (int i = 0; i < k; i++) json_array_append_new(a, json_pack("[i, f]", best[i], (double)l[best[i]]));
    free(best);
    return a;
}

static int logits_argmax(const float *l, int vocab) {
    int b = 0;
    for (int i = 1; i < vocab; i++) if (l[i] > l[b]) b = i;
    return b;
}

int cmd_logits(int argc, char **argv) {
    const char *model_dir = NULL, *ids_arg = NULL, *text = NULL, *tok_path = NULL;
    model_load_opts o = {NULL, 0, NULL, false, false, NULL, false};
    int steps = 0, top = 5;
    bool full = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--model") && i + 1 < argc) model_dir = argv[++i];
        else if (!strcmp(a, "--adapter") && i + 1 < argc) o.adapter_dir = argv[++i];
        else if (!strcmp(a, "--ids") && i + 1 < argc) ids_arg = argv[++i];
        else if (!strcmp(a, "--text") && i + 1 < argc) text = argv[++i];
        else if (!strcmp(a, "--tokenizer") && i + 1 < argc) tok_path = argv[++i];
        else if (!strcmp(a, "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
        else if (!strcmp(a, "--top") && i + 1 < argc) top = atoi(argv[++i]);
        else if (!strcmp(a, "--dtype") && i + 1 < argc) o.weight_dtype = argv[++i];
        else if (!strcmp(a, "--threads") && i + 1 < argc) o.threads = atoi(argv[++i]);
        else if (!strcmp(a, "--full")) full = true;
        else if (!strcmp(a, "--exact")) o.exact = true;
        else if (!strcmp(a, "--device") && i + 1 < argc) o.device = argv[++i];
        else if (!strcmp(a, "--verify-base")) o.verify_base = true;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { printf("%s", logits_usage); return 0; }
        else { cli_usage_error("logits", "unknown or incomplete option '%s'", a); return 2; }
    }
    if (!model_dir || !!ids_arg == !!text || (text && !tok_path)) {
        cli_usage_error("logits", "need --model and exactly one of --ids or --text (with --tokenizer)");
        return 2;
    }
    if (steps < 0 || steps > 100000 || top < 0 || top > 1000) {
        cli_usage_error("logits", "--steps wants 0 to 100000 and --top 0 to 1000");
        return 2;
    }
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 20};
    PG_VEC(int32_t) ids = {0};
    if (ids_arg) {
        for (const char *p = ids_arg; *p;) {
            char *end;
            long v = strtol(p, &end, 10);
            if (end == p || v < 0 || v > INT32_MAX || (*end && *end != ',')) {
                fprintf(stderr, "ptxgen logits: --ids wants comma-separated token ids, got '%s'\n", ids_arg);
                pg_vec_free(ids);
                return 2;
            }
            pg_vec_push(ids, (int32_t)v);
            p = *end ? end + 1 : end;
        }
    } else {
        tok_tokenizer *tk = NULL;
        if (tok_load(tok_path, &tk, &sink) != PG_OK) return 2;
        int32_t *v = NULL;
        size_t n = 0;
        pg_status st = tok_encode(tk, text, strlen(text), &v, &n);
        tok_free(tk);
        if (st != PG_OK) { fprintf(stderr, "ptxgen logits: cannot encode the text (%s)\n", pg_status_str(st)); free(v); return 1; }
        for (size_t i = 0; i < n; i++) pg_vec_push(ids, v[i]);
        free(v);
    }
    if (ids.n == 0) { fprintf(stderr, "ptxgen logits: empty prompt\n"); pg_vec_free(ids); return 2; }
    model_model *m = NULL;
    if (model_load(model_dir, &o, &m, &sink) != PG_OK) { pg_vec_free(ids); return 2; }
    const model_config *c = model_get_config(m);
    int V = c->vocab_size, rc = 1;
    if ((long)ids.n + steps > c->max_position_embeddings) {   /* the same refusal as gen (E902) */
        fprintf(stderr, "ptxgen logits: the prompt (%d tokens) plus --steps %d is past the model's context of %d positions\n",
                ids.n, steps, c->max_position_embeddings);
        model_free(m);
        pg_vec_free(ids);
        return 2;
    }
    model_ctx *ctx = NULL;
    float *all = pg_xmalloc((size_t)ids.n * V * sizeof *all), *last = pg_xmalloc((size_t)V * sizeof *last);
    json_t *out = json_object(), *pos = json_array(), *st_arr = json_array(), *jids = json_array();
    if (!all || !last || model_ctx_new(m, ids.n + steps, &ctx, &sink) != PG_OK) goto done;
    if (model_forward(ctx, ids.v, ids.n, last, all, &sink) != PG_OK) goto done;
    for (int i = 0; i < ids.n; i++) {
        json_array_append_new(jids, json_integer(ids.v[i]));
        json_array_append_new(pos, json_pack("{s:i, s:i, s:o}", "pos", i, "token", ids.v[i], "top",
                                             logits_top(all + (size_t)i * V, V, top)));
    }
    for (int k = 0; k < steps; k++) {
        int32_t next = logits_argmax(last, V);
        if (model_forward(ctx, &next, 1, last, NULL, &sink) != PG_OK) goto done;
        json_array_append_new(st_arr, json_pack("{s:i, s:i, s:o}", "pos", ids.n + k, "token", next, "top", logits_top(last, V, top)));
    }
    json_object_set_new(out, "model", json_string(c->model_id));
    json_object_set_new(out, "adapter", o.adapter_dir ? json_string(o.adapter_dir) : json_null());
    json_object_set_new(out, "dtype", json_string(model_weight_dtype(m)));
    json_object_set_new(out, "device", json_string(model_device(m)));
    json_object_set_new(out, "vocab_size", json_integer(V));
    json_object_set_new(out, "weight_bytes", json_integer((json_int_t)model_weight_bytes(m)));
    json_object_set_new(out, "ids", jids);
    json_object_set_new(out, "positions", pos);
    json_object_set_new(out, "steps", st_arr);
    json_object_set_new(out, "next_token", json_integer(logits_argmax(last, V)));
    jids = pos = st_arr = NULL;
    if (full) {
        json_t *f = json_array();
        for (int i = 0; i < V; i++) json_array_append_new(f, json_real(last[i]));
        json_object_set_new(out, "last_logits", f);
    }
    char *s = json_dumps(out, JSON_COMPACT | JSON_REAL_PRECISION(9));
    if (s) { puts(s); free(s); rc = 0; }
done:
    json_decref(out);
    json_decref(pos);
    json_decref(st_arr);
    json_decref(jids);
    free(all);
    free(last);
    model_ctx_free(ctx);
    model_free(m);
    pg_vec_free(ids);
    return rc;
}
