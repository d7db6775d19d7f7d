/* family_elem_index.c — indexed memory families (nvcc):
 *
 *   gather   out[i] = src[idx[i]] (s32/u32 indices; the index rule: all
 *            valid, clamped into [0, m), or out-of-range -> a fill value);
 *            row gather (embedding lookup) out[r][:] = table[idx[r]][:]
 *            (s32/u32/s64 ids, optional scale, one block per row with
 *            vector copies or a flattened index); where out = mask ? a : b
 *            or mask ? a : fill; masked fill x = mask ? fill : x in place;
 *            f32/f64/f16/s32 data, V = 1/2/4 where the index is linear
 *   scatter  out[idx[i]] = x[i] with unique indices (a permutation);
 *            scatter-add out[idx[i]] += [alpha *] x[i] with atomics and
 *            duplicate indices (f32/f64/s32), optionally skipping
 *            out-of-range indices; atomic max/min (s32); counting
 *            out[idx[i]] += 1; row scatter-add (embedding backward)
 *            table[idx[r]][:] += grad[r][:], one block per row or flattened
 *
 * References: fam_elem_gather, fam_elem_scatter (src/task/refs_elemfam_index.c). */
#include "family_elem.h"

#include <stdio.h>
#include <string.h>

enum { B_NONE, B_CLAMP, B_FILL };
static const char *BN[] = {"none", "clamp", "fill"};

/* The index check for local `id` (of type idt) against count m, as CUDA. */
static void idx_rule(pg_buf *b, int bounds, const char *idt, const char *id, const char *m, const char *ind) {
    bool uns = !strcmp(idt, "u32");
    if (bounds == B_CLAMP) {
        if (uns) pg_buf_printf(b, "%s%s = %s < %s ? %s : %s - 1;   // clamp into [0, %s)\n", ind, id, id, m, id, m, m);
        else pg_buf_printf(b, "%s%s = %s < 0 ? 0 : %s >= (long long)%s ? (long long)%s - 1 : %s;   // clamp into [0, %s)\n", ind, id, id, id, m, m, id, m);
    }
}
static const char *valid_expr(fe_strs *T, const char *idt, const char *id, const char *m) {
    const char *kv[] = {"i", id, "m", m, NULL};
    return synth_fe_t(T, kv, !strcmp(idt, "u32") ? "{i} < {m}" : "{i} >= 0 && {i} < (long long){m}");
}

/* ---- gather --------------------------------------------------------------------------- */
enum { G_1D, G_ROWS, G_WHERE, G_MASKFILL, G__N };

pg_status synth_fam_elem_gather(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x6761746865720009ull};
    int kind = synth_fam_pick(&r, G__N + 1);
    if (kind == G__N) kind = G_1D;
    static const char *DTS[] = {"f32", "f32", "f64", "f16", "s32"};
    const char *dt = DTS[synth_fam_pick(&r, 5)];
    const char *idt = synth_fam_pick(&r, 3) == 0 ? "u32" : kind == G_ROWS && synth_fam_pick(&r, 3) == 0 ? "s64" : "s32";
    int bounds = kind == G_1D || kind == G_ROWS ? synth_fam_pick(&r, 3) : B_NONE;
    bool gs = synth_fam_pick(&r, 2), scale = kind == G_ROWS && dt[0] == 'f' && synth_fam_pick(&r, 3) == 0, block_row = kind == G_ROWS && synth_fam_pick(&r, 2);
    bool fill_scalar = synth_fam_pick(&r, 2) && dt[0] == 'f';
    int block = 128 << synth_fam_pick(&r, 3), cap = synth_fe_cap(&r), V = 1 << synth_fam_pick(&r, 3);
    if (!strcmp(dt, "f64") && V > 2) V = 2;
    if (kind == G_ROWS && (!block_row || scale)) V = 1;
    /* held out (bench/suite gather_idx): the f32 gather by s32 indices on 256-thread blocks, whatever the bounds rule */
    if (kind == G_1D && !strcmp(dt, "f32") && !strcmp(idt, "s32") && block == 256) block = 512;
    if (kind == G_WHERE && synth_fam_pick(&r, 2) == 0) fill_scalar = dt[0] == 'f';
    bool where_fill = kind == G_WHERE && fill_scalar;
    if (kind == G_MASKFILL) fill_scalar = true;
    static const char *const GN[][3] = {{"src", "idx", "out"}, {"table", "indices", "dst"}, {"x", "index", "y"}, {"values", "ids", "result"}};
    static const char *const RN[][3] = {{"table", "ids", "out"}, {"emb", "tokens", "x"}, {"weight", "indices", "output"}, {"embedding", "idx", "dst"}};
    static const char *const WN[][4] = {{"mask", "a", "b", "out"}, {"cond", "x", "y", "z"}, {"keep", "src", "other", "dst"}, {"m", "in", "alt", "res"}};
    const char *const *gn = kind == G_ROWS ? RN[synth_fam_pick(&r, 4)] : GN[synth_fam_pick(&r, 4)], *const *wn = WN[synth_fam_pick(&r, 4)];
    const char *FILL = fill_scalar ? (synth_fam_pick(&r, 2) ? "fill" : "pad_value") : NULL, *SC = "scale";
    static const double FV[] = {0.0, -1.0, 3.5, -100.0};
    double fv = FV[synth_fam_pick(&r, 4)], sv = synth_fam_pick(&r, 2) ? 32.0 : 0.125;
    if (!strcmp(dt, "s32") && fv == 3.5) fv = 7;   /* integer data, integer fill */

    snprintf(s->family, sizeof s->family, "gather");
    snprintf(s->source, sizeof s->source, "nvcc");
    static const char *KN[] = {"gather", "embedding_gather", "where", "masked_fill"};
    if (kind == G_1D || kind == G_ROWS)
        snprintf(s->name, sizeof s->name, "%s_%s_%s_%s%s%s_v%d%s", KN[kind], dt, idt, BN[bounds], scale ? "_scaled" : "", kind == G_ROWS ? (block_row ? "_blockrow" : "_flat") : "",
                 V, gs ? "_gs" : "");
    else snprintf(s->name, sizeof s->name, "%s_%s%s_v%d%s", KN[kind], dt, where_fill ? "_fill" : "", V, gs ? "_gs" : "");
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "gather:%s:%s:%s:%s:%s:%s:%s:v%d:%s%d:b%d", KN[kind], dt, kind <= G_ROWS ? idt : "-", BN[bounds], scale ? "scale" : "-",
             block_row ? "blockrow" : "flat", where_fill ? "fill" : "-", V, gs ? "gs" : "one", gs ? cap : 0, block);

    fe_strs T = {0};
    pg_buf sig = {0}, body = {0};
    json_t *root = synth_fe_root(s->name, "gather"), *ps = json_array();
    const char *sdt = !strcmp(dt, "f64") ? "f64" : !strcmp(dt, "s32") ? "s32" : "f32";
    bool uns = !strcmp(idt, "u32");
    const char *i0 = bounds == B_NONE ? "int(0,m-1)" : uns ? "int(0,m+15)" : "int(-8,m+7)";
    const char *i1 = bounds == B_NONE ? "int(0,min(m-1,31))" : "int(0,m-1)";
    const char *ctype = !strcmp(idt, "s64") ? "long long" : uns ? "unsigned int" : "long long";
    const char *SRC = gn[0], *IDX = gn[1], *OUT = gn[2];
    char fl[32], sl[32];
    if (!strcmp(dt, "s32")) snprintf(fl, sizeof fl, "%d", (int)fv);
    else synth_fe_lit(fl, sizeof fl, fv);
    synth_fe_lit(sl, sizeof sl, sv);
    char fillv[48];
    snprintf(fillv, sizeof fillv, "%s", FILL ? FILL : "0");
    json_t *sizes = NULL;
    pg_buf *c = &s->cu;
    if (kind == G_1D) {
        synth_fe_sig_ptr(&sig, SRC, dt, FE_IN); synth_fe_ptr(ps, SRC, dt, FE_IN, "m");
        synth_fe_sig_ptr(&sig, IDX, idt, FE_IN); synth_fe_ptr_dist(ps, IDX, idt, FE_IN, "n", i0, i1, NULL);
        synth_fe_sig_ptr(&sig, OUT, dt, FE_OUT); synth_fe_ptr(ps, OUT, dt, FE_OUT, "n");
        if (bounds == B_FILL && FILL) { synth_fe_sig_scal(&sig, FILL, sdt); synth_fe_scal(ps, FILL, sdt, fl); }
        synth_fe_sig_scal(&sig, "n", "u32"); synth_fe_scal(ps, "n", "u32", "n");
        synth_fe_sig_scal(&sig, "m", "u32"); synth_fe_scal(ps, "m", "u32", "m");
        pg_buf_printf(&body, "%s j = %s_e;\n", ctype, IDX);
        idx_rule(&body, bounds, idt, "j", "m", "");
        char el[64];
        snprintf(el, sizeof el, "%s[j]", SRC);
        pg_buf ld = {0};
        synth_fe_ld(&ld, dt, el);
        if (bounds == B_FILL) pg_buf_printf(&body, "%s_e = %s ? %s : %s;   // out of range: the fill value\n", OUT, valid_expr(&T, idt, "j", "m"), ld.data, fillv);
        else pg_buf_printf(&body, "%s_e = %s;\n", OUT, ld.data);
        pg_buf_free(&ld);
        fe_kernel k = {.name = s->name, .comment = "out[i] = src[idx[i]]", .sig = sig.data, .n = "n", .body = body.data, .V = V, .grid_stride = gs};
        k.arr[k.narr++] = (fe_arr){IDX, idt, FE_IN, false};
        k.arr[k.narr++] = (fe_arr){OUT, dt, FE_OUT, false};
        synth_fe_emit(&k, seed, s, c);
        sizes = json_pack("[{s:i, s:i, s:b}, {s:i, s:i}, {s:i, s:i}, {s:i, s:i}, {s:i, s:i}]", "n", 16777216, "m", 4000037, "time", 1, "n", 1000003, "m", 77, "n", 777, "m",
                          5000, "n", 130, "m", 1, "n", 1, "m", 3);
        synth_fe_launch1(root, block, V, gs, cap, synth_fe_grid_mult(seed), "n");
    } else if (kind == G_ROWS) {
        synth_fe_sig_ptr(&sig, SRC, dt, FE_IN); synth_fe_ptr(ps, SRC, dt, FE_IN, "vocab*dim");
        synth_fe_sig_ptr(&sig, IDX, idt, FE_IN); synth_fe_ptr_dist(ps, IDX, idt, FE_IN, "rows", bounds == B_NONE ? "int(0,vocab-1)" : uns ? "int(0,vocab+3)" : "int(-2,vocab+1)",
                                                       bounds == B_NONE ? "int(0,min(vocab-1,7))" : "int(0,vocab-1)", NULL);
        synth_fe_sig_ptr(&sig, OUT, dt, FE_OUT); synth_fe_ptr(ps, OUT, dt, FE_OUT, "rows*dim");
        if (bounds == B_FILL && FILL) { synth_fe_sig_scal(&sig, FILL, sdt); synth_fe_scal(ps, FILL, sdt, fl); }
        if (scale) { synth_fe_sig_scal(&sig, SC, sdt); synth_fe_scal(ps, SC, sdt, sl); }
        synth_fe_sig_scal(&sig, "rows", "u32"); synth_fe_scal(ps, "rows", "u32", "rows");
        synth_fe_sig_scal(&sig, "dim", "u32"); synth_fe_scal(ps, "dim", "u32", "dim");
        synth_fe_sig_scal(&sig, "vocab", "u32"); synth_fe_scal(ps, "vocab", "u32", "vocab");
        const char *CT = synth_fe_ctype(dt);
        pg_buf_printf(c, "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n// %s: %s[r][:] = %s%s[%s[r]][:] (embedding lookup), index rule %s\n", s->name, OUT, scale ? "scale * " : "", SRC, IDX, BN[bounds]);
        pg_buf_printf(c, "extern \"C\" __global__ void %s(%s)\n{\n", s->name, sig.data);
        /* the value of element e of the selected row, as stored */
        pg_buf val = {0};
        {
            pg_buf ld = {0};
            synth_fe_ld(&ld, dt, "row[e]");
            if (scale) {
                pg_buf v2 = {0};
                pg_buf_printf(&v2, "(%s) * %s", ld.data, SC);
                synth_fe_st(&val, dt, v2.data);
                pg_buf_free(&v2);
            } else pg_buf_puts(&val, "row[e]");
            pg_buf_free(&ld);
        }
        pg_buf fillst = {0};
        synth_fe_st(&fillst, dt, fillv);
        if (block_row) {
            pg_buf_puts(c, gs ? "    for (unsigned int r = blockIdx.x; r < rows; r += gridDim.x) {\n" : "    unsigned int r = blockIdx.x;\n    if (r < rows) {\n");
            pg_buf_printf(c, "        %s j = %s[r];\n", ctype, IDX);
            idx_rule(c, bounds, idt, "j", "vocab", "        ");
            pg_buf_printf(c, "        %s* orow = %s + (size_t)r * dim;\n", CT, OUT);
            if (bounds == B_FILL) {
                pg_buf_printf(c, "        if (!(%s)) {   // out of range: a row of the fill value\n", valid_expr(&T, idt, "j", "vocab"));
                pg_buf_printf(c, "            for (unsigned int e = threadIdx.x; e < dim; e += blockDim.x) orow[e] = %s;\n            %s;\n        }\n", fillst.data, gs ? "continue" : "return");
            }
            pg_buf_printf(c, "        const %s* row = %s + (size_t)j * dim;\n", CT, SRC);
            if (V > 1 && !scale) {
                const char *vt = !strcmp(dt, "f64") ? "double2" : !strcmp(dt, "f16") ? (V == 4 ? "uint2" : "unsigned int") : V == 4 ? (dt[0] == 's' ? "int4" : "float4") : (dt[0] == 's' ? "int2" : "float2");
                pg_buf_printf(c, "        // dim is a multiple of %d: copy %d elements at a time\n", V, V);
                pg_buf_printf(c, "        for (unsigned int e = threadIdx.x; e < dim / %d; e += blockDim.x)\n            reinterpret_cast<%s*>(orow)[e] = reinterpret_cast<const %s*>(row)[e];\n", V, vt, vt);
            } else pg_buf_printf(c, "        for (unsigned int e = threadIdx.x; e < dim; e += blockDim.x) orow[e] = %s;\n", val.data);
            pg_buf_puts(c, "    }\n}\n");
            char g[64], b[16];
            snprintf(b, sizeof b, "%d", block);
            if (gs) snprintf(g, sizeof g, "min(rows,%d)", cap);
            else snprintf(g, sizeof g, "rows");
            json_object_set_new(root, "launch", json_pack("{s:[s], s:[s], s:s}", "block", b, "grid", g, "smem", "0"));
        } else {
            pg_buf_puts(c, gs ? "    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)rows * dim; i += (size_t)gridDim.x * blockDim.x) {\n"
                              : "    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < (size_t)rows * dim) {\n");
            pg_buf_printf(c, "        size_t r = i / dim, e = i %% dim;\n        %s j = %s[r];\n", ctype, IDX);
            idx_rule(c, bounds, idt, "j", "vocab", "        ");
            pg_buf_printf(c, "        const %s* row = %s + (size_t)j * dim;\n", CT, SRC);
            if (bounds == B_FILL) pg_buf_printf(c, "        %s[i] = %s ? %s : %s;\n", OUT, valid_expr(&T, idt, "j", "vocab"), val.data, fillst.data);
            else pg_buf_printf(c, "        %s[i] = %s;\n", OUT, val.data);
            pg_buf_puts(c, "    }\n}\n");
            synth_fe_launch1(root, block, 1, gs, cap, synth_fe_grid_mult(seed), "rows*dim");
        }
        pg_buf_free(&val);
        pg_buf_free(&fillst);
        if (V > 1)
            sizes = json_pack("[{s:i, s:i, s:i, s:b}, {s:i, s:i, s:i}, {s:i, s:i, s:i}, {s:i, s:i, s:i}]", "rows", 16384, "dim", 1024, "vocab", 50000, "time", 1, "rows", 1000,
                              "dim", 100, "vocab", 777, "rows", 3, "dim", 12, "vocab", 5, "rows", 1, "dim", 4, "vocab", 1);
        else
            sizes = json_pack("[{s:i, s:i, s:i, s:b}, {s:i, s:i, s:i}, {s:i, s:i, s:i}, {s:i, s:i, s:i}]", "rows", 16384, "dim", 1024, "vocab", 50000, "time", 1, "rows", 1000,
                              "dim", 99, "vocab", 777, "rows", 3, "dim", 13, "vocab", 5, "rows", 1, "dim", 1, "vocab", 1);
    } else {   /* where / masked fill */
        const char *M = wn[0], *A = wn[1], *B = wn[2], *O = wn[3];
        if (kind == G_MASKFILL) A = wn[1];
        synth_fe_sig_ptr(&sig, M, "u8", FE_IN); synth_fe_ptr_dist(ps, M, "u8", FE_IN, "n", "int(0,1)", "int(0,1)", NULL);
        fe_kernel k = {.name = s->name, .sig = NULL, .n = "n", .V = V, .grid_stride = gs};
        k.arr[k.narr++] = (fe_arr){M, "u8", FE_IN, false};
        if (kind == G_WHERE) {
            synth_fe_sig_ptr(&sig, A, dt, FE_IN); synth_fe_ptr(ps, A, dt, FE_IN, "n");
            k.arr[k.narr++] = (fe_arr){A, dt, FE_IN, false};
            if (!where_fill) { synth_fe_sig_ptr(&sig, B, dt, FE_IN); synth_fe_ptr(ps, B, dt, FE_IN, "n"); k.arr[k.narr++] = (fe_arr){B, dt, FE_IN, false}; }
            synth_fe_sig_ptr(&sig, O, dt, FE_OUT); synth_fe_ptr(ps, O, dt, FE_OUT, "n");
            k.arr[k.narr++] = (fe_arr){O, dt, FE_OUT, false};
            if (where_fill) { synth_fe_sig_scal(&sig, FILL, sdt); synth_fe_scal(ps, FILL, sdt, fl); }
            pg_buf_printf(&body, "%s_e = %s_e != 0 ? %s_e : %s%s;\n", O, M, A, where_fill ? FILL : B, where_fill ? "" : "_e");
            k.comment = "out = mask ? a : b";
        } else {
            synth_fe_sig_ptr(&sig, A, dt, FE_INOUT); synth_fe_ptr(ps, A, dt, FE_INOUT, "n");
            k.arr[k.narr++] = (fe_arr){A, dt, FE_INOUT, false};
            synth_fe_sig_scal(&sig, FILL, sdt); synth_fe_scal(ps, FILL, sdt, fl);
            pg_buf_printf(&body, "if (%s_e != 0) %s_e = %s;\n", M, A, FILL);
            k.comment = "x = mask ? fill : x, in place";
        }
        synth_fe_sig_scal(&sig, "n", "u32"); synth_fe_scal(ps, "n", "u32", "n");
        k.sig = sig.data;
        k.body = body.data;
        synth_fe_emit(&k, seed, s, c);
        sizes = synth_fe_sizes1("n", (const long[]){16777216, 1000003, 4099, 777, 1, 0});
        synth_fe_launch1(root, block, V, gs, cap, synth_fe_grid_mult(seed), "n");
        SRC = A; IDX = M; OUT = kind == G_WHERE ? O : A;
        json_object_set_new(root, "family_params", json_pack("{s:s, s:s, s:s, s:s?, s:s, s:s?}", "kind", KN[kind], "mask", M, "a", A, "b", kind == G_WHERE && !where_fill ? B : NULL,
                                                             "out", OUT, "fill", kind == G_MASKFILL || where_fill ? FILL : NULL));
    }
    if (kind <= G_ROWS)
        json_object_set_new(root, "family_params", json_pack("{s:s, s:s, s:s, s:s, s:s, s:s?, s:s?}", "kind", KN[kind], "bounds", BN[bounds], "src", SRC, "idx", IDX, "out", OUT,
                                                             "fill", bounds == B_FILL ? FILL : NULL, "scale", scale ? SC : NULL));
    json_object_set_new(root, "params", ps);
    json_object_set_new(root, "sizes", sizes);
    if (!strcmp(dt, "s32")) json_object_set_new(root, "distributions", json_pack("[s, s]", "int(-1000000,1000000)", "int(-5,5)"));
    else json_object_set_new(root, "distributions", json_pack("[s, s]", "uniform(-1,1)", "normal(0,100)"));

    /* descriptions */
    const char *kv[] = {"s", SRC, "i", IDX, "o", OUT, "f", FILL ? FILL : "0", "sc", SC, "m", kind == G_ROWS ? "vocab" : "m", "a", SRC, "b", wn[2], "k", IDX, NULL};
    const char *ne[6], *nz[4], *ee[4], *zz[3], *fo;
    const char *rule_en = bounds == B_CLAMP ? " Indices outside [0, {m}) are clamped to the nearest valid index."
                        : bounds == B_FILL  ? " Indices outside [0, {m}) produce {f} instead of a load."
                                            : " Every index is in [0, {m}).";
    const char *rule_zh = bounds == B_CLAMP ? "越界下标截断到 [0, {m}) 内。" : bounds == B_FILL ? "越界下标输出 {f}。" : "所有下标都在 [0, {m}) 内。";
    pg_buf e1 = {0}, e2 = {0}, e3 = {0}, z1 = {0}, z2 = {0};
    if (kind == G_1D) {
        static const char *N1[] = {"gather", "indexed gather", "gather by index", "index_select on a vector", "table lookup by index"};
        for (int j = 0; j < 5; j++) ne[j] = N1[j];
        nz[0] = "按下标收集（gather）"; nz[1] = "索引取值"; nz[2] = "按索引查表";
        fo = synth_fe_t(&T, kv, bounds == B_CLAMP ? "{o}[i] = {s}[clamp({i}[i], 0, m-1)]" : bounds == B_FILL ? "{o}[i] = 0 <= {i}[i] < m ? {s}[{i}[i]] : {f}" : "{o}[i] = {s}[{i}[i]]");
        pg_buf_printf(&e1, "%s", synth_fe_t(&T, kv, "for every i < n reads the index {i}[i] and copies {s} at that index into {o}[i]"));
        pg_buf_printf(&e2, "%s", synth_fe_t(&T, kv, "builds {o} (n entries) by looking up the table {s} (m entries) at the positions listed in {i}"));
        pg_buf_printf(&e3, "%s", synth_fe_t(&T, kv, "performs an indexed load: output position i takes the element of {s} whose number is stored at position i of {i}"));
        pg_buf_printf(&z1, "%s", synth_fe_t(&T, kv, "对每个 i < n 读取下标 {i}[i]，把 {s} 在该位置的值写入 {o}[i]"));
        pg_buf_printf(&z2, "%s", synth_fe_t(&T, kv, "按 {i} 给出的位置从长度为 m 的 {s} 中取值，得到长度为 n 的 {o}"));
    } else if (kind == G_ROWS) {
        static const char *N2[] = {"embedding lookup", "row gather", "embedding table gather", "gather rows by token id", "nn.Embedding forward"};
        for (int j = 0; j < 5; j++) ne[j] = N2[j];
        nz[0] = "词嵌入查表"; nz[1] = "按行收集"; nz[2] = "Embedding 前向";
        fo = synth_fe_t(&T, kv, bounds == B_CLAMP ? (scale ? "{o}[r][e] = {sc} * {s}[clamp({i}[r], 0, vocab-1)][e]" : "{o}[r][e] = {s}[clamp({i}[r], 0, vocab-1)][e]")
                          : bounds == B_FILL ? (scale ? "{o}[r][e] = 0 <= {i}[r] < vocab ? {sc} * {s}[{i}[r]][e] : {f}" : "{o}[r][e] = 0 <= {i}[r] < vocab ? {s}[{i}[r]][e] : {f}")
                                             : (scale ? "{o}[r][e] = {sc} * {s}[{i}[r]][e]" : "{o}[r][e] = {s}[{i}[r]][e]"));
        pg_buf_printf(&e1, "%s", synth_fe_t(&T, kv, scale ? "copies row {i}[r] of the vocab x dim table {s} into row r of {o} (rows x dim), multiplying every element by {sc}"
                                                    : "copies row {i}[r] of the vocab x dim table {s} into row r of {o} (rows x dim)"));
        pg_buf_printf(&e2, "%s", synth_fe_t(&T, kv, "looks up one embedding vector of length dim per token: token r has id {i}[r], and its vector is row {i}[r] of {s}"));
        pg_buf_printf(&e3, "%s", synth_fe_t(&T, kv, "gathers whole rows of {s}: output row r is the table row selected by {i}[r]"));
        pg_buf_printf(&z1, "%s", synth_fe_t(&T, kv, scale ? "把 vocab×dim 表 {s} 的第 {i}[r] 行乘以 {sc} 后复制到 {o} 的第 r 行" : "把 vocab×dim 表 {s} 的第 {i}[r] 行复制到 {o} 的第 r 行"));
        pg_buf_printf(&z2, "%s", synth_fe_t(&T, kv, "每个 token 按其 id {i}[r] 查出一行长度为 dim 的嵌入向量"));
    } else if (kind == G_WHERE) {
        static const char *N3[] = {"where (select by mask)", "masked select between two arrays", "conditional select", "torch.where", "blend by a boolean mask"};
        for (int j = 0; j < 5; j++) ne[j] = N3[j];
        nz[0] = "按掩码选择（where）"; nz[1] = "条件选择"; nz[2] = "掩码选择";
        fo = synth_fe_t(&T, kv, where_fill ? "{o}[i] = {k}[i] != 0 ? {a}[i] : {f}" : "{o}[i] = {k}[i] != 0 ? {a}[i] : {b}[i]");
        pg_buf_printf(&e1, "%s", synth_fe_t(&T, kv, where_fill ? "for every i < n writes {a}[i] to {o}[i] where the byte mask {k}[i] is nonzero and the scalar {f} where it is zero"
                                                         : "for every i < n writes {a}[i] to {o}[i] where the byte mask {k}[i] is nonzero and {b}[i] where it is zero"));
        pg_buf_printf(&e2, "%s", synth_fe_t(&T, kv, where_fill ? "keeps the elements of {a} selected by the mask {k} (one byte per element, 0 or 1) and replaces the rest by {f}, writing {o}"
                                                         : "merges {a} and {b} under the byte mask {k}: mask set takes {a}, mask clear takes {b}; result in {o}"));
        pg_buf_printf(&e3, "%s", synth_fe_t(&T, kv, "picks, position by position, between the two sources according to a uint8 mask"));
        pg_buf_printf(&z1, "%s", synth_fe_t(&T, kv, where_fill ? "对每个 i < n：掩码 {k}[i] 非 0 时输出 {a}[i]，否则输出标量 {f}，写入 {o}" : "对每个 i < n：掩码 {k}[i] 非 0 时输出 {a}[i]，否则输出 {b}[i]，写入 {o}"));
        pg_buf_printf(&z2, "%s", synth_fe_t(&T, kv, "按字节掩码逐元素选择"));
    } else {
        static const char *N4[] = {"masked fill", "fill where mask is set", "in-place masked_fill_", "overwrite masked elements", "mask-based fill"};
        for (int j = 0; j < 5; j++) ne[j] = N4[j];
        nz[0] = "按掩码填充"; nz[1] = "masked_fill"; nz[2] = "掩码位置赋值";
        fo = synth_fe_t(&T, kv, "{a}[i] = {k}[i] != 0 ? {f} : {a}[i]");
        pg_buf_printf(&e1, "%s", synth_fe_t(&T, kv, "sets {a}[i] to {f} wherever the byte mask {k}[i] is nonzero and leaves the other elements unchanged (in place)"));
        pg_buf_printf(&e2, "%s", synth_fe_t(&T, kv, "overwrites the masked positions of {a} with the constant {f}"));
        pg_buf_printf(&e3, "%s", synth_fe_t(&T, kv, "does masked_fill_ in place: mask 1 -> {f}, mask 0 -> keep"));
        pg_buf_printf(&z1, "%s", synth_fe_t(&T, kv, "掩码 {k}[i] 非 0 的位置把 {a}[i] 改为 {f}，其余不变（原地）"));
        pg_buf_printf(&z2, "%s", synth_fe_t(&T, kv, "按掩码原地填充常数 {f}"));
    }
    if (kind <= G_ROWS) {
        pg_buf_puts(&e1, synth_fe_t(&T, kv, rule_en));
        pg_buf_puts(&e2, synth_fe_t(&T, kv, rule_en));
        pg_buf_puts(&e3, synth_fe_t(&T, kv, rule_en));
        pg_buf_puts(&z2, "。");
        pg_buf_puts(&z2, synth_fe_t(&T, kv, rule_zh));
        pg_buf_puts(&z1, "。");
        pg_buf_puts(&z1, synth_fe_t(&T, kv, rule_zh));
    }
    ne[5] = NULL; nz[3] = NULL;
    ee[0] = e1.data; ee[1] = e2.data; ee[2] = e3.data; ee[3] = NULL;
    zz[0] = z1.data; zz[1] = z2.data; zz[2] = NULL;
    const char *hw[3] = {NULL, NULL, NULL}, *hz[2] = {NULL, NULL};
    if (kind == G_ROWS && block_row) {
        pg_buf h = {0};
        pg_buf_printf(&h, "one block per output row%s; its threads copy the row%s", gs ? " (grid-stride over rows)" : "", V > 1 && !scale ? synth_fe_t(&T, NULL, V == 4 ? " with 4-wide vector copies (dim is a multiple of 4)" : " with 2-wide vector copies (dim is even)") : "");
        hw[0] = synth_fe_t(&T, NULL, h.data);
        pg_buf_free(&h);
        hz[0] = gs ? "每个线程块负责一行（按步长遍历行），线程复制该行" : "每个线程块负责一行，线程复制该行";
    } else if (kind == G_ROWS) {
        hw[0] = gs ? "one output element per thread over the flattened rows*dim index, grid-stride loop" : "one output element per thread over the flattened rows*dim index";
        hz[0] = "按展平的 rows*dim 下标每个线程一个元素";
    } else {
        hw[0] = synth_fe_how_en(&T, V, gs);
        hz[0] = synth_fe_how_zh(&T, V, gs);
    }
    if (kind == G_1D) hw[1] = "reads of the index array and writes of the output are coalesced; the table reads are random";
    pg_buf notes = {0}, notez = {0}, shp = {0}, shz = {0};
    pg_buf_puts(&notes, "Exact copy");
    pg_buf_puts(&notez, "结果精确");
    if (FILL && (bounds == B_FILL || kind >= G_WHERE)) { pg_buf_printf(&notes, "; %s = %s", FILL, fl); pg_buf_printf(&notez, "；%s = %s", FILL, fl); }
    if (scale) { pg_buf_printf(&notes, "; %s = %s", SC, sl); pg_buf_printf(&notez, "；%s = %s", SC, sl); }
    if (kind == G_1D) {
        pg_buf_printf(&shp, "%s has m %s entries, %s n %s indices, %s n entries", SRC, dt, IDX, idt, OUT);
        pg_buf_printf(&shz, "%s 有 m 个 %s，%s 有 n 个 %s 下标，%s 有 n 个元素", SRC, dt, IDX, idt, OUT);
    } else if (kind == G_ROWS) {
        pg_buf_printf(&shp, "%s is vocab x dim row-major %s, %s has rows %s ids, %s is rows x dim", SRC, dt, IDX, idt, OUT);
        pg_buf_printf(&shz, "%s 为 vocab×dim 行主序 %s 表，%s 有 rows 个 %s id，%s 为 rows×dim", SRC, dt, IDX, idt, OUT);
    } else {
        pg_buf_printf(&shp, "%s is n bytes (0 or 1); the data arrays hold n %s", IDX, dt);
        pg_buf_printf(&shz, "%s 为 n 个字节（0 或 1），数据数组各 n 个 %s", IDX, dt);
    }
    desc_facts f = {.name_en = ne, .name_zh = nz, .formula = fo, .explain_en = ee, .explain_zh = zz, .how_en = hw, .how_zh = hz, .shape_en = shp.data, .shape_zh = shz.data,
                    .notes_en = notes.data, .notes_zh = notez.data};
    char bytes[64];
    int es = synth_fe_size(dt), is = synth_fe_size(idt);
    if (kind == G_1D) snprintf(bytes, sizeof bytes, "%d*n", 2 * es + is);
    else if (kind == G_ROWS) snprintf(bytes, sizeof bytes, "%d*rows*dim + %d*rows", 2 * es, is);
    else snprintf(bytes, sizeof bytes, "%d*n", 1 + es * (kind == G_WHERE ? (where_fill ? 2 : 3) : 2));
    synth_fe_finish(root, &f, seed, dt, 0.0, NULL, 0, synth_fam_ref(synth_fam_elem_gather), bytes, "0", &s->task_json);
    pg_buf_free(&e1); pg_buf_free(&e2); pg_buf_free(&e3); pg_buf_free(&z1); pg_buf_free(&z2);
    pg_buf_free(&notes); pg_buf_free(&notez); pg_buf_free(&shp); pg_buf_free(&shz); pg_buf_free(&sig); pg_buf_free(&body);
    synth_fe_strs_free(&T);
    return PG_OK;
}

/* ---- scatter ------------------------------------------------------------------------------ */
enum { S_UNIQUE, S_ADD, S_MINMAX, S_COUNT, S_ROWS, S__N };

pg_status synth_fam_elem_scatter(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x73636174746572aull};
    int kind = synth_fam_pick(&r, S__N + 1);
    if (kind == S__N) kind = S_ADD;
    static const char *DTS[] = {"f32", "f32", "f64", "s32"};
    const char *dt = kind == S_MINMAX || kind == S_COUNT ? "s32" : DTS[synth_fam_pick(&r, kind == S_UNIQUE ? 4 : kind == S_ROWS ? 3 : 4)];
    const char *idt = synth_fam_pick(&r, 3) == 0 ? "u32" : "s32";
    bool gs = synth_fam_pick(&r, 2), alpha = (kind == S_ADD || kind == S_ROWS) && dt[0] == 'f' && synth_fam_pick(&r, 3) == 0, skip = (kind == S_ADD || kind == S_COUNT) && synth_fam_pick(&r, 3) == 0;
    bool mx = synth_fam_pick(&r, 2), block_row = kind == S_ROWS && synth_fam_pick(&r, 2);
    int block = 128 << synth_fam_pick(&r, 3), cap = synth_fe_cap(&r), V = kind == S_ROWS ? 1 : 1 << synth_fam_pick(&r, 3);
    if (!strcmp(dt, "f64") && V > 2) V = 2;
    /* held out (bench/suite scatter_add_atomic): the f32 scatter-add by s32 indices on 256-thread blocks, whatever the bounds rule */
    if (kind == S_ADD && !strcmp(dt, "f32") && !strcmp(idt, "s32") && block == 256) block = 512;
    static const char *const SN[][3] = {{"vals", "idx", "out"}, {"src", "index", "dst"}, {"updates", "indices", "acc"}, {"x", "pos", "y"}};
    static const char *const RN[][3] = {{"grad_out", "ids", "grad_table"}, {"dy", "tokens", "dW"}, {"g", "idx", "table_grad"}};
    const char *const *sn = kind == S_ROWS ? RN[synth_fam_pick(&r, 3)] : SN[synth_fam_pick(&r, 4)];
    const char *X = sn[0], *IDX = sn[1], *OUT = sn[2], *AL = "alpha";
    if (kind == S_COUNT) { X = NULL; OUT = synth_fam_pick(&r, 2) ? "counts" : "hist"; }
    static const double AV[] = {0.5, -1.0, 0.125, 2.0};
    double av = AV[synth_fam_pick(&r, 4)];

    snprintf(s->family, sizeof s->family, "scatter");
    snprintf(s->source, sizeof s->source, "nvcc");
    static const char *KN[] = {"scatter", "scatter_add", "scatter_minmax", "scatter_count", "embedding_backward"};
    const char *opn = kind == S_MINMAX ? (mx ? "max" : "min") : kind == S_UNIQUE ? "set" : "add";
    if (kind == S_ROWS) snprintf(s->name, sizeof s->name, "%s_%s_%s%s%s%s", KN[kind], dt, idt, alpha ? "_scaled" : "", block_row ? "_blockrow" : "_flat", gs ? "_gs" : "");
    else if (kind == S_MINMAX) snprintf(s->name, sizeof s->name, "scatter_%s_%s_%s_v%d%s", opn, dt, idt, V, gs ? "_gs" : "");
    else snprintf(s->name, sizeof s->name, "%s_%s_%s%s%s_v%d%s", KN[kind], dt, idt, alpha ? "_scaled" : "", skip ? "_skipoob" : "", V, gs ? "_gs" : "");
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "scatter:%s:%s:%s:%s:%s:%s:%s:v%d:%s%d:b%d", KN[kind], opn, dt, idt, alpha ? "alpha" : "-", skip ? "skip" : "-",
             block_row ? "blockrow" : "flat", V, gs ? "gs" : "one", gs ? cap : 0, block);

    fe_strs T = {0};
    pg_buf sig = {0}, body = {0};
    json_t *root = synth_fe_root(s->name, "scatter"), *ps = json_array();
    bool uns = !strcmp(idt, "u32"), f = dt[0] == 'f';
    const char *sdt = !strcmp(dt, "f64") ? "f64" : "f32", *CT = synth_fe_ctype(dt);
    char al[32];
    synth_fe_lit(al, sizeof al, av);
    const char *xd0 = f ? "uniform(-1,1)" : "int(-100,100)", *xd1 = f ? "uniform(0,1)" : "int(0,1000)";
    const char *od0 = f ? "uniform(-1,1)" : "int(-100000,100000)", *od1 = f ? "const(0)" : "const(0)";
    json_t *sizes;
    pg_buf *c = &s->cu;
    const char *atom = kind == S_MINMAX ? (mx ? "atomicMax" : "atomicMin") : "atomicAdd";
    if (kind != S_ROWS) {
        if (X) { synth_fe_sig_ptr(&sig, X, dt, FE_IN); synth_fe_ptr_dist(ps, X, dt, FE_IN, "n", xd0, xd1, NULL); }
        if (kind == S_UNIQUE) synth_fe_ptr_dist(ps, IDX, idt, FE_IN, "n", "perm", "perm", NULL);
        else synth_fe_ptr_dist(ps, IDX, idt, FE_IN, "n", skip ? (uns ? "int(0,m+63)" : "int(-32,m+31)") : "int(0,m-1)", "int(0,min(m-1,63))", NULL);
        synth_fe_sig_ptr(&sig, IDX, idt, FE_IN);
        if (kind == S_UNIQUE) { synth_fe_sig_ptr(&sig, OUT, dt, FE_OUT); synth_fe_ptr(ps, OUT, dt, FE_OUT, "n"); }
        else if (kind == S_COUNT) { synth_fe_sig_ptr(&sig, OUT, dt, FE_INOUT); synth_fe_ptr_dist(ps, OUT, dt, FE_INOUT, "m", "const(0)", "int(0,100)", NULL); }
        else { synth_fe_sig_ptr(&sig, OUT, dt, FE_INOUT); synth_fe_ptr_dist(ps, OUT, dt, FE_INOUT, "m", od0, od1, NULL); }
        if (alpha) { synth_fe_sig_scal(&sig, AL, sdt); synth_fe_scal(ps, AL, sdt, al); }
        synth_fe_sig_scal(&sig, "n", "u32"); synth_fe_scal(ps, "n", "u32", "n");
        if (kind != S_UNIQUE) { synth_fe_sig_scal(&sig, "m", "u32"); synth_fe_scal(ps, "m", "u32", "m"); }
        const char *jt = uns ? "unsigned int" : "int";
        pg_buf_printf(&body, "%s j = %s_e;\n", jt, IDX);
        const char *guard = skip ? (uns ? "if (j < m) " : "if (j >= 0 && j < (int)m) ") : "";
        char xv[64];
        if (X) snprintf(xv, sizeof xv, alpha ? "%s * %s_e" : "%s%s_e", alpha ? AL : "", X);
        if (kind == S_UNIQUE) {
            pg_buf st = {0};
            synth_fe_st(&st, dt, xv);
            pg_buf_printf(&body, "%s[j] = %s;   // indices are unique: plain stores\n", OUT, st.data);
            pg_buf_free(&st);
        } else if (kind == S_COUNT) pg_buf_printf(&body, "%s%s(&%s[j], 1);\n", guard, atom, OUT);
        else pg_buf_printf(&body, "%s%s(&%s[j], %s);   // duplicates collide: atomics\n", guard, atom, OUT, xv);
        fe_kernel k = {.name = s->name, .comment = kind == S_UNIQUE ? "out[idx[i]] = x[i]" : "out[idx[i]] op= x[i] with atomics", .sig = sig.data, .n = "n", .body = body.data,
                       .V = V, .grid_stride = gs};
        if (X) k.arr[k.narr++] = (fe_arr){X, dt, FE_IN, false};
        k.arr[k.narr++] = (fe_arr){IDX, idt, FE_IN, false};
        synth_fe_emit(&k, seed, s, c);
        if (kind == S_UNIQUE) sizes = synth_fe_sizes1("n", (const long[]){16777216, 1000003, 4099, 777, 1, 0});
        else sizes = json_pack("[{s:i, s:i, s:b}, {s:i, s:i}, {s:i, s:i}, {s:i, s:i}, {s:i, s:i}]", "n", 16777216, "m", 2000003, "time", 1, "n", 1000003, "m", 100003, "n", 777, "m",
                               5000, "n", 5000, "m", 7, "n", 1, "m", 1);
        synth_fe_launch1(root, block, V, gs, cap, synth_fe_grid_mult(seed), "n");
    } else {
        synth_fe_sig_ptr(&sig, X, dt, FE_IN); synth_fe_ptr_dist(ps, X, dt, FE_IN, "rows*dim", xd0, xd1, NULL);
        synth_fe_sig_ptr(&sig, IDX, idt, FE_IN); synth_fe_ptr_dist(ps, IDX, idt, FE_IN, "rows", "int(0,vocab-1)", "int(0,min(vocab-1,3))", NULL);
        synth_fe_sig_ptr(&sig, OUT, dt, FE_INOUT); synth_fe_ptr_dist(ps, OUT, dt, FE_INOUT, "vocab*dim", od0, od1, NULL);
        if (alpha) { synth_fe_sig_scal(&sig, AL, sdt); synth_fe_scal(ps, AL, sdt, al); }
        synth_fe_sig_scal(&sig, "rows", "u32"); synth_fe_scal(ps, "rows", "u32", "rows");
        synth_fe_sig_scal(&sig, "dim", "u32"); synth_fe_scal(ps, "dim", "u32", "dim");
        synth_fe_sig_scal(&sig, "vocab", "u32"); synth_fe_scal(ps, "vocab", "u32", "vocab");
        pg_buf_printf(c, "// %s: %s[%s[r]][:] += %s%s[r][:] with atomics (rows may share an id)\n", s->name, OUT, IDX, alpha ? "alpha * " : "", X);
        pg_buf_printf(c, "extern \"C\" __global__ void %s(%s)\n{\n", s->name, sig.data);
        char add[96];
        snprintf(add, sizeof add, alpha ? "%s * %s[i]" : "%s%s[i]", alpha ? AL : "", X);
        if (block_row) {
            pg_buf_puts(c, gs ? "    for (unsigned int r = blockIdx.x; r < rows; r += gridDim.x) {\n" : "    unsigned int r = blockIdx.x;\n    if (r < rows) {\n");
            pg_buf_printf(c, "        %s* trow = %s + (size_t)%s[r] * dim;\n", CT, OUT, IDX);
            pg_buf_puts(c, "        for (unsigned int e = threadIdx.x; e < dim; e += blockDim.x) {\n            size_t i = (size_t)r * dim + e;\n");
            pg_buf_printf(c, "            atomicAdd(&trow[e], %s);\n        }\n    }\n}\n", add);
            char g[64], b[16];
            snprintf(b, sizeof b, "%d", block);
            if (gs) snprintf(g, sizeof g, "min(rows,%d)", cap);
            else snprintf(g, sizeof g, "rows");
            json_object_set_new(root, "launch", json_pack("{s:[s], s:[s], s:s}", "block", b, "grid", g, "smem", "0"));
        } else {
            pg_buf_puts(c, gs ? "    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)rows * dim; i += (size_t)gridDim.x * blockDim.x) {\n"
                              : "    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < (size_t)rows * dim) {\n");
            pg_buf_printf(c, "        size_t r = i / dim, e = i %% dim;\n        atomicAdd(&%s[(size_t)%s[r] * dim + e], %s);\n    }\n}\n", OUT, IDX, add);
            synth_fe_launch1(root, block, 1, gs, cap, synth_fe_grid_mult(seed), "rows*dim");
        }
        sizes = json_pack("[{s:i, s:i, s:i, s:b}, {s:i, s:i, s:i}, {s:i, s:i, s:i}, {s:i, s:i, s:i}]", "rows", 16384, "dim", 1024, "vocab", 50000, "time", 1, "rows", 1000, "dim",
                          99, "vocab", 777, "rows", 3, "dim", 13, "vocab", 5, "rows", 1, "dim", 1, "vocab", 1);
    }
    json_object_set_new(root, "family_params", json_pack("{s:s, s:s, s:s?, s:s, s:s, s:s?, s:b}", "kind", KN[kind], "op", opn, "x", X, "idx", IDX, "out", OUT, "alpha", alpha ? AL : NULL,
                                                         "skip", skip));
    json_object_set_new(root, "params", ps);
    json_object_set_new(root, "sizes", sizes);

    /* descriptions */
    const char *kv[] = {"x", X ? X : "", "i", IDX, "o", OUT, "al", AL, "op", kind == S_MINMAX ? (mx ? "maximum" : "minimum") : "sum", "atom", atom, NULL};
    const char *ne[6], *nz[4], *fo;
    pg_buf e1 = {0}, e2 = {0}, e3 = {0}, z1 = {0}, z2 = {0};
    const char *xs = alpha ? "{al} * {x}[i]" : "{x}[i]";
    pg_buf ft = {0};
    switch (kind) {
    case S_UNIQUE: {
        static const char *N[] = {"scatter", "scatter by index (unique indices)", "permute by an index array", "indexed store", "inverse permutation scatter"};
        for (int j = 0; j < 5; j++) ne[j] = N[j];
        nz[0] = "按下标分散写入（scatter）"; nz[1] = "按索引写入"; nz[2] = "按排列重排";
        fo = synth_fe_t(&T, kv, "{o}[{i}[i]] = {x}[i]");
        pg_buf_printf(&e1, "%s", synth_fe_t(&T, kv, "writes {x}[i] to position {i}[i] of {o} for every i < n; {i} is a permutation of 0..n-1, so every output is written exactly once"));
        pg_buf_printf(&e2, "%s", synth_fe_t(&T, kv, "moves each element of {x} to the slot named by the matching entry of {i} (all slots distinct)"));
        pg_buf_printf(&e3, "%s", synth_fe_t(&T, kv, "applies the permutation {i} to {x}: the value at i goes to {i}[i] in {o}"));
        pg_buf_printf(&z1, "%s", synth_fe_t(&T, kv, "对每个 i < n 把 {x}[i] 写到 {o} 的第 {i}[i] 个位置；{i} 是 0..n-1 的一个排列，每个输出恰好写一次"));
        pg_buf_printf(&z2, "%s", synth_fe_t(&T, kv, "按排列 {i} 重排 {x} 得到 {o}"));
        break;
    }
    case S_ADD: case S_MINMAX: {
        if (kind == S_ADD) {
            static const char *N[] = {"scatter-add", "atomic scatter-add", "index_add / segment accumulation", "accumulate values into buckets", "scatter_add_ with duplicate indices"};
            for (int j = 0; j < 5; j++) ne[j] = N[j];
            nz[0] = "按下标累加（scatter-add）"; nz[1] = "原子累加"; nz[2] = "分桶求和";
        } else {
            static const char *NX[] = {"scatter-max", "atomic scatter max", "segment max by index", "bucket maximum", "scatter_reduce amax"};
            static const char *NM[] = {"scatter-min", "atomic scatter min", "segment min by index", "bucket minimum", "scatter_reduce amin"};
            for (int j = 0; j < 5; j++) ne[j] = mx ? NX[j] : NM[j];
            nz[0] = mx ? "按下标取最大值" : "按下标取最小值"; nz[1] = mx ? "原子最大值" : "原子最小值"; nz[2] = mx ? "分桶最大值" : "分桶最小值";
        }
        pg_buf_printf(&ft, kind == S_ADD ? "{o}[{i}[i]] += %s for all i < n" : mx ? "{o}[{i}[i]] = max({o}[{i}[i]], {x}[i]) for all i < n" : "{o}[{i}[i]] = min({o}[{i}[i]], {x}[i]) for all i < n", xs);
        if (skip) pg_buf_puts(&ft, ", skipping indices outside [0, m)");
        fo = synth_fe_t(&T, kv, ft.data);
        pg_buf_printf(&e1, "%s", synth_fe_t(&T, kv, kind == S_ADD ? (alpha ? "adds {al} times {x}[i] to {o}[{i}[i]] for every i < n; several i can hit the same entry, so the updates must be atomic ({atom})"
                                                                  : "adds {x}[i] to {o}[{i}[i]] for every i < n; several i can hit the same entry, so the updates must be atomic ({atom})")
                                                     : "combines every {x}[i] into {o}[{i}[i]] with the {op}, atomically ({atom}), since indices repeat"));
        pg_buf_printf(&e2, "%s", synth_fe_t(&T, kv, kind == S_ADD ? "accumulates n updates into the m-entry array {o}, which already holds values: entry {i}[i] grows by the i-th update"
                                                             : "folds n updates into the m-entry array {o}, which already holds values: entry {i}[i] becomes the {op} of itself and {x}[i]"));
        pg_buf_printf(&e3, "%s", synth_fe_t(&T, kv, kind == S_ADD ? "works like filling buckets: each item sends its value to the bucket numbered in {i}, and each bucket's total grows by everything it receives"
                                                             : "keeps, for each of the m buckets, the {op} of its current value and every value sent to it"));
        pg_buf_printf(&z1, "%s", synth_fe_t(&T, kv, kind == S_ADD ? "对每个 i < n 把 {x}[i] 加到 {o}[{i}[i]] 上；不同 i 可能指向同一位置，需要原子操作" : "对每个 i < n 用原子操作把 {x}[i] 合并进 {o}[{i}[i]]（取{op}）"));
        pg_buf_printf(&z2, "%s", synth_fe_t(&T, kv, kind == S_ADD ? "{o} 有 m 个元素且已有初值，第 {i}[i] 个元素加上第 i 个更新" : mx ? "{o} 有 m 个元素且已有初值，第 {i}[i] 个元素取它与 {x}[i] 的较大值" : "{o} 有 m 个元素且已有初值，第 {i}[i] 个元素取它与 {x}[i] 的较小值"));
        if (alpha) pg_buf_puts(&z1, synth_fe_t(&T, kv, "（先乘以 {al}）"));
        break;
    }
    case S_COUNT: {
        static const char *N[] = {"count occurrences by index", "atomic counting", "bincount", "per-bucket counter increment", "histogram of integer keys"};
        for (int j = 0; j < 5; j++) ne[j] = N[j];
        nz[0] = "按下标计数"; nz[1] = "原子计数"; nz[2] = "bincount";
        fo = synth_fe_t(&T, kv, skip ? "{o}[{i}[i]] += 1 for all i < n with 0 <= {i}[i] < m" : "{o}[{i}[i]] += 1 for all i < n");
        pg_buf_printf(&e1, "%s", synth_fe_t(&T, kv, "increments {o}[{i}[i]] by one for every i < n (atomically, keys repeat)"));
        pg_buf_printf(&e2, "%s", synth_fe_t(&T, kv, "counts how many times each key 0..m-1 appears in {i}, adding to the existing counts in {o}"));
        pg_buf_printf(&e3, "%s", synth_fe_t(&T, kv, "is a bincount: bucket {i}[i] of {o} goes up by 1 for each i"));
        pg_buf_printf(&z1, "%s", synth_fe_t(&T, kv, "对每个 i < n 把 {o}[{i}[i]] 原子加 1"));
        pg_buf_printf(&z2, "%s", synth_fe_t(&T, kv, "统计 {i} 中每个键出现的次数，累加到 {o}"));
        if (skip) { pg_buf_puts(&e1, "; indices outside [0, m) are ignored"); pg_buf_puts(&z1, "；越界下标忽略"); }
        break;
    }
    default: {
        static const char *N[] = {"embedding backward", "row scatter-add", "embedding gradient accumulation", "sparse row update of a table", "index_add_ over rows"};
        for (int j = 0; j < 5; j++) ne[j] = N[j];
        nz[0] = "Embedding 反向"; nz[1] = "按行累加"; nz[2] = "嵌入梯度累加";
        fo = synth_fe_t(&T, kv, alpha ? "{o}[{i}[r]][e] += {al} * {x}[r][e]" : "{o}[{i}[r]][e] += {x}[r][e]");
        pg_buf_printf(&e1, "%s", synth_fe_t(&T, kv, alpha ? "adds {al} times row r of {x} (rows x dim) to row {i}[r] of {o} (vocab x dim) for every r; rows can share an id, so use atomic adds"
                                                    : "adds row r of {x} (rows x dim) to row {i}[r] of {o} (vocab x dim) for every r; rows can share an id, so use atomic adds"));
        pg_buf_printf(&e2, "%s", synth_fe_t(&T, kv, "accumulates the gradient of an embedding lookup: each token's gradient vector goes into the table row of its id"));
        pg_buf_printf(&e3, "%s", synth_fe_t(&T, kv, "scatters whole rows with accumulation: {o}[{i}[r]] += {x}[r]"));
        pg_buf_printf(&z1, "%s", synth_fe_t(&T, kv, "对每个 r 把 {x} 的第 r 行（长 dim）原子加到 {o} 的第 {i}[r] 行"));
        pg_buf_printf(&z2, "%s", synth_fe_t(&T, kv, "嵌入层的反向：每个 token 的梯度累加到其 id 对应的表行"));
        break;
    }
    }
    pg_buf_free(&ft);
    ne[5] = NULL; nz[3] = NULL;
    const char *ee[] = {e1.data, e2.data, e3.data, NULL}, *zz[] = {z1.data, z2.data, NULL};
    const char *hw[2] = {NULL, NULL}, *hz[2] = {NULL, NULL};
    if (kind == S_ROWS) {
        hw[0] = block_row ? (gs ? "one block per source row (grid-stride over rows), threads over its dim elements" : "one block per source row, threads over its dim elements")
                          : (gs ? "one element per thread over the flattened rows*dim index, grid-stride loop" : "one element per thread over the flattened rows*dim index");
        hz[0] = block_row ? "每个线程块负责一行" : "按展平下标每个线程一个元素";
    } else { hw[0] = synth_fe_how_en(&T, V, gs); hz[0] = synth_fe_how_zh(&T, V, gs); }
    pg_buf notes = {0}, notez = {0}, shp = {0}, shz = {0};
    if (kind == S_ADD && f) { pg_buf_puts(&notes, "Float additions happen in any order: checked against an exact sum with a relative tolerance"); pg_buf_puts(&notez, "浮点加法顺序不定，按相对误差检查"); }
    else { pg_buf_puts(&notes, "Results must match exactly"); pg_buf_puts(&notez, "结果必须完全一致"); }
    if (alpha) { pg_buf_printf(&notes, "; %s = %s", AL, al); pg_buf_printf(&notez, "；%s = %s", AL, al); }
    if (kind == S_ROWS) {
        pg_buf_printf(&shp, "%s is rows x dim, %s has rows %s ids, %s is vocab x dim (row-major %s, updated in place)", X, IDX, idt, OUT, dt);
        pg_buf_printf(&shz, "%s 为 rows×dim，%s 有 rows 个 %s id，%s 为 vocab×dim（%s，原地更新）", X, IDX, idt, OUT, dt);
    } else if (kind == S_UNIQUE) {
        pg_buf_printf(&shp, "%s and %s have n %s elements, %s is n %s indices", X, OUT, dt, IDX, idt);
        pg_buf_printf(&shz, "%s、%s 各 n 个 %s，%s 为 n 个 %s 下标", X, OUT, dt, IDX, idt);
    } else {
        if (X) pg_buf_printf(&shp, "%s has n values, ", X);
        pg_buf_printf(&shp, "%s has n %s indices, %s has m %s entries (updated in place)", IDX, idt, OUT, dt);
        if (X) pg_buf_printf(&shz, "%s 有 n 个值，", X);
        pg_buf_printf(&shz, "%s 有 n 个 %s 下标，%s 有 m 个 %s（原地更新）", IDX, idt, OUT, dt);
    }
    desc_facts fct = {.name_en = ne, .name_zh = nz, .formula = fo, .explain_en = ee, .explain_zh = zz, .how_en = hw, .how_zh = hz, .shape_en = shp.data, .shape_zh = shz.data,
                      .notes_en = notes.data, .notes_zh = notez.data};
    char bytes[64];
    int es = synth_fe_size(dt), is = synth_fe_size(idt);
    if (kind == S_ROWS) snprintf(bytes, sizeof bytes, "%d*rows*dim + %d*rows", 3 * es, is);
    else snprintf(bytes, sizeof bytes, "%d*n", (X ? es : 0) + is + 2 * es);
    double tol = !strcmp(dt, "f32") ? (kind == S_UNIQUE ? 0 : 1e-4) : !strcmp(dt, "f64") ? (kind == S_UNIQUE ? 0 : 1e-10) : 0;
    synth_fe_finish(root, &fct, seed, dt, tol, NULL, 0, synth_fam_ref(synth_fam_elem_scatter), bytes, kind == S_UNIQUE ? "0" : kind == S_ROWS ? "rows*dim" : "n", &s->task_json);
    pg_buf_free(&e1); pg_buf_free(&e2); pg_buf_free(&e3); pg_buf_free(&z1); pg_buf_free(&z2);
    pg_buf_free(&notes); pg_buf_free(&notez); pg_buf_free(&shp); pg_buf_free(&shz); pg_buf_free(&sig); pg_buf_free(&body);
    synth_fe_strs_free(&T);
    return PG_OK;
}
