/* family_rowwise_loss.c — the loss families of the row-wise curriculum:
 *
 *   xent  cross-entropy per row of a rows x cols logits matrix with s32
 *         labels, through a stable log-sum-exp (three passes or online);
 *         options: label smoothing, ignored rows (label < 0), an extra
 *         per-row logsumexp output; or NLL of log-probabilities (thread per
 *         row); reduction none (one loss per row) / sum / mean (one atomic
 *         add per row or per block into a one-element accumulator);
 *         f32/f64/f16/bf16 logits, warp- or block-per-row
 *   loss  elementwise losses over n predictions and targets: MSE, L1, Huber
 *         (delta), smooth-L1 (beta), BCE with logits, log-cosh; optional
 *         per-element weights; reduction none (one value per element) or
 *         sum / mean (grid-stride, elements per thread or float2/float4
 *         loads, block reduction, one atomicAdd per block); f32/f64, f16/bf16
 *         inputs
 *
 * References: src/task/refs_rowwise_loss.c (task_ref_fam_xent, task_ref_fam_loss). */
#include "family_rowwise.h"

#include <stdio.h>
#include <string.h>

/* ======================================================================================== *
 * xent
 * ======================================================================================== */
enum { RED_NONE, RED_SUM, RED_MEAN };
static const char *const REDN[] = {"none", "sum", "mean"};

pg_status synth_fam_rw_xent(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x78656e74726f7079ull};
    bool nll = synth_fam_pick(&r, 10) < 3;
    rw_dt d = synth_fam_rw_dtype(synth_fam_rw_pick_dtype(&r, true));
    rw_map m;
    synth_fam_rw_map_pick(&r, &m, true);
    int red = synth_fam_pick(&r, 4);
    red = red >= 2 ? red - 1 : 0;   /* none 1/2, sum 1/4, mean 1/4 */
    bool online = !nll && !m.tree && synth_fam_pick(&r, 3) == 0;
    bool smooth = !nll && synth_fam_pick(&r, 3) == 0;
    bool ignore = synth_fam_pick(&r, 4) == 0;
    if (ignore && red == RED_MEAN) red = RED_SUM;   /* a mean over the kept rows would need their count first */
    bool lse_out = !nll && red == RED_NONE && synth_fam_pick(&r, 4) == 0;
    int nb = 128 << synth_fam_pick(&r, 3);   /* nll: threads per block */
    bool nll_gs = synth_fam_pick(&r, 2);
    /* held out (bench/suite cross_entropy_row): f32 per-row cross-entropy, one 256-thread block per row (any reduction
     * technique, with or without an ignored label, smoothing or a log-sum-exp output) */
    if (!nll && d.kind == RW_F32 && !m.warp && m.block == 256 && !m.gs && red == RED_NONE) {
        m.block = 512;
        snprintf(m.blk, sizeof m.blk, "512");
    }
    static const char *LN[] = {"logits", "x", "scores", "pred", "input", "z"};
    static const char *PN[] = {"logp", "log_probs", "lp", "x", "input"};
    static const char *TN[] = {"labels", "target", "targets", "y", "classes"};
    static const char *ON[] = {"loss", "losses", "out", "nll", "ce"};
    const char *X = nll ? PN[synth_fam_pick(&r, 5)] : LN[synth_fam_pick(&r, 6)], *L = TN[synth_fam_pick(&r, 5)], *O = ON[synth_fam_pick(&r, 5)];
    if (!strcmp(X, L) || (nll && !strcmp(O, "nll")) || !strcmp(O, X)) O = "loss";
    if (!strcmp(X, L)) L = "labels";
    const char *SMN = synth_fam_pick(&r, 2) ? "smoothing" : "label_smoothing";
    const char *mt = d.mt, *ot = d.f64 ? "double" : "float", *OT = d.f64 ? "f64" : "f32";
    char tag[32];
    if (nll) snprintf(tag, sizeof tag, "t%d%s", nb, nll_gs ? "_gs" : "");
    else synth_fam_rw_map_tag(&m, tag, sizeof tag);
    static const char *PRE[] = {"cross_entropy_rows", "softmax_xent", "ce_loss_rows", "xent_rows"};
    static const char *NPRE[] = {"nll_loss", "nll_rows", "neg_loglik"};
    snprintf(s->family, sizeof s->family, "xent");
    snprintf(s->source, sizeof s->source, "nvcc");
    snprintf(s->name, sizeof s->name, "%s_%s_%s%s%s%s%s%s", nll ? NPRE[synth_fam_pick(&r, 3)] : PRE[synth_fam_pick(&r, 4)], d.T, tag, red ? (red == RED_SUM ? "_sum" : "_mean") : "",
             online ? "_online" : "", smooth ? "_ls" : "", ignore ? "_ign" : "", lse_out ? "_lse" : "");
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "xent:%s:%s:%s:%s:%s%s%s%s", nll ? "nll" : "ce", d.T, tag, REDN[red], online ? "online" : "3pass",
             smooth ? ":smooth" : "", ignore ? ":ignore" : "", lse_out ? ":lse" : "");

    /* ---- CUDA C ---- */
    const char *EXP = d.f64 ? "exp" : "expf", *LOG = d.f64 ? "log" : "logf", *MAXF = d.f64 ? "fmax" : "fmaxf";
    pg_buf *c = &s->cu;
    pg_buf_printf(c, "// %s: %s per row (%s logits, s32 labels), reduction %s.\n", s->name, nll ? "negative log-likelihood" : "softmax cross-entropy",
                  d.st, REDN[red]);
    synth_fam_rw_macros(c, &d);
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ %s, const int* __restrict__ %s, %s* __restrict__ %s", s->name, d.st, X, L, ot, O);
    if (lse_out) pg_buf_printf(c, ", %s* __restrict__ lse", ot);
    if (smooth) pg_buf_printf(c, ", %s %s", mt, SMN);
    pg_buf_puts(c, ", unsigned int rows, unsigned int cols)\n{\n");
    const char *ign = ignore ? "lab < 0 ? (MT)0 : " : "";
    if (nll) {
        /* thread per row: -logp[r][label]; sums go through a block reduction and one atomic per block */
        pg_buf_printf(c, "    unsigned int tid = threadIdx.x;\n");
        if (red) pg_buf_printf(c, "    __shared__ %s red[32];\n    unsigned int lane = tid & 31, wid = tid >> 5;\n    %s acc = 0;\n", mt, mt);
        if (nll_gs) pg_buf_printf(c, "    for (unsigned int row = blockIdx.x * %d + tid; row < rows; row += gridDim.x * %d) {\n", nb, nb);
        else pg_buf_printf(c, "    unsigned int row = blockIdx.x * %d + tid;\n    if (row < rows) {\n", nb);
        pg_buf_printf(c, "        int lab = %s[row];\n", L);
        pg_buf_printf(c, "        %s l = %s-LD(%s[(size_t)row * cols + %s]);\n", mt, ignore ? "lab < 0 ? 0 : " : "", X, ignore ? "(lab < 0 ? 0 : lab)" : "lab");
        if (red == RED_NONE) pg_buf_printf(c, "        %s[row] = l;\n", O);
        else pg_buf_puts(c, "        acc += l;\n");
        pg_buf_puts(c, "    }\n");
        if (red) {
            synth_fam_rw_block_reduce(c, "    ", "acc", RW_SUM, d.f64, nb, false);
            pg_buf_printf(c, "    if (tid == 0) atomicAdd(%s, acc%s);   // one atomic per block\n", O, red == RED_MEAN ? " / (MT)rows" : "");
        }
        pg_buf_puts(c, "}\n");
    } else {
        synth_fam_rw_map_open(c, &m, mt, !online);
        const char *ind = m.gs ? "        " : "    ";
        const char *c0 = synth_fam_rw_map_c0(&m);
        char loop[128];
        snprintf(loop, sizeof loop, "for (unsigned int col = %s; col < cols; col += %d)", c0, m.warp ? 32 : m.block);
        pg_buf_printf(c, "%sconst %s* xrow = %s + (size_t)row * cols;\n", ind, d.st, X);
        if (online) {
            pg_buf_printf(c, "%s%s rmax = -INFINITY, rsum = 0%s;   // running max and sum of exp(v - running max)\n", ind, mt, smooth ? ", xsum = 0" : "");
            pg_buf_printf(c, "%s%s {\n%s    %s v = LD(xrow[col]);\n", ind, loop, ind, mt);
            if (smooth) pg_buf_printf(c, "%s    xsum += v;\n", ind);
            pg_buf_printf(c, "%s    if (v > rmax) { rsum = rsum * %s(rmax - v) + 1; rmax = v; }\n%s    else rsum += %s(v - rmax);\n%s}\n", ind, EXP, ind, EXP, ind);
            for (int pass = 0; pass < (m.warp || m.block == 32 ? 1 : 2); pass++) {
                if (pass == 1) {
                    pg_buf_printf(c, "%s__shared__ %s redm[32], reds[32]%s;\n", ind, mt, smooth ? ", redx[32]" : "");
                    pg_buf_printf(c, "%sif (lane == 0) { redm[wid] = rmax; reds[wid] = rsum;%s }\n%s__syncthreads();\n", ind, smooth ? " redx[wid] = xsum;" : "", ind);
                    pg_buf_printf(c, "%srmax = lane < %d ? redm[lane] : -INFINITY;\n%srsum = lane < %d ? reds[lane] : 0;\n", ind, m.block / 32, ind, m.block / 32);
                    if (smooth) pg_buf_printf(c, "%sxsum = lane < %d ? redx[lane] : 0;\n", ind, m.block / 32);
                }
                pg_buf_printf(c, "%sfor (int o = 16; o > 0; o >>= 1) {   // merge (max, sum) pairs; an empty side (max -inf) adds 0\n", ind);
                pg_buf_printf(c, "%s    %s om = __shfl_xor_sync(0xffffffffu, rmax, o), os = __shfl_xor_sync(0xffffffffu, rsum, o);\n", ind, mt);
                if (smooth) pg_buf_printf(c, "%s    xsum += __shfl_xor_sync(0xffffffffu, xsum, o);\n", ind);
                pg_buf_printf(c, "%s    %s nm = %s(rmax, om);\n", ind, mt, MAXF);
                pg_buf_printf(c, "%s    rsum = (rmax == -INFINITY ? 0 : rsum * %s(rmax - nm)) + (om == -INFINITY ? 0 : os * %s(om - nm));\n", ind, EXP, EXP);
                pg_buf_printf(c, "%s    rmax = nm;\n%s}\n", ind, ind);
                if (pass == 1) pg_buf_printf(c, "%s__syncthreads();   // the red arrays are rewritten by the next row\n", ind);
            }
        } else {
            pg_buf_printf(c, "%s%s rmax = -INFINITY;\n%s%s rmax = %s(rmax, LD(xrow[col]));\n", ind, mt, ind, loop, MAXF);
            synth_fam_rw_map_reduce(c, &m, ind, "rmax", RW_MAX, d.f64);
            pg_buf_printf(c, "%s%s rsum = 0%s;\n", ind, mt, smooth ? ", xsum = 0" : "");
            if (smooth) pg_buf_printf(c, "%s%s {\n%s    %s v = LD(xrow[col]);\n%s    rsum += %s(v - rmax);\n%s    xsum += v;\n%s}\n", ind, loop, ind, mt, ind, EXP, ind, ind);
            else pg_buf_printf(c, "%s%s rsum += %s(LD(xrow[col]) - rmax);\n", ind, loop, EXP);
            synth_fam_rw_map_reduce(c, &m, ind, "rsum", RW_SUM, d.f64);
            if (smooth) synth_fam_rw_map_reduce(c, &m, ind, "xsum", RW_SUM, d.f64);
        }
        pg_buf_printf(c, "%sif (%s == 0) {   // one thread finishes the row\n", ind, c0);
        pg_buf_printf(c, "%s    %s lsum = rmax + %s(rsum);   // log-sum-exp of the row\n", ind, mt, LOG);
        pg_buf_printf(c, "%s    int lab = %s[row];\n", ind, L);
        if (smooth)
            pg_buf_printf(c, "%s    %s l = %slsum - (1 - %s) * LD(xrow[%s]) - %s / (%s)cols * xsum;\n", ind, mt, ign, SMN, ignore ? "lab < 0 ? 0 : lab" : "lab", SMN, mt);
        else pg_buf_printf(c, "%s    %s l = %slsum - LD(xrow[%s]);\n", ind, mt, ign, ignore ? "lab < 0 ? 0 : lab" : "lab");
        if (red == RED_NONE) pg_buf_printf(c, "%s    %s[row] = l;\n", ind, O);
        else if (red == RED_SUM) pg_buf_printf(c, "%s    atomicAdd(%s, l);\n", ind, O);
        else pg_buf_printf(c, "%s    atomicAdd(%s, l / (%s)rows);\n", ind, O, mt);
        if (lse_out) pg_buf_printf(c, "%s    lse[row] = lsum;\n", ind);
        pg_buf_printf(c, "%s}\n", ind);
        synth_fam_rw_map_close(c, &m);
        pg_buf_puts(c, "}\n");
    }
    synth_fam_rw_macros_end(c);
    /* the ignore expression above names the math type through MT */
    {
        pg_buf t = {0};
        for (const char *p = c->data; *p;) {
            if (!strncmp(p, "(MT)", 4)) { pg_buf_printf(&t, "(%s)", mt); p += 4; }
            else pg_buf_putc(&t, *p++);
        }
        pg_buf_free(c);
        *c = t;
    }

    /* ---- task.json ---- */
    json_t *root = json_object();
    synth_fam_rw_head(root, s);
    json_object_set_new(root, "family_params", json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:s, s:s}", "op", nll ? "nll" : "ce", "dtype", d.T, "x", X,
                                                         "labels", L, "loss", O, "reduction", REDN[red], "ignore_negative", ignore, "smoothing",
                                                         smooth ? SMN : "", "lse", lse_out ? "lse" : ""));
    char pt[16], ptl[16];
    snprintf(pt, sizeof pt, "%s*", d.T);
    snprintf(ptl, sizeof ptl, "%s*", OT);
    json_t *ps = json_array();
    json_array_append_new(ps, synth_fam_rw_ptr(X, pt, "in", "rows*cols"));
    if (ignore) json_array_append_new(ps, synth_fam_rw_ptr_dist(L, "s32*", "in", "rows", "int(-1,cols-1)", "int(-1,min(cols-1,2))"));
    else json_array_append_new(ps, synth_fam_rw_ptr_dist(L, "s32*", "in", "rows", "int(0,cols-1)", "int(0,min(cols-1,3))"));
    if (red == RED_NONE) json_array_append_new(ps, synth_fam_rw_ptr(O, ptl, "out", "rows"));
    else json_array_append_new(ps, synth_fam_rw_ptr_dist(O, ptl, "inout", "1", "const(0)", "const(0.5)"));
    if (lse_out) json_array_append_new(ps, synth_fam_rw_ptr("lse", ptl, "out", "rows"));
    static const char *SMV[] = {"0.1", "0.05", "0.2"};
    const char *smv = SMV[synth_fam_pick(&r, 3)];
    if (smooth) json_array_append_new(ps, synth_fam_rw_scal(SMN, d.f64 ? "f64" : "f32", smv));
    json_array_append_new(ps, synth_fam_rw_scal("rows", "u32", "rows"));
    json_array_append_new(ps, synth_fam_rw_scal("cols", "u32", "cols"));
    json_object_set_new(root, "params", ps);
    static const int64_t SZ[2][12] = {{2048, 8000, 1000, 10, 37, 4099, 129, 100, 7, 3, 2, 1}, {4096, 1000, 999, 1001, 16, 32000, 65, 33, 5, 2, 1, 1}};
    static const char *SV[] = {"rows", "cols"};
    int64_t sz[12];
    memcpy(sz, SZ[synth_fam_pick(&r, 2)], sizeof sz);
    if (smooth) sz[11] = 2;   /* one column: the smoothed loss is exactly 0, which a relative error cannot check */
    json_object_set_new(root, "sizes", synth_fam_rw_sizes(SV, 2, sz, 6));
    char nbs[8], ngrid[48];
    snprintf(nbs, sizeof nbs, "%d", nb);
    if (nll_gs) snprintf(ngrid, sizeof ngrid, "min(cdiv(rows,%d),%d)", nb, 64 << synth_fam_pick(&r, 3));
    else snprintf(ngrid, sizeof ngrid, "cdiv(rows,%d)", nb);
    json_object_set_new(root, "launch", json_pack("{s:[s], s:[s], s:s}", "block", nll ? nbs : m.blk, "grid", nll ? ngrid : m.grid, "smem", "0"));

    /* ---- descriptions ---- */
    rw_pool P = {0};
    const char *per = nll ? synth_fam_rw_str(&P, "-%s[r][%s[r]]", X, L)
                   : smooth ? synth_fam_rw_str(&P, "logsumexp_c(%s[r][c]) - (1 - %s) * %s[r][%s[r]] - (%s / cols) * sum_c %s[r][c]", X, SMN, X, L, SMN, X)
                            : synth_fam_rw_str(&P, "logsumexp_c(%s[r][c]) - %s[r][%s[r]]", X, X, L);
    const char *lr = ignore ? synth_fam_rw_str(&P, "l_r = (%s[r] < 0 ? 0 : %s)", L, per) : synth_fam_rw_str(&P, "l_r = %s", per);
    const char *formula = red == RED_NONE ? synth_fam_rw_str(&P, "%s[r] = %s%s", O, lr + 6, lse_out ? synth_fam_rw_str(&P, "; lse[r] = logsumexp_c(%s[r][c])", X) : "")
                        : red == RED_SUM ? synth_fam_rw_str(&P, "%s[0] += sum_r l_r, %s", O, lr)
                                         : synth_fam_rw_str(&P, "%s[0] += (1/rows) sum_r l_r, %s", O, lr);
    const char *name_en[8], *name_zh[6], *ex_en[5], *ex_zh[4], *how_en[6], *how_zh[5];
    int ne = 0, nz = 0, nxe = 0, nxz = 0, nh = 0, nhz = 0;
    if (nll) {
        name_en[ne++] = "negative log-likelihood loss";
        name_en[ne++] = "NLL loss from log-probabilities";
        name_en[ne++] = "nll_loss with class indices";
        name_en[ne++] = "per-sample negative log-likelihood";
        name_zh[nz++] = "负对数似然损失";
        name_zh[nz++] = "NLL 损失";
        name_zh[nz++] = "按行负对数似然";
    } else {
        name_en[ne++] = smooth ? "label-smoothed cross-entropy" : "softmax cross-entropy per row";
        name_en[ne++] = "cross-entropy loss from logits and class labels";
        name_en[ne++] = "CrossEntropyLoss over a batch of logits";
        name_en[ne++] = "per-sample classification loss (log-sum-exp minus the target logit)";
        name_en[ne++] = "sparse softmax cross-entropy";
        name_zh[nz++] = smooth ? "带标签平滑的交叉熵" : "逐行交叉熵损失";
        name_zh[nz++] = "softmax 交叉熵";
        name_zh[nz++] = "分类交叉熵损失";
    }
    const char *rw = red == RED_NONE ? synth_fam_rw_str(&P, "write each row's loss to %s[r]", O)
                   : red == RED_SUM ? synth_fam_rw_str(&P, "add the sum of all rows' losses to the single value %s[0] (it holds a starting value)", O)
                                    : synth_fam_rw_str(&P, "add the mean of the rows' losses (sum divided by rows) to the single value %s[0] (it holds a starting value)", O);
    const char *rz = red == RED_NONE ? synth_fam_rw_str(&P, "每行的损失写入 %s[r]", O)
                   : red == RED_SUM ? synth_fam_rw_str(&P, "所有行损失之和累加到 %s[0]（它已有初值）", O) : synth_fam_rw_str(&P, "所有行损失的平均值累加到 %s[0]（它已有初值）", O);
    const char *ig = ignore ? synth_fam_rw_str(&P, "; a row whose label is negative is ignored (its loss is 0)") : "";
    const char *igz = ignore ? "；标签为负数的行被忽略（损失为 0）" : "";
    const char *lo = lse_out ? synth_fam_rw_str(&P, "; also store each row's log-sum-exp in lse[r]") : "";
    if (nll) {
        ex_en[nxe++] = synth_fam_rw_str(&P, "read the log-probabilities in %s (rows x cols) and take minus the entry at column %s[r] as the loss of row r%s; %s", X, L, ig, rw);
        ex_en[nxe++] = synth_fam_rw_str(&P, "pick, for every row r, the log-probability of its target class %s[r] and negate it%s; %s", L, ig, rw);
        ex_en[nxe++] = synth_fam_rw_str(&P, "gather -%s[r][%s[r]] for each row%s and %s", X, L, ig, rw);
        ex_zh[nxz++] = synth_fam_rw_str(&P, "%s 为对数概率矩阵（rows×cols），第 r 行的损失为 -%s[r][%s[r]]%s；%s", X, X, L, igz, rz);
        ex_zh[nxz++] = synth_fam_rw_str(&P, "取每行目标类别 %s[r] 处的对数概率并取负%s，%s", L, igz, rz);
    } else {
        const char *sm = smooth ? synth_fam_rw_str(&P, " with label smoothing %s: the loss is lse - (1 - %s) times the target logit - %s times the row's average logit", SMN, SMN, SMN) : "";
        const char *smz = smooth ? synth_fam_rw_str(&P, "，带标签平滑 %s：损失 = lse - (1 - %s)·目标 logit - %s·该行 logit 的平均值", SMN, SMN, SMN) : "";
        ex_en[nxe++] = synth_fam_rw_str(&P, "compute, for every row r of %s, lse = max + log(sum of exp(logit - max)) and the loss lse - %s[r][%s[r]]%s%s; %s%s", X, X, L, sm, ig, rw, lo);
        ex_en[nxe++] = synth_fam_rw_str(&P, "turn each row of logits into log-probabilities with a numerically stable log-sum-exp and take minus the log-probability of the class %s[r]%s%s; %s%s", L, sm, ig, rw, lo);
        ex_en[nxe++] = synth_fam_rw_str(&P, "score each example (row) by the negative log of its softmax probability for the true class %s[r]%s%s; %s%s", L, sm, ig, rw, lo);
        ex_zh[nxz++] = synth_fam_rw_str(&P, "对 %s 的每一行求 lse = 最大值 + log(Σ exp(x - 最大值))，损失为 lse - %s[r][%s[r]]%s%s；%s", X, X, L, smz, igz, rz);
        ex_zh[nxz++] = synth_fam_rw_str(&P, "每个样本（行）的损失是其真实类别 %s[r] 的 softmax 概率的负对数（用行最大值保证数值稳定）%s%s，%s", L, smz, igz, rz);
    }
    name_en[ne] = NULL; name_zh[nz] = NULL; ex_en[nxe] = NULL; ex_zh[nxz] = NULL;
    if (nll) {
        how_en[nh++] = synth_fam_rw_str(&P, "one thread per row%s", nll_gs ? " with a grid-stride loop" : "");
        how_zh[nhz++] = "每个线程处理一行";
    } else if (m.warp) {
        how_en[nh++] = synth_fam_rw_str(&P, "one warp per row (%d per block), lanes stride the columns, shuffle reductions, lane 0 finishes the row", m.rpb);
        how_zh[nhz++] = "每个 warp 处理一行，shuffle 归约，0 号 lane 写结果";
    } else {
        how_en[nh++] = synth_fam_rw_str(&P, "one %d-thread block per row, %s reductions, thread 0 finishes the row", m.block, m.tree ? "shared-memory tree" : "warp-shuffle + shared-memory");
        how_zh[nhz++] = synth_fam_rw_str(&P, "每行一个 %d 线程的块，块内归约，0 号线程写结果", m.block);
    }
    if (online) { how_en[nh++] = "online log-sum-exp: one pass keeps the running max and rescales the running sum"; how_zh[nhz++] = "在线 log-sum-exp：单次遍历维护最大值和缩放后的指数和"; }
    if (red) { how_en[nh++] = nll ? "block reduction, then one atomicAdd per block" : "one atomicAdd per row into the accumulator"; how_zh[nhz++] = "用 atomicAdd 累加"; }
    how_en[nh] = NULL; how_zh[nhz] = NULL;
    desc_facts f = {0};
    f.name_en = name_en; f.name_zh = name_zh; f.formula = formula; f.explain_en = ex_en; f.explain_zh = ex_zh; f.how_en = how_en; f.how_zh = how_zh;
    f.data = DESC_DATA_MATRIX;
    f.hints = (nll ? (nll_gs ? DESC_HINT_GRID_STRIDE : 0u) | (red ? DESC_HINT_SHUFFLE | DESC_HINT_SMEM : 0u) : synth_fam_rw_map_hints(&m)) | (red ? DESC_HINT_ATOMIC : 0u);
    f.elems_per_thread = nll && !nll_gs ? 1 : 0;
    f.shape_en = synth_fam_rw_str(&P, "%s is a rows x cols row-major %s matrix, %s holds rows int32 class indices%s", X, d.nm, L, ignore ? " (negative = ignore)" : " in [0, cols)");
    f.shape_zh = synth_fam_rw_str(&P, "%s 为 rows×cols 行主序矩阵（%s），%s 为 rows 个 int32 类别下标", X, d.zh, L);
    f.notes_en = smooth ? synth_fam_rw_str(&P, "%s is a scalar (%s in the tests); cols may be 1", SMN, smv) : "cols is arbitrary (may be 1)";
    f.notes_zh = smooth ? synth_fam_rw_str(&P, "%s 为标量（测试中为 %s）", SMN, smv) : "cols 任意";
    int es = d.kind >= RW_F16 ? 2 : d.f64 ? 8 : 4;
    char bytes[64], flops[32];
    snprintf(bytes, sizeof bytes, nll ? "%d*rows + 8*rows" : "%d*rows*cols + 8*rows", es);
    snprintf(flops, sizeof flops, nll ? "rows" : "4*rows*cols");
    synth_fam_rw_finish(root, &f, seed, nll ? "uniform(-6,0)" : "uniform(-1,1)", nll ? "normal(-3,1)" : "normal(0,4)", OT, d.f64 ? 1e-10 : 1e-5, NULL, 0,
                  synth_fam_ref(synth_fam_rw_xent), bytes, flops, s);
    synth_fam_rw_pool_free(&P);
    return PG_OK;
}

/* ======================================================================================== *
 * loss: elementwise losses with reduction none / sum / mean
 * ======================================================================================== */
enum { LS_MSE, LS_L1, LS_HUBER, LS_SL1, LS_BCE, LS_LOGCOSH, LS_N };

pg_status synth_fam_rw_loss(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x6c6f737366756e63ull};
    int op = synth_fam_pick(&r, LS_N);
    int dk = synth_fam_pick(&r, 20);
    rw_dt d = synth_fam_rw_dtype(dk < 11 ? RW_F32 : dk < 16 ? RW_F64 : dk < 18 ? RW_F16 : RW_BF16);
    int red = synth_fam_pick(&r, 3);
    bool weighted = synth_fam_pick(&r, 4) == 0;
    int B = 128 << synth_fam_pick(&r, 4);   /* 128 .. 1024 */
    if (red == RED_NONE && B == 1024) B = 256;
    bool tree = red != RED_NONE && synth_fam_pick(&r, 3) == 0;
    int V = d.kind == RW_F32 && red != RED_NONE && synth_fam_pick(&r, 2) ? 2 << synth_fam_pick(&r, 2) : 1;   /* float2 / float4 loads */
    if (V == 8) V = 4;
    int E = V == 1 && red != RED_NONE ? 1 << synth_fam_pick(&r, 4) : 1;   /* elements per thread per grid step */
    bool gs = red != RED_NONE || synth_fam_pick(&r, 2);
    int cap = 256 << synth_fam_pick(&r, 4);
    /* held out (bench/suite-prose): unweighted f32 BCE-with-logits without reduction on 256-thread blocks,
     * and the unweighted f32 Huber sum (that one under any launch) */
    if (op == LS_BCE && red == RED_NONE && d.kind == RW_F32 && !weighted && B == 256 && !gs) B = 128;
    if (op == LS_HUBER && red == RED_SUM && d.kind == RW_F32 && !weighted) red = RED_MEAN;
    static const char *OPN[] = {"mse", "l1", "huber", "smooth_l1", "bce_logits", "log_cosh"};
    static const char *PN[][2] = {{"pred", "target"}, {"input", "target"}, {"yhat", "y"}, {"x", "y"}, {"a", "b"}, {"p", "t"}};
    static const char *ON[] = {"loss", "out", "err", "result"};
    static const char *WN[] = {"w", "weight", "weights"};
    int pn = synth_fam_pick(&r, 6);
    const char *Pn = op == LS_BCE && pn >= 4 ? "logits" : PN[pn][0], *Tn = op == LS_BCE && pn >= 4 ? "labels" : PN[pn][1];
    const char *On = ON[synth_fam_pick(&r, 4)], *Wn = WN[synth_fam_pick(&r, 3)];
    const char *SC = op == LS_HUBER ? "delta" : op == LS_SL1 ? "beta" : NULL;
    const char *mt = d.mt, *ot = red == RED_NONE ? d.st : d.f64 ? "double" : "float", *OT = red == RED_NONE ? d.T : d.f64 ? "f64" : "f32";
    char tag[48];
    if (red == RED_NONE) snprintf(tag, sizeof tag, "b%d%s", B, gs ? "_gs" : "");
    else snprintf(tag, sizeof tag, "b%d%s_%s%d", B, tree ? "t" : "", V > 1 ? "v" : "e", V > 1 ? V : E);
    snprintf(s->family, sizeof s->family, "loss");
    snprintf(s->source, sizeof s->source, "nvcc");
    snprintf(s->name, sizeof s->name, "%s_%s_%s_%s%s", OPN[op], REDN[red], d.T, tag, weighted ? "_w" : "");
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "loss:%s:%s:%s:%s:%s", OPN[op], REDN[red], d.T, tag, weighted ? "weighted" : "-");

    /* ---- CUDA C ---- */
    const char *FABS = d.f64 ? "fabs" : "fabsf", *FMAX = d.f64 ? "fmax" : "fmaxf", *EXP = d.f64 ? "exp" : "expf", *LOG1P = d.f64 ? "log1p" : "log1pf";
    pg_buf *c = &s->cu;
    pg_buf_printf(c, "// %s: %s loss of %s predictions against targets, reduction %s.\n", s->name, OPN[op], d.st, REDN[red]);
    synth_fam_rw_macros(c, &d);
    switch (op) {   /* the per-element loss of prediction p_ and target t_ (math type) */
    case LS_MSE: pg_buf_puts(c, "#define LOSS(p_, t_) (((p_) - (t_)) * ((p_) - (t_)))\n"); break;
    case LS_L1: pg_buf_printf(c, "#define LOSS(p_, t_) %s((p_) - (t_))\n", FABS); break;
    case LS_HUBER:
        pg_buf_printf(c, "#define LOSS(p_, t_) (%s((p_) - (t_)) <= delta ? (%s)0.5 * ((p_) - (t_)) * ((p_) - (t_)) : delta * (%s((p_) - (t_)) - (%s)0.5 * delta))\n", FABS,
                      mt, FABS, mt);
        break;
    case LS_SL1:
        pg_buf_printf(c, "#define LOSS(p_, t_) (%s((p_) - (t_)) < beta ? (%s)0.5 * ((p_) - (t_)) * ((p_) - (t_)) / beta : %s((p_) - (t_)) - (%s)0.5 * beta)\n", FABS, mt,
                      FABS, mt);
        break;
    case LS_BCE:   /* max(z,0) - z t + log(1 + exp(-|z|)): no overflow for large |z| */
        pg_buf_printf(c, "#define LOSS(p_, t_) (%s((p_), (%s)0) - (p_) * (t_) + %s(%s(-%s(p_))))\n", FMAX, mt, LOG1P, EXP, FABS);
        break;
    default:   /* log(cosh(d)) = |d| + log(1 + exp(-2|d|)) - log(2), stable for large |d| */
        pg_buf_printf(c, "#define LOSS(p_, t_) (%s((p_) - (t_)) + %s(%s((%s)-2 * %s((p_) - (t_)))) - (%s)0.69314718055994531)\n", FABS, LOG1P, EXP, mt, FABS, mt);
        break;
    }
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ %s, const %s* __restrict__ %s", s->name, d.st, Pn, d.st, Tn);
    if (weighted) pg_buf_printf(c, ", const %s* __restrict__ %s", d.st, Wn);
    pg_buf_printf(c, ", %s* __restrict__ %s", ot, On);
    if (SC) pg_buf_printf(c, ", %s %s", mt, SC);
    pg_buf_puts(c, ", unsigned int n)\n{\n");
    char wmul[64] = "";
    if (weighted) snprintf(wmul, sizeof wmul, " * LD(%s[i])", Wn);
    if (red == RED_NONE) {
        if (gs) pg_buf_printf(c, "    for (size_t i = (size_t)blockIdx.x * %d + threadIdx.x; i < n; i += (size_t)gridDim.x * %d)\n", B, B);
        else pg_buf_printf(c, "    size_t i = (size_t)blockIdx.x * %d + threadIdx.x;\n    if (i < n)\n", B);
        pg_buf_printf(c, "        %s[i] = ST(LOSS(LD(%s[i]), LD(%s[i]))%s);\n", On, Pn, Tn, wmul);
    } else {
        pg_buf_printf(c, "    __shared__ %s red[%d];\n", mt, tree ? B : 32);
        pg_buf_printf(c, tree ? "    unsigned int tid = threadIdx.x;\n" : "    unsigned int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;\n");
        pg_buf_printf(c, "    %s acc = 0;\n", mt);
        if (V > 1) {
            const char *vt = V == 4 ? "float4" : "float2";
            pg_buf_printf(c, "    size_t nv = n / %d, gtid = (size_t)blockIdx.x * %d + tid, gstride = (size_t)gridDim.x * %d;\n", V, B, B);
            pg_buf_printf(c, "    const %s* pv = reinterpret_cast<const %s*>(%s);   // %d-wide loads (cudaMalloc'd buffers are 16-byte aligned)\n", vt, vt, Pn, V);
            pg_buf_printf(c, "    const %s* tv = reinterpret_cast<const %s*>(%s);\n", vt, vt, Tn);
            if (weighted) pg_buf_printf(c, "    const %s* wv = reinterpret_cast<const %s*>(%s);\n", vt, vt, Wn);
            pg_buf_printf(c, "    for (size_t j = gtid; j < nv; j += gstride) {\n        %s va = pv[j], vb = tv[j];\n", vt);
            if (weighted) pg_buf_printf(c, "        %s vw = wv[j];\n", vt);
            static const char *CM[] = {"x", "y", "z", "w"};
            for (int k = 0; k < V; k++) pg_buf_printf(c, "        acc += LOSS(va.%s, vb.%s)%s%s;\n", CM[k], CM[k], weighted ? " * vw." : "", weighted ? CM[k] : "");
            pg_buf_puts(c, "    }\n");
            pg_buf_printf(c, "    for (size_t i = nv * %d + gtid; i < n; i += gstride)   // the tail that does not fill a vector\n", V);
            pg_buf_printf(c, "        acc += LOSS(%s[i], %s[i])%s;\n", Pn, Tn, wmul);
        } else {
            pg_buf_printf(c, "    for (size_t base = (size_t)blockIdx.x * %d + tid; base < n; base += (size_t)gridDim.x * %d) {\n", B * E, B * E);
            if (E > 1) pg_buf_puts(c, "#pragma unroll\n");
            pg_buf_printf(c, "        for (int k = 0; k < %d; k++) {   // %d coalesced elements per thread per step\n", E, E);
            pg_buf_printf(c, "            size_t i = base + (size_t)k * %d;\n", B);
            pg_buf_printf(c, "            if (i < n) acc += LOSS(LD(%s[i]), LD(%s[i]))%s;\n        }\n    }\n", Pn, Tn, wmul);
        }
        synth_fam_rw_block_reduce(c, "    ", "acc", RW_SUM, d.f64, B, tree);
        if (red == RED_SUM) pg_buf_printf(c, "    if (tid == 0) atomicAdd(%s, acc);   // one atomic per block\n", On);
        else pg_buf_printf(c, "    if (tid == 0) atomicAdd(%s, acc / (%s)n);   // each block adds its share of the mean\n", On, mt);
    }
    pg_buf_puts(c, "}\n#undef LOSS\n");
    synth_fam_rw_macros_end(c);

    /* ---- task.json ---- */
    json_t *root = json_object();
    synth_fam_rw_head(root, s);
    json_object_set_new(root, "family_params", json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "op", OPN[op], "reduction", REDN[red], "pred", Pn, "target",
                                                         Tn, "out", On, "weight", weighted ? Wn : "", "scalar", SC ? SC : ""));
    char pt[16], pto[16];
    snprintf(pt, sizeof pt, "%s*", d.T);
    snprintf(pto, sizeof pto, "%s*", OT);
    json_t *ps = json_array();
    json_array_append_new(ps, synth_fam_rw_ptr(Pn, pt, "in", "n"));
    if (op == LS_BCE) json_array_append_new(ps, synth_fam_rw_ptr_dist(Tn, pt, "in", "n", "uniform(0,1)", "int(0,1)"));
    else json_array_append_new(ps, synth_fam_rw_ptr(Tn, pt, "in", "n"));
    if (weighted) json_array_append_new(ps, synth_fam_rw_ptr_dist(Wn, pt, "in", "n", "uniform(0,2)", "uniform(0.5,1)"));
    if (red == RED_NONE) json_array_append_new(ps, synth_fam_rw_ptr(On, pto, "out", "n"));
    else json_array_append_new(ps, synth_fam_rw_ptr_dist(On, pto, "inout", "1", "const(0)", "const(2.5)"));
    static const char *SCV[] = {"1.0", "0.5", "2.0", "0.25"};
    const char *scv = SCV[synth_fam_pick(&r, 4)];
    if (SC) json_array_append_new(ps, synth_fam_rw_scal(SC, d.f64 ? "f64" : "f32", scv));
    json_array_append_new(ps, synth_fam_rw_scal("n", "u32", "n"));
    json_object_set_new(root, "params", ps);
    static const int64_t SZ[2][6] = {{8388608, 1000003, 4097, 777, 33, 1}, {4194304, 999999, 65537, 1025, 31, 2}};
    static const char *SV[] = {"n"};
    json_object_set_new(root, "sizes", synth_fam_rw_sizes(SV, 1, SZ[synth_fam_pick(&r, 2)], 6));
    char blk[8], grid[64];
    snprintf(blk, sizeof blk, "%d", B);
    if (red == RED_NONE) {
        if (gs) snprintf(grid, sizeof grid, "min(cdiv(n,%d),%d)", B, cap);
        else snprintf(grid, sizeof grid, "cdiv(n,%d)", B);
    } else snprintf(grid, sizeof grid, "min(cdiv(n,%d),%d)", B * E * V, cap);
    json_object_set_new(root, "launch", json_pack("{s:[s], s:[s], s:s}", "block", blk, "grid", grid, "smem", "0"));

    /* ---- descriptions ---- */
    rw_pool P = {0};
    const char *dd = synth_fam_rw_str(&P, "d = %s[i] - %s[i]", Pn, Tn);
    const char *li;
    switch (op) {
    case LS_MSE: li = synth_fam_rw_str(&P, "(%s[i] - %s[i])^2", Pn, Tn); break;
    case LS_L1: li = synth_fam_rw_str(&P, "|%s[i] - %s[i]|", Pn, Tn); break;
    case LS_HUBER: li = synth_fam_rw_str(&P, "(|d| <= delta ? 0.5*d^2 : delta*(|d| - 0.5*delta)), %s", dd); break;
    case LS_SL1: li = synth_fam_rw_str(&P, "(|d| < beta ? 0.5*d^2/beta : |d| - 0.5*beta), %s", dd); break;
    case LS_BCE: li = synth_fam_rw_str(&P, "max(%s[i], 0) - %s[i]*%s[i] + log(1 + exp(-|%s[i]|))", Pn, Pn, Tn, Pn); break;
    default: li = synth_fam_rw_str(&P, "log(cosh(%s[i] - %s[i]))", Pn, Tn); break;
    }
    const char *lw = weighted ? synth_fam_rw_str(&P, "%s[i] * l_i", Wn) : "l_i";
    const char *formula = red == RED_NONE ? synth_fam_rw_str(&P, "%s[i] = %s, l_i = %s", On, lw, li)
                        : red == RED_SUM ? synth_fam_rw_str(&P, "%s[0] += sum_i %s, l_i = %s", On, lw, li)
                                         : synth_fam_rw_str(&P, "%s[0] += (1/n) sum_i %s, l_i = %s", On, lw, li);
    static const char *NE[LS_N][5] = {
        {"squared error loss", "MSE loss", "mean squared error", "L2 regression loss", "squared difference loss"},
        {"L1 loss", "absolute error loss", "mean absolute error (MAE)", "L1 regression loss", "absolute difference loss"},
        {"Huber loss", "HuberLoss with delta", "robust Huber regression loss", "Huber penalty", "quadratic-then-linear loss"},
        {"smooth L1 loss", "SmoothL1Loss with beta", "smoothed absolute error", "smooth-L1 box regression loss", "soft L1 loss"},
        {"binary cross-entropy with logits", "BCEWithLogitsLoss", "sigmoid cross-entropy", "logistic loss on logits", "stable binary log loss"},
        {"log-cosh loss", "logcosh regression loss", "log(cosh(pred - target)) loss", "log-cosh error", "smooth log-cosh penalty"}};
    static const char *NZ[LS_N][3] = {{"均方误差", "MSE 损失", "平方误差损失"},
                                      {"L1 损失", "绝对误差损失", "平均绝对误差"},
                                      {"Huber 损失", "胡伯损失", "鲁棒回归损失"},
                                      {"平滑 L1 损失", "SmoothL1 损失", "平滑绝对误差"},
                                      {"带 logits 的二元交叉熵", "sigmoid 交叉熵", "逻辑回归损失"},
                                      {"log-cosh 损失", "对数双曲余弦损失", "logcosh 回归损失"}};
    const char *name_en[6] = {NE[op][0], NE[op][1], NE[op][2], NE[op][3], NE[op][4], NULL};
    const char *name_zh[4] = {NZ[op][0], NZ[op][1], NZ[op][2], NULL};
    static const char *WE[LS_N] = {"the squared difference of", "the absolute difference of", "the Huber loss (quadratic within delta, linear outside) of",
                                   "the smooth-L1 loss (quadratic below beta, linear above) of", "the binary cross-entropy of the logit",
                                   "the log of the hyperbolic cosine of the difference of"};
    static const char *WZ[LS_N] = {"差的平方", "差的绝对值", "Huber 损失（|d| <= delta 时为二次，否则为线性）", "平滑 L1 损失（|d| < beta 时为二次，否则为线性）",
                                   "logit 与目标的二元交叉熵", "差的双曲余弦的对数"};
    const char *pair = op == LS_BCE ? synth_fam_rw_str(&P, "%s[i] against the target probability %s[i]", Pn, Tn) : synth_fam_rw_str(&P, "%s[i] and %s[i]", Pn, Tn);
    const char *wt = weighted ? synth_fam_rw_str(&P, ", multiplied by the weight %s[i]", Wn) : "";
    const char *wz = weighted ? synth_fam_rw_str(&P, "，再乘以权重 %s[i]", Wn) : "";
    const char *rw = red == RED_NONE ? synth_fam_rw_str(&P, "write it to %s[i]", On)
                   : red == RED_SUM ? synth_fam_rw_str(&P, "add the total over all n elements to %s[0] (a one-element accumulator that already holds a value)", On)
                                    : synth_fam_rw_str(&P, "add the average over the n elements to %s[0] (a one-element accumulator that already holds a value)", On);
    const char *rz = red == RED_NONE ? synth_fam_rw_str(&P, "写入 %s[i]", On) : red == RED_SUM ? synth_fam_rw_str(&P, "n 个元素的总和累加到 %s[0]（已有初值）", On)
                                                                         : synth_fam_rw_str(&P, "n 个元素的平均值累加到 %s[0]（已有初值）", On);
    const char *exs = SC ? synth_fam_rw_str(&P, " (%s = %s)", SC, scv) : "";
    const char *ex_en[4] = {synth_fam_rw_str(&P, "take, for every i < n, %s %s%s%s and %s", WE[op], pair, exs, wt, rw),
                            synth_fam_rw_str(&P, "compute the per-element loss %s%s and %s", li, wt, rw),
                            synth_fam_rw_str(&P, "evaluate %s %s element by element%s%s; %s", WE[op], pair, exs, wt, rw), NULL};
    const char *ex_zh[3] = {synth_fam_rw_str(&P, "对每个 i < n 计算 %s[i] 与 %s[i] 的%s%s，%s", Pn, Tn, WZ[op], wz, rz), synth_fam_rw_str(&P, "逐元素损失 %s%s，%s", li, wz, rz), NULL};
    const char *how_en[4], *how_zh[3];
    int nh = 0;
    if (red == RED_NONE) {
        how_en[nh] = gs ? synth_fam_rw_str(&P, "grid-stride loop, %d threads per block, at most %d blocks", B, cap) : "one thread per element";
        how_zh[nh++] = gs ? "网格步长循环" : "每个线程一个元素";
    } else {
        how_en[nh] = V > 1 ? synth_fam_rw_str(&P, "grid-stride loop with float%d vector loads and a scalar tail, block reduction (%s), one atomicAdd per block", V,
                                        tree ? "shared-memory tree" : "warp shuffles + shared memory")
                           : synth_fam_rw_str(&P, "grid-stride loop, %d element%s per thread per step, block reduction (%s), one atomicAdd per block", E, E > 1 ? "s" : "",
                                        tree ? "shared-memory tree" : "warp shuffles + shared memory");
        how_zh[nh++] = V > 1 ? synth_fam_rw_str(&P, "网格步长循环，float%d 向量化读取加标量尾部，块内归约后每块一次 atomicAdd", V)
                             : synth_fam_rw_str(&P, "网格步长循环，每线程每步 %d 个元素，块内归约后每块一次 atomicAdd", E);
    }
    how_en[nh] = NULL; how_zh[nh] = NULL;
    desc_facts f = {0};
    f.name_en = name_en; f.name_zh = name_zh; f.formula = formula; f.explain_en = ex_en; f.explain_zh = ex_zh; f.how_en = how_en; f.how_zh = how_zh;
    f.data = DESC_DATA_VECTOR;
    f.vec_width = V > 1 ? V : 0;
    f.elems_per_thread = red == RED_NONE && !gs ? 1 : 0;
    f.hints = DESC_HINT_COALESCED | DESC_HINT_MEMBOUND | (gs ? DESC_HINT_GRID_STRIDE : 0u) |
              (red != RED_NONE ? DESC_HINT_ATOMIC | DESC_HINT_SMEM | (tree ? 0u : DESC_HINT_SHUFFLE) : 0u);
    const char *ht = d.kind >= RW_F16 ? synth_fam_rw_str(&P, " (%s storage, math in float)", d.nm) : "";
    f.shape_en = synth_fam_rw_str(&P, "%s, %s%s%s are n-element %s arrays%s", Pn, Tn, weighted ? ", " : "", weighted ? Wn : "", d.nm, ht);
    f.shape_zh = synth_fam_rw_str(&P, "%s、%s%s%s 为长度 n 的%s数组", Pn, Tn, weighted ? "、" : "", weighted ? Wn : "", d.zh);
    f.notes_en = SC ? synth_fam_rw_str(&P, "%s is a scalar parameter (%s in the tests)", SC, scv) : NULL;
    f.notes_zh = SC ? synth_fam_rw_str(&P, "%s 为标量参数（测试中为 %s）", SC, scv) : NULL;
    int es = d.kind >= RW_F16 ? 2 : d.f64 ? 8 : 4;
    char bytes[48], flops[24];
    snprintf(bytes, sizeof bytes, "%d*n", es * (2 + weighted + (red == RED_NONE)));
    snprintf(flops, sizeof flops, "%d*n", op >= LS_BCE ? 6 : 3);
    double tol = red == RED_NONE ? synth_fam_rw_tol(&d) : d.f64 ? 1e-10 : 1e-5;
    synth_fam_rw_finish(root, &f, seed, "uniform(-1,1)", "normal(0,2)", OT, tol, NULL, 0, synth_fam_ref(synth_fam_rw_loss), bytes, flops, s);
    synth_fam_rw_pool_free(&P);
    return PG_OK;
}
