/* taskonly.c — task-only training tasks (issue 16, item 2): task specs with a C
 * reference and descriptions but no PTX solution, for expert iteration's
 * training pool (train/expert_iter.py --pool).  The model has to find the kernel
 * by search; what it finds is kept only when the GPU harness verifies it.
 *
 * Three compositions of the curriculum's building blocks, in turn:
 *   map        an elementwise expression tree (the expr family's generator and
 *              reference, expr_eval) over one to three inputs
 *   rowreduce  a reduction (sum, mean, max, min) over each row of an
 *              expression of one or two [rows][cols] inputs: out[r] =
 *              R_c f(a[r][c], ...) (reference expr_rowreduce, refs_compose.c);
 *              one 256-thread block per row
 *   rowop      a fused row operation on an expression f of [rows][cols]
 *              inputs: f minus its row mean (center), minus its row max
 *              (submax), or f / (1 + row sum of |f|) (l1norm), written back
 *              to out[rows][cols] (reference expr_rowop); one block per row
 * Everything is a pure function of (seed, index); the trees come from
 * synth_expr_random, whose safety rules keep values finite for inputs in
 * [-10, 10]. */
#include "ptxgen/synth.h"
#include "ptxgen/synth_expr.h"
#include "ptxgen/task.h"   /* TASK_STYLE_* */

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t mix(uint64_t x) {   /* splitmix64 */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static const char *const RED[] = {"sum", "mean", "max", "min"};
static const char *const RED_ZH[] = {"求和", "求平均", "求最大值", "求最小值"};
static const char *const RED_PROSE[] = {"add up", "average", "take the largest of", "take the smallest of"};
/* rowop: the fused row operations, and how each reads in the descriptions */
static const char *const ROWOP[] = {"center", "submax", "l1norm"};
static const char *const ROWOP_MATH[] = {"f - mean_c(f)", "f - max_c(f)", "f / (1 + sum_c |f|)"};
static const char *const ROWOP_EN[] = {"subtract the row's mean of f from each f", "subtract the row's maximum of f from each f",
                                       "divide each f by 1 plus the row's sum of |f|"};
static const char *const ROWOP_ZH[] = {"每个 f 减去该行 f 的平均值", "每个 f 减去该行 f 的最大值", "每个 f 除以 1 加上该行 |f| 之和"};

static void f32_text(float v, char *b, size_t n) {   /* shortest text that reads back as the same f32 */
    for (int p = 1; p <= 9; p++) {
        snprintf(b, n, "%.*g", p, (double)v);
        if ((float)strtod(b, NULL) == v) return;
    }
}

/* The spec of a row task: rowop < 0 a reduction RED[op] into out[rows], else the fused row
 * operation ROWOP[rowop] into out[rows][cols]. */
static void row_json(const expr_tree *e, const char *name, int ninputs, int op, int rowop, const float *sv, pg_buf *out) {
    pg_buf pre = {0}, tx[TASK_NSTYLES] = {{0}};
    expr_to_prefix(e, &pre);
    /* f in each description: the function-call text or, for about half of the
     * styles, the notation people write (synth_expr_notation; the seed is a pure
     * function of the task, as the expr family's) */
    uint64_t dseed = pg_hash64_add(pg_hash64_add(PG_HASH64_INIT_SHORT, name, strlen(name)), pre.data, pre.len);
    for (int st = 0; st < TASK_NSTYLES; st++) {
        unsigned fl;
        bool human = synth_expr_notation(dseed, st, &fl);
        synth_expr_notation_text(e, human, fl & ~(unsigned)EXPR_MATH_SQUARED, &tx[st]);   /* f is a part of the sentence */
    }
    const char *tt = tx[TASK_STYLE_TERSE].data, *td = tx[TASK_STYLE_DETAILED].data, *tc = tx[TASK_STYLE_CARD].data,
               *tz = tx[TASK_STYLE_ZH].data, *tp = tx[TASK_STYLE_PROSE].data;
    const int S = expr_nscalars(e);
    char val[EXPR_MAX_SCALARS][32];
    for (int k = 0; k < S; k++) f32_text(sv[k], val[k], sizeof val[k]);
    json_t *root = json_object();
    json_object_set_new(root, "name", json_string(name));
    json_object_set_new(root, "family", json_string(rowop < 0 ? "taskonly-rowreduce" : "taskonly-rowop"));
    json_object_set_new(root, "kernel", json_string(name));
    json_object_set_new(root, "expr", json_string(pre.data));
    if (rowop < 0) json_object_set_new(root, "reduce", json_string(RED[op]));
    else json_object_set_new(root, "rowop", json_string(ROWOP[rowop]));
    /* inputs, in words */
    pg_buf ins = {0}, ins_zh = {0}, card_in = {0}, sig = {0}, sc = {0}, scsig = {0};
    for (int i = 0; i < ninputs; i++) {
        pg_buf_printf(&ins, "%s%c", i ? (i + 1 == ninputs ? " and " : ", ") : "", 'a' + i);
        pg_buf_printf(&ins_zh, "%s%c", i ? (i + 1 == ninputs ? " 和 " : "、") : "", 'a' + i);
        pg_buf_printf(&card_in, "%s`float* %c` (rows*cols)", i ? ", " : "", 'a' + i);
        pg_buf_printf(&sig, "f32* %c, ", 'a' + i);
    }
    for (int k = 0; k < S; k++) {
        pg_buf_printf(&sc, "%s%s = %s", k ? ", " : "", expr_scalar_name(k), val[k]);
        pg_buf_printf(&scsig, "f32 %s, ", expr_scalar_name(k));
    }
    pg_buf t = {0}, d = {0}, c = {0}, z = {0}, p = {0};
    if (rowop >= 0) {
        pg_buf_printf(&t, "Fused row operation on f = %s over a rows x cols row-major matrix: out[r][c] = %s%s%s", tt,
                      ROWOP_MATH[rowop], S ? "; " : "", S ? sc.data : "");
        pg_buf_printf(&d, "Inputs %s are rows x cols f32 matrices in row-major order%s%s. For every row r < rows, compute "
                      "f = %s elementwise at (r, c) for all c < cols, then %s, writing out[r*cols + c] (f32, rows x cols). "
                      "Launch one block of 256 threads per row (grid = rows): the block first combines the row statistic, "
                      "then writes the row. Signature: %sf32* out (out), %su32 rows, u32 cols.",
                      ins.data, S ? "; scalar arguments " : "", S ? sc.data : "", td, ROWOP_EN[rowop], sig.data, S ? scsig.data : "");
        pg_buf_printf(&c, "## %s\n- Inputs: %s\n- Output: `float* out` (rows*cols)\n- Goal: `out[r][c] = %s` with `f = %s`%s%s\n"
                      "- Launch: 256 threads per block, `rows` blocks (one per row)\n- Notes: a block reduction per row, then the row is written",
                      name, card_in.data, ROWOP_MATH[rowop], tc, S ? "; " : "", S ? sc.data : "");
        pg_buf_printf(&z, "逐行融合运算：输入 %s 为 rows x cols 的行主序 float 矩阵%s%s。对每一行先逐元素计算 f = %s，再%s，结果写入 out[r*cols + c]。"
                      "每行一个 256 线程的块（网格 = rows）。",
                      ins_zh.data, S ? "，标量参数 " : "", S ? sc.data : "", tz, ROWOP_ZH[rowop]);
        pg_buf_printf(&p, "Row by row, work out %s for every entry of the matri%s, then %s, and store the results in out.",
                      tp, ninputs > 1 ? "ces" : "x", ROWOP_EN[rowop]);
    } else {
        pg_buf_printf(&t, "Row-wise %s of f = %s over a rows x cols row-major matrix: out[r] = %s over c of f(row r, column c)%s%s",
                      RED[op], tt, RED[op], S ? "; " : "", S ? sc.data : "");
        pg_buf_printf(&d, "Inputs %s are rows x cols f32 matrices in row-major order%s%s. For every row r < rows, compute "
                      "f = %s elementwise at (r, c) for all c < cols, and write the %s of those cols values to out[r] (f32). "
                      "Launch one block of 256 threads per row (grid = rows); the threads of a block share the row's columns "
                      "and combine their partial results. Signature: %sf32* out (out), %su32 rows, u32 cols.",
                      ins.data, S ? "; scalar arguments " : "", S ? sc.data : "", td, RED[op], sig.data, S ? scsig.data : "");
        pg_buf_printf(&c, "## %s\n- Inputs: %s\n- Output: `float* out` (rows)\n- Goal: `out[r] = %s_c f(r, c)` with `f = %s`%s%s\n"
                      "- Launch: 256 threads per block, `rows` blocks (one per row)\n- Notes: a block reduction per row",
                      name, card_in.data, RED[op], tc, S ? "; " : "", S ? sc.data : "");
        pg_buf_printf(&z, "逐行%s：输入 %s 为 rows x cols 的行主序 float 矩阵%s%s。对每一行 r，先对每个元素计算 f = %s，再对该行 cols 个结果%s，"
                      "写入 out[r]。每行一个 256 线程的块（网格 = rows）。",
                      RED_ZH[op], ins_zh.data, S ? "，标量参数 " : "", S ? sc.data : "", tz, RED_ZH[op]);
        pg_buf_printf(&p, "For each row of the matri%s, work out %s at every column and %s the results into that row's entry of out.",
                      ninputs > 1 ? "ces" : "x", tp, RED_PROSE[op]);
    }
    json_object_set_new(root, "descriptions", json_pack("{s:s, s:s, s:s, s:s, s:s}", "terse", t.data, "detailed", d.data,
                                                        "card", c.data, "zh", z.data, "prose", p.data));
    json_t *ps = json_array();
    for (int i = 0; i < ninputs; i++)
        json_array_append_new(ps, json_pack("{s:s, s:s, s:s, s:s}", "name", (char[]){(char)('a' + i), 0}, "type", "f32*",
                                            "role", "in", "len", "rows*cols"));
    json_array_append_new(ps, json_pack("{s:s, s:s, s:s, s:s}", "name", "out", "type", "f32*", "role", "out", "len",
                                        rowop < 0 ? "rows" : "rows*cols"));
    for (int k = 0; k < S; k++)
        json_array_append_new(ps, json_pack("{s:s, s:s, s:s}", "name", expr_scalar_name(k), "type", "f32", "value", val[k]));
    json_array_append_new(ps, json_pack("{s:s, s:s, s:s}", "name", "rows", "type", "u32", "value", "rows"));
    json_array_append_new(ps, json_pack("{s:s, s:s, s:s}", "name", "cols", "type", "u32", "value", "cols"));
    json_object_set_new(root, "params", ps);
    json_object_set_new(root, "sizes", json_pack("[{s:i, s:i, s:b}, {s:i, s:i}, {s:i, s:i}, {s:i, s:i}]", "rows", 8192, "cols", 1024,
                                                 "time", 1, "rows", 1000, "cols", 77, "rows", 33, "cols", 1, "rows", 3, "cols", 4097));
    json_object_set_new(root, "launch", json_pack("{s:[s], s:[s], s:s}", "block", "256", "grid", "rows", "smem", "0"));
    json_object_set_new(root, "distributions", json_pack("[s, s]", "uniform(-2,2)", "normal(0,1)"));
    /* sums in f32 over up to 4097 terms; max/min only round f (submax subtracts an exact element) */
    json_object_set_new(root, "tolerance", json_pack("{s:f}", "f32", (rowop < 0 && op >= 2) || rowop == 1 ? 1e-5 : 1e-4));
    json_object_set_new(root, "reference", json_pack("{s:s, s:s}", "kind", "c", "name", rowop < 0 ? "expr_rowreduce" : "expr_rowop"));
    char bytes[64], flops[64];
    if (rowop < 0) snprintf(bytes, sizeof bytes, "%d*rows*cols+4*rows", 4 * ninputs);
    else snprintf(bytes, sizeof bytes, "%d*rows*cols", 4 * (ninputs + 1));
    snprintf(flops, sizeof flops, "%d*rows*cols", expr_count_ops(e) + 1);
    json_object_set_new(root, "cost", json_pack("{s:s, s:s}", "bytes", bytes, "flops", flops));
    synth_task_json_write(root, out);
    json_decref(root);
    for (int st = 0; st < TASK_NSTYLES; st++) pg_buf_free(&tx[st]);
    pg_buf *bufs[] = {&pre, &ins, &ins_zh, &card_in, &sig, &sc, &scsig, &t, &d, &c, &z, &p};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) pg_buf_free(bufs[i]);
}

pg_status synth_taskonly_task(uint64_t seed, int index, pg_buf *task_json, char *name, size_t namen, pg_diag_sink *diag) {
    uint64_t h = mix(seed ^ mix((uint64_t)index + 1));
    int kind = index % 3;   /* 0 map, 1 row reduction, 2 fused row operation */
    int ninputs = kind ? 1 + (int)(h % 2) : 1 + (int)(h % 3);
    int depth = 1 + (int)((h >> 8) % 3);
    expr_tree *e = synth_expr_random(mix(h), ninputs, depth, NULL);
    if (!e) {
        pg_diag_emit(diag, PG_E_TASK, NULL, 0, 0, "task-only task %d: no expression tree", index);
        return PG_ERR_USAGE;
    }
    float sv[EXPR_MAX_SCALARS];
    synth_expr_scalar_values(mix(h ^ 0x5ca1), expr_nscalars(e), sv);
    pg_status st = PG_OK;
    if (kind == 1) {
        int op = (int)((h >> 16) % 4);
        snprintf(name, namen, "to_row%s_%08llx", RED[op], (unsigned long long)(h >> 32));
        row_json(e, name, ninputs, op, -1, sv, task_json);
    } else if (kind == 2) {
        int rop = (int)((h >> 16) % 3);
        snprintf(name, namen, "to_row%s_%08llx", ROWOP[rop], (unsigned long long)(h >> 32));
        row_json(e, name, ninputs, 0, rop, sv, task_json);
    } else {
        snprintf(name, namen, "to_map_%08llx", (unsigned long long)(h >> 32));
        pg_buf j = {0};
        st = synth_expr_kernel(e, name, ninputs, sv, 256, 1, NULL, NULL, &j, diag);
        json_t *root = st == PG_OK ? json_loads(j.data, 0, NULL) : NULL;
        if (root) {   /* the expr family's spec, tagged as a task-only task */
            json_object_set_new(root, "family", json_string("taskonly-map"));
            synth_task_json_write(root, task_json);
            json_decref(root);
        } else if (st == PG_OK) {
            st = PG_ERR_INVALID;
        }
        pg_buf_free(&j);
    }
    expr_free(e);
    return st;
}

/* The canonical keys of every "expr" field of the suites in `dirs` (a comma list), appended to keys
 * as one "\n"-separated text ("\nKEY\n" per key, so strstr finds whole keys). */
static pg_status held_out_keys(const char *dirs, pg_buf *keys, pg_diag_sink *diag) {
    pg_buf_putc(keys, '\n');
    for (const char *p = dirs; p && *p;) {
        size_t n = strcspn(p, ",");
        char d[1024];
        snprintf(d, sizeof d, "%.*s", (int)n, p);
        p += n + (p[n] == ',');
        DIR *dd = opendir(d);
        if (!dd) { pg_diag_emit(diag, PG_E_IO, d, 0, 0, "cannot read the --exclude folder: %s", strerror(errno)); return PG_ERR_IO; }
        struct dirent *ent;
        while ((ent = readdir(dd))) {
            if (ent->d_name[0] == '.') continue;
            char tp[2200];
            snprintf(tp, sizeof tp, "%s/%s/task.json", d, ent->d_name);
            json_t *t = json_load_file(tp, 0, NULL);
            const char *ex = json_string_value(json_object_get(t, "expr"));
            char err[160];
            expr_tree *e = ex ? expr_parse(ex, err, sizeof err) : NULL;
            if (e) {
                synth_expr_canonical(e, keys);
                pg_buf_putc(keys, '\n');
                expr_free(e);
            }
            json_decref(t);
        }
        closedir(dd);
    }
    return PG_OK;
}

static bool is_held_out(const char *task_json, const pg_buf *keys) {
    if (!keys->len) return false;
    json_t *t = json_loads(task_json, 0, NULL);
    const char *ex = json_string_value(json_object_get(t, "expr"));
    char err[160];
    expr_tree *e = ex && !json_object_get(t, "reduce") ? expr_parse(ex, err, sizeof err) : NULL;
    bool hit = false;
    if (e) {
        pg_buf k = {0};
        pg_buf_putc(&k, '\n');
        synth_expr_canonical(e, &k);
        pg_buf_putc(&k, '\n');
        hit = strstr(keys->data, k.data) != NULL;
        pg_buf_free(&k);
        expr_free(e);
    }
    json_decref(t);
    return hit;
}

pg_status synth_taskonly_write(const char *dir, int count, uint64_t seed, const char *exclude, int *written, pg_diag_sink *diag) {
    *written = 0;
    pg_buf keys = {0};
    if (exclude && held_out_keys(exclude, &keys, diag) != PG_OK) { pg_buf_free(&keys); return PG_ERR_IO; }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        pg_diag_emit(diag, PG_E_IO, dir, 0, 0, "cannot create: %s", strerror(errno));
        return PG_ERR_IO;
    }
    for (int i = 0, idx = 0; i < count; i++, idx++) {
        pg_buf j = {0}, p = {0};
        char name[64];
        pg_status st = synth_taskonly_task(seed, idx, &j, name, sizeof name, diag);
        if (st == PG_OK && is_held_out(j.data, &keys)) {   /* a held-out suite's task: draw the next index instead */
            pg_buf_free(&j);
            i--;
            if (idx > 4 * count + 100) { pg_diag_emit(diag, PG_E_TASK, dir, 0, 0, "every candidate is held out"); st = PG_ERR_INVALID; }
            if (st != PG_OK) { pg_buf_free(&keys); return st; }
            continue;
        }
        if (st == PG_OK) {
            pg_buf_printf(&p, "%s/%s", dir, name);
            if (mkdir(p.data, 0755) != 0 && errno != EEXIST) {
                pg_diag_emit(diag, PG_E_IO, p.data, 0, 0, "cannot create: %s", strerror(errno));
                st = PG_ERR_IO;
            } else {
                pg_buf_puts(&p, "/task.json");
                st = pg_write_file_atomic(p.data, j.data, j.len, diag);
            }
        }
        pg_buf_free(&j);
        pg_buf_free(&p);
        if (st != PG_OK) { pg_buf_free(&keys); return st; }
        (*written)++;
    }
    pg_buf_free(&keys);
    return PG_OK;
}
