/* cmd_model.c — the model module's commands: `ptxgen tokenize` (encode with a
 * tokenizer.json or GGUF tokenizer, token statistics of a dataset) and
 * `ptxgen logits` (run the C engine and print logits, for cross-checks
 * against PyTorch and transformers). */
#include "cli.h"
#include "ptxgen/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- ptxgen tokenize --------------------------------------------------------- */
static const char *tokenize_usage =
    "usage: ptxgen tokenize --tokenizer FILE [--json] TEXT | -f FILE\n"
    "       ptxgen tokenize --tokenizer FILE --stats DATA.jsonl [--field NAME] [--json]\n"
    "  encode TEXT (or the contents of FILE, - for stdin) with a Hugging Face tokenizer.json;\n"
    "  prints the ids; --json prints {\"count\", \"ids\", \"pieces\"}\n"
    "  --stats: encode field NAME (default ptx_code) of every JSONL record and print tokens per\n"
    "           non-empty line (mean, p50, p95) and tokens per sample (p50, p95, max)\n"
    "  exit 0: ok; 1: a text could not be encoded; 2: usage, I/O or tokenizer error\n";

/* A token's bytes as a JSON string: invalid UTF-8 bytes become "\xNN" text. */
static json_t *tokz_piece_json(const char *s, size_t n) {
    json_t *j = json_stringn(s, n);
    if (j) return j;
    pg_buf b = {0};
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) pg_buf_putc(&b, (char)c);
        else pg_buf_printf(&b, "\\x%02X", c);
    }
    j = json_stringn(b.data ? b.data : "", b.len);
    pg_buf_free(&b);
    return j;
}

static int tokz_cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array. */
static int tokz_pct(const int *v, int n, double p) {
    if (n == 0) return 0;
    int k = (int)(p / 100.0 * n + 0.999999) - 1;
    return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

static double tokz_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int tokz_stats(const tok_tokenizer *t, const char *path, const char *field, bool as_json) {
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 0};
    char *data = NULL;
    size_t len = 0;
    if (pg_read_file(path, (size_t)1 << 34, &data, &len, &sink) != PG_OK) return 2;
    PG_VEC(int) per_line = {0};
    PG_VEC(int) per_sample = {0};
    long long total_tokens = 0, total_bytes = 0, lines = 0;
    int skipped = 0, failed = 0, lineno = 0;
    double secs = 0;
    for (char *p = data; p < data + len;) {
        char *e = memchr(p, '\n', (size_t)(data + len - p));
        size_t n = e ? (size_t)(e - p) : (size_t)(data + len - p);
        lineno++;
        json_error_t je;
        json_t *rec = n ? json_loadb(p, n, 0, &je) : NULL;
        json_t *f = rec ? json_object_get(rec, field) : NULL;
        p += n + 1;
        if (!json_is_string(f)) {
            if (n) skipped++;
            json_decref(rec);
            continue;
        }
        const char *s = json_string_value(f);
        size_t sl = json_string_length(f);
        int32_t *ids = NULL;
        size_t nid = 0;
        double t0 = tokz_now();
        pg_status st = tok_encode(t, s, sl, &ids, &nid);
        secs += tokz_now() - t0;
        if (st != PG_OK) {
            fprintf(stderr, "%s:%d: field \"%s\" cannot be encoded: %s\n", path, lineno, field, pg_status_str(st));
            failed++;
            json_decref(rec);
            continue;
        }
        /* attribute each token to the line of its first byte that is not '\n' */
        int nlines = 0;
        for (size_t i = 0; i < sl; i++) nlines += s[i] == '\n';
        if (sl && s[sl - 1] != '\n') nlines++;
        int *cnt = calloc((size_t)nlines + 1, sizeof(int));
        size_t off = 0;
        int line = 0;
        for (size_t k = 0; k < nid; k++) {
            size_t tl;
            const char *tb = tok_token_bytes(t, ids[k], &tl);
            size_t first = 0;
            while (first < tl && tb[first] == '\n') first++;
            for (size_t i = off; i < off + first && i < sl; i++) line += s[i] == '\n';
            if (line < nlines) cnt[line]++;
            for (size_t i = off + first; i < off + tl && i < sl; i++) line += s[i] == '\n';
            off += tl;
        }
        /* per non-empty line */
        size_t ls = 0;
        for (int l = 0; l < nlines; l++) {
            size_t le = ls;
            while (le < sl && s[le] != '\n') le++;
            if (le > ls) pg_vec_push(per_line, cnt[l]);
            ls = le + 1;
        }
        free(cnt);
        pg_vec_push(per_sample, (int)nid);
        total_tokens += (long long)nid;
        total_bytes += (long long)sl;
        free(ids);
        json_decref(rec);
    }
    free(data);
    lines = per_line.n;
    /* qsort(NULL, 0, ...) is undefined behaviour: an empty file sorts nothing */
    if (per_line.n) qsort(per_line.v, (size_t)per_line.n, sizeof(int), tokz_cmp_int);
    if (per_sample.n) qsort(per_sample.v, (size_t)per_sample.n, sizeof(int), tokz_cmp_int);
    double mean_line = lines ? (double)total_tokens / (double)lines : 0;
    json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i, s:I, s:I, s:f, s:{s:I, s:f, s:i, s:i}, s:{s:i, s:i, s:i}, s:f, s:f}",
                          "file", path, "field", field, "samples", per_sample.n, "skipped", skipped, "failed", failed,
                          "bytes", (json_int_t)total_bytes, "tokens", (json_int_t)total_tokens,
                          "bytes_per_token", total_tokens ? (double)total_bytes / (double)total_tokens : 0.0,
                          "tokens_per_line", "lines", (json_int_t)lines, "mean", mean_line,
                          "p50", tokz_pct(per_line.v, per_line.n, 50), "p95", tokz_pct(per_line.v, per_line.n, 95),
                          "tokens_per_sample", "p50", tokz_pct(per_sample.v, per_sample.n, 50),
                          "p95", tokz_pct(per_sample.v, per_sample.n, 95),
                          "max", per_sample.n ? per_sample.v[per_sample.n - 1] : 0,
                          "encode_seconds", secs, "tokens_per_second", secs > 0 ? (double)total_tokens / secs : 0.0);
    if (as_json) {
        char *js = json_dumps(o, JSON_INDENT(2));
        printf("%s\n", js);
        free(js);
    } else {
        printf("%s: %d samples (field \"%s\"; %d without it, %d not encodable)\n", path, per_sample.n, field, skipped, failed);
        printf("bytes %lld  tokens %lld  bytes/token %.2f\n", total_bytes, total_tokens,
               total_tokens ? (double)total_bytes / (double)total_tokens : 0.0);
        printf("tokens per non-empty line: mean %.2f  p50 %d  p95 %d  (%lld lines)\n", mean_line,
               tokz_pct(per_line.v, per_line.n, 50), tokz_pct(per_line.v, per_line.n, 95), lines);
        printf("tokens per sample: p50 %d  p95 %d  max %d\n", tokz_pct(per_sample.v, per_sample.n, 50),
               tokz_pct(per_sample.v, per_sample.n, 95), per_sample.n ? per_sample.v[per_sample.n - 1] : 0);
        printf("encode: %.3f s, %.0f tokens/s\n", secs, secs > 0 ? (double)total_tokens / secs : 0.0);
    }
    json_decref(o);
    pg_vec_free(per_line);
    pg_vec_free(per_sample);
    return failed ? 1 : 0;
}

int cmd_tokenize(int argc, char **argv) {
    const char *tok_path = NULL, *file = NULL, *text = NULL, *stats = NULL, *field = "ptx_code";
    bool as_json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_next = i + 1 < argc;
        if (!strcmp(a, "--tokenizer") && has_next) tok_path = argv[++i];
        else if (!strcmp(a, "-f") && has_next) file = argv[++i];
        else if (!strcmp(a, "--stats") && has_next) stats = argv[++i];
        else if (!strcmp(a, "--field") && has_next) field = argv[++i];
        else if (!strcmp(a, "--json")) as_json = true;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(tokenize_usage, stdout); return 0; }
        else if (a[0] == '-' && a[1] == '-') { cli_usage_error("tokenize", "unknown or incomplete option %s", a); return 2; }
        else if (!text) text = a;
        else { cli_usage_error("tokenize", "more than one TEXT"); return 2; }
    }
    if (!tok_path || (!stats && !file == !text) || (stats && (file || text))) {
        cli_usage_error("tokenize", "need --tokenizer and exactly one of TEXT, -f FILE, --stats DATA.jsonl");
        return 2;
    }
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 0};
    tok_tokenizer *t = NULL;
    if (tok_load(tok_path, &t, &sink) != PG_OK) return 2;
    if (stats) {
        int rc = tokz_stats(t, stats, field, as_json);
        tok_free(t);
        return rc;
    }
    char *buf = NULL;
    size_t len = text ? strlen(text) : 0;
    if (file && pg_read_file(file, (size_t)1 << 30, &buf, &len, &sink) != PG_OK) { tok_free(t); return 2; }
    int32_t *ids = NULL;
    size_t n = 0;
    pg_status st = tok_encode(t, buf ? buf : text, len, &ids, &n);
    if (st != PG_OK) {
        fprintf(stderr, "ptxgen tokenize: cannot encode the text: %s%s\n", pg_status_str(st),
                st == PG_ERR_INVALID ? " (the tokenizer normalizes with NFC and the text is not known to be in NFC)" : "");
        free(buf);
        tok_free(t);
        return 1;
    }
    if (as_json) {
        json_t *o = json_object(), *jids = json_array(), *jp = json_array();
        for (size_t i = 0; i < n; i++) {
            size_t tl;
            const char *tb = tok_token_bytes(t, ids[i], &tl);
            json_array_append_new(jids, json_integer(ids[i]));
            json_array_append_new(jp, tokz_piece_json(tb ? tb : "", tl));
        }
        json_object_set_new(o, "count", json_integer((json_int_t)n));
        json_object_set_new(o, "ids", jids);
        json_object_set_new(o, "pieces", jp);
        char *js = json_dumps(o, JSON_COMPACT);
        printf("%s\n", js);
        free(js);
        json_decref(o);
    } else {
        for (size_t i = 0; i < n; i++) printf(i ? " %d" : "%d", ids[i]);
        printf("\n");
    }
    free(ids);
    free(buf);
    tok_free(t);
    return 0;
}
/* ---- ptxgen logits ------------------------------------------------------------- */
static const char *logits_usage =
    "usage: ptxgen logits --model DIR|FILE.gguf [--adapter DIR] (--ids 1,2,3 | --text T --tokenizer FILE)\n"
    "                     [--steps K] [--top N] [--full] [--dtype f32|bf16|q8] [--threads N] [--exact]\n"
    "  runs the prompt as one batch and prints JSON: the top-N next-token logits at every prompt\n"
    "  position, then K greedy decode steps (each step's token and top-N); --full adds every\n"
    "  logit of the last position (for cross-checks against transformers); --model takes a HF\n"
    "  directory, a .gguf file or a shipped-model directory (base.json + adapter); --exact: GGUF\n"
    "  decode with f32 activations (no int8 rounding); --verify-base: check base.json's sha256\n"
    "  exit 0: ok; 1: the model could not be run; 2: usage, I/O or model-file error\n";

/* [[id, logit], ...] of the n largest logits, largest first */
static json_t *logits_top(const float *l, int vocab, int n) {
    json_t *a = json_array();
    int *best = malloc((size_t)(n > 0 ? n : 1) * sizeof *best);
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
    model_load_opts o = {NULL, 0, NULL, false, false};
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
    float *all = malloc((size_t)ids.n * V * sizeof *all), *last = malloc((size_t)V * sizeof *last);
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
