/* gate.c — the CI performance gate: compare a baseline and a candidate PTX
 * module kernel by kernel and decide pass/fail (docs/GATE.md).
 *
 * Per kernel (entries matched by name) we take the static instruction count
 * from libptx statistics, registers / shared memory / spills from ptxas -v
 * (or, without ptxas, libptx's register-pressure estimate and declared shared
 * memory), and the number of instructions computing at each float width.
 * The last is the precision check: a candidate in which a float computation
 * silently became double (cvt.f64.f32, add.f64 ...) can be "faster" by the
 * instruction count and still wrong, so a float width the baseline never
 * computed in fails the gate. */
#include "ptxgen/eval.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

void eval_gate_opts_default(eval_gate_opts *o) {
    memset(o, 0, sizeof *o);
    o->max_inst_ratio = 0.95;
    o->max_reg_ratio = 1.05;
    o->fail_inst_ratio = 1.05;
}

const char *eval_gate_verdict_name(eval_gate_verdict v) {
    switch (v) {
    case EVAL_GATE_IMPROVED: return "improved";
    case EVAL_GATE_NEUTRAL: return "neutral";
    case EVAL_GATE_REGRESSED: return "regressed";
    case EVAL_GATE_FAILED: return "failed";
    }
    return "?";
}

static const char *const fw_name[EVAL_FW__COUNT] = {"f16", "f32", "f64"};

/* ---- one side: parse, validate, statistics, ptxas ------------------------------ */
typedef struct {
    char name[256];
    int insts, regs;
    int64_t smem;
    int spills;
    int fw[EVAL_FW__COUNT];
    char fw_example[EVAL_FW__COUNT][160];   /* first instruction at that width, with its line */
} side_kernel;

typedef struct {
    side_kernel *k; int n;
    bool ptxas_used;
    char error[1024];       /* first diagnostic when the module is unusable */
} side;

/* Keeps the first error diagnostic, formatted with the display name. */
typedef struct { const char *name; char first[900]; int nerr; } capture;
static void capture_fn(void *user, const pg_diag *d) {
    capture *c = user;
    if (d->sev != PG_SEV_ERROR || c->nerr++) return;
    snprintf(c->first, sizeof c->first, "%s:%d:%d: error[%s]: %s", c->name, d->line, d->col, d->code, d->msg);
}

/* "file: message" of the first diagnostic, into a char[900]. */
static void first_msg(void *user, const pg_diag *d) {
    char *out = user;
    if (!out[0]) snprintf(out, 900, "%s: %s", d->file ? d->file : "?", d->msg);
}

/* Float width an instruction computes at (-1: none).  Data movement (mov,
 * ld/st) does not count: only arithmetic, conversion, comparison, atomics,
 * warp reductions and tensor ops. */
static int insn_float_width(const ptx_insn *in) {
    if (in->form && (in->form->cls == ISA_C_MOVE || in->form->cls == ISA_C_MEM)) return -1;
    if (!in->form && (!strcmp(in->opcode, "mov") || !strcmp(in->opcode, "ld") || !strcmp(in->opcode, "st"))) return -1;
    int w = -1;
    for (int i = 0; i < in->nmods; i++) {
        ptx_type t = ptx_type_lookup(in->mods[i], strlen(in->mods[i]));
        const ptx_type_info *ti = ptx_type_get(t);
        if (t == PTX_T_NONE || (ti->cls != PTX_TC_FLOAT && ti->cls != PTX_TC_PACKED)) continue;
        if (t == PTX_T_S16X2 || t == PTX_T_U16X2) continue;
        int fw = t == PTX_T_F64 ? EVAL_FW_F64 : (t == PTX_T_F32 || t == PTX_T_TF32 || t == PTX_T_F32X2) ? EVAL_FW_F32 : EVAL_FW_F16;
        if (fw > w) w = fw;   /* cvt.f64.f32 counts as f64 */
    }
    return w;
}

static void side_free(side *s) { free(s->k); memset(s, 0, sizeof *s); }

/* Kernel names of a side, sorted, for lookups by name in O(log n). */
typedef struct { const char *name; int idx; } name_ix;
static int cmp_name_ix(const void *a, const void *b) { return strcmp(((const name_ix *)a)->name, ((const name_ix *)b)->name); }
static name_ix *side_index(const side *s) {
    name_ix *v = malloc(sizeof *v * (size_t)(s->n + 1));
    for (int i = 0; i < s->n; i++) v[i] = (name_ix){s->k[i].name, i};
    if (s->n > 1) qsort(v, (size_t)s->n, sizeof *v, cmp_name_ix);
    return v;
}
static int side_find(const name_ix *ix, int n, const char *name) {
    name_ix key = {name, -1};
    const name_ix *hit = n ? bsearch(&key, ix, (size_t)n, sizeof *ix, cmp_name_ix) : NULL;
    return hit ? hit->idx : -1;
}

static pg_status analyze(const char *text, size_t len, const char *name, const eval_gate_opts *o,
                         const char *tmpdir, const char *fname, side *s, char *ptxas_note, size_t notelen) {
    memset(s, 0, sizeof *s);
    capture cap = {name, "", 0};
    pg_diag_sink sink = {capture_fn, &cap, 0, 0, 0};
    ptx_module *m = NULL;
    pg_status st = ptx_parse(text, len, name, &m, &sink);
    if (st == PG_OK) st = ptx_validate(m, &sink);
    if (st != PG_OK || cap.nerr) {
        snprintf(s->error, sizeof s->error, "%s%s (%d error%s)", cap.first[0] ? "" : "invalid PTX",
                 cap.first, cap.nerr, cap.nerr == 1 ? "" : "s");
        ptx_module_free(m);
        return PG_ERR_INVALID;
    }
    ptx_func_stats *all = calloc((size_t)m->nfuncs + 1, sizeof *all);   /* [nfuncs] */
    pg_status *fst = calloc((size_t)m->nfuncs + 1, sizeof *fst);        /* [nfuncs] */
    if (!all || !fst) pg_oom();
    ptx_module_stats_compute(m, all, fst);
    for (int i = 0; i < m->nfuncs; i++) {
        const ptx_func *f = &m->funcs[i];
        if (!f->is_entry || !f->has_body || fst[i] != PG_OK) continue;
        const ptx_func_stats fs = all[i];
        if ((s->n & (s->n - 1)) == 0) {   /* doubling at powers of two: linear in the number of kernels */
            s->k = realloc(s->k, sizeof *s->k * (size_t)(s->n ? 2 * s->n : 1));
            if (!s->k) pg_oom();
        }
        side_kernel *k = &s->k[s->n++];
        memset(k, 0, sizeof *k);
        snprintf(k->name, sizeof k->name, "%s", f->name);
        k->insts = fs.total;
        k->regs = fs.live.max_live_32bit_units;
        k->smem = fs.shared_bytes;
        for (int b = 0; b < f->nbody; b++) {
            if (f->body[b].kind != PTX_ST_INSN) continue;
            int w = insn_float_width(&f->body[b].u.insn);
            if (w < 0) continue;
            if (!k->fw[w]++) {
                pg_buf t = {0};
                ptx_print_insn(&f->body[b].u.insn, &t);
                snprintf(k->fw_example[w], sizeof k->fw_example[w], "line %d: `%s`", f->body[b].loc.line, t.data);
                pg_buf_free(&t);
            }
        }
    }
    free(all);
    free(fst);
    /* ptxas: registers, shared memory and spills as the hardware will see them */
    char ptxas[512];
    if (!o->no_ptxas && ptx_ptxas_find(ptxas, sizeof ptxas)) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", tmpdir, fname);
        ptxas_report rep;
        memset(&rep, 0, sizeof rep);
        char why[900] = "";
        pg_diag_sink ws = {first_msg, why, 0, 0, 0};
        if (pg_write_file_atomic(path, text, len, &ws) != PG_OK) {
            /* not a reason to measure without ptxas: the report would differ with nothing wrong with the kernels */
            snprintf(s->error, sizeof s->error, "the temporary file for ptxas: %s", why);
            ptx_module_free(m);
            return PG_ERR_IO;
        } else {
            capture pc = {name, "", 0};
            pg_diag_sink ps = {capture_fn, &pc, 0, 0, 0};
            pg_status pst = ptx_ptxas_run(path, o->arch, ptx_needs_relocatable(m), &rep, &ps);
            unlink(path);
            if (pst != PG_OK || !rep.ran) {
                snprintf(ptxas_note, notelen, "ptxas could not be run");
            } else if (!rep.ok) {
                snprintf(s->error, sizeof s->error, "ptxas rejected it: %s",
                         pc.first[0] ? pc.first : "(no message; exit status nonzero)");
                ptx_ptxas_report_free(&rep);
                ptx_module_free(m);
                return PG_ERR_INVALID;
            } else {
                s->ptxas_used = true;
                /* ptxas's functions by name: a sort and a binary search per kernel, not n x n */
                name_ix *names = malloc(sizeof *names * (size_t)(rep.nfuncs + 1));
                for (int r = 0; r < rep.nfuncs; r++) names[r] = (name_ix){rep.funcs[r].func, r};
                if (rep.nfuncs > 1) qsort(names, (size_t)rep.nfuncs, sizeof *names, cmp_name_ix);
                for (int i = 0; i < s->n; i++) {
                    int r = side_find(names, rep.nfuncs, s->k[i].name);
                    if (r < 0) continue;
                    const ptxas_func_report *f = &rep.funcs[r];
                    s->k[i].regs = f->registers;
                    s->k[i].smem = f->smem;
                    s->k[i].spills = f->spill_stores + f->spill_loads;
                }
                free(names);
            }
            ptx_ptxas_report_free(&rep);
        }
    } else if (!ptxas_note[0]) {
        snprintf(ptxas_note, notelen, "%s", o->no_ptxas ? "ptxas disabled (--no-ptxas)" : "ptxas not found");
    }
    ptx_module_free(m);
    return PG_OK;
}

/* ---- the decision -------------------------------------------------------------- */
static double ratio(double cand, double base) {
    if (base > 0) return cand / base;
    return cand > 0 ? -1.0 : 1.0;   /* -1: grew from zero (no finite ratio) */
}

static void reason(eval_gate_kernel *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reason(eval_gate_kernel *k, const char *fmt, ...) {
    size_t n = strlen(k->reasons);
    if (n && n + 2 < sizeof k->reasons) { strcat(k->reasons, "; "); n += 2; }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k->reasons + n, sizeof k->reasons - n, fmt, ap);
    va_end(ap);
}

static double pct(double r) { return (r - 1.0) * 100.0; }

static void decide(eval_gate_kernel *k, const side_kernel *b, const side_kernel *c, const eval_gate_opts *o) {
    bool failed = false, regressed = false;
    /* precision: a float width the baseline never computed in */
    for (int w = 0; w < EVAL_FW__COUNT; w++) {
        if (b->fw[w] == 0 && c->fw[w] > 0) {
            if (o->allow_precision_change) {
                reason(k, "note: kernel now does %s arithmetic (%d instructions, allowed by --allow-precision-change)",
                       fw_name[w], c->fw[w]);
            } else {
                reason(k, "precision changed: kernel now does %s arithmetic (%d instructions, first at %s)",
                       fw_name[w], c->fw[w], c->fw_example[w]);
                failed = true;
            }
        } else if (b->fw[w] > 0 && c->fw[w] == 0) {
            reason(k, "note: kernel no longer does %s arithmetic", fw_name[w]);
        }
    }
    bool inst_up = k->inst_ratio < 0 || k->inst_ratio > o->fail_inst_ratio;
    bool inst_down = k->inst_ratio >= 0 && k->inst_ratio <= o->max_inst_ratio;
    bool regs_up = k->reg_ratio < 0 || k->reg_ratio > o->max_reg_ratio;
    if (inst_up) {
        reason(k, "instructions rose %+.1f%% (%d -> %d), above the %+.1f%% limit", k->inst_ratio < 0 ? 100.0 : pct(k->inst_ratio),
               b->insts, c->insts, pct(o->fail_inst_ratio));
        failed = true;
    }
    if (regs_up) {
        if (inst_down)
            reason(k, "instructions dropped %.1f%% but registers rose %+.1f%% (%d -> %d, above %+.1f%%): not an improvement",
                   -pct(k->inst_ratio), k->reg_ratio < 0 ? 100.0 : pct(k->reg_ratio), b->regs, c->regs, pct(o->max_reg_ratio));
        else
            reason(k, "registers rose %+.1f%% (%d -> %d, above %+.1f%%)", k->reg_ratio < 0 ? 100.0 : pct(k->reg_ratio),
                   b->regs, c->regs, pct(o->max_reg_ratio));
        regressed = true;
    }
    if (c->spills > b->spills) { reason(k, "spills rose (%d -> %d)", b->spills, c->spills); regressed = true; }
    if (c->smem > b->smem) {
        reason(k, "shared memory rose (%lld -> %lld bytes)", (long long)b->smem, (long long)c->smem);
        regressed = true;
    }
    if (failed) k->verdict = EVAL_GATE_FAILED;
    else if (regressed) k->verdict = EVAL_GATE_REGRESSED;
    else if (inst_down) {
        k->verdict = EVAL_GATE_IMPROVED;
        reason(k, "instructions dropped %.1f%% (%d -> %d) with registers %+.1f%%", -pct(k->inst_ratio), b->insts, c->insts,
               pct(k->reg_ratio));
    } else {
        k->verdict = EVAL_GATE_NEUTRAL;
    }
}

static eval_gate_kernel *add_row(eval_gate_result *r, const char *name) {
    int n = r->nkernels;
    if ((n & (n - 1)) == 0) {   /* doubling at powers of two: linear in the number of kernels */
        r->kernels = realloc(r->kernels, sizeof *r->kernels * (size_t)(n ? 2 * n : 1));
        if (!r->kernels) pg_oom();
    }
    eval_gate_kernel *k = &r->kernels[r->nkernels++];
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", name);
    return k;
}

static void fill_side(eval_gate_kernel *k, const side_kernel *s, bool base) {
    if (base) {
        k->in_baseline = true;
        k->insts_base = s->insts; k->regs_base = s->regs; k->smem_base = s->smem; k->spills_base = s->spills;
        memcpy(k->float_base, s->fw, sizeof k->float_base);
    } else {
        k->in_candidate = true;
        k->insts_cand = s->insts; k->regs_cand = s->regs; k->smem_cand = s->smem; k->spills_cand = s->spills;
        memcpy(k->float_cand, s->fw, sizeof k->float_cand);
    }
}

pg_status eval_gate_compare(const char *btext, size_t blen, const char *ctext, size_t clen, const eval_gate_opts *opts,
                            eval_gate_result *r, pg_diag_sink *diag) {
    memset(r, 0, sizeof *r);
    eval_gate_opts o;
    if (opts) o = *opts;
    else eval_gate_opts_default(&o);
    snprintf(r->baseline_name, sizeof r->baseline_name, "%s", o.baseline_name ? o.baseline_name : "baseline");
    snprintf(r->candidate_name, sizeof r->candidate_name, "%s", o.candidate_name ? o.candidate_name : "candidate");
    o.baseline_name = r->baseline_name;
    o.candidate_name = r->candidate_name;
    r->opts = o;
    if (!btext || !ctext || !(o.max_inst_ratio > 0) || !(o.max_reg_ratio > 0) || !(o.fail_inst_ratio > 0) ||
        o.max_inst_ratio > o.fail_inst_ratio) {
        pg_diag_emit(diag, PG_E_GATE, NULL, 0, 0,
                     "bad gate options: ratios must be positive and --max-inst-ratio (%g) <= --fail-inst-ratio (%g)",
                     o.max_inst_ratio, o.fail_inst_ratio);
        return PG_ERR_USAGE;
    }
    char tmpdir[600];
    pg_tmp_path(tmpdir, sizeof tmpdir, "ptxgen-gate-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        pg_diag_emit(diag, PG_E_GATE, NULL, 0, 0, "cannot create the temporary directory %s: %s", tmpdir, strerror(errno));
        return PG_ERR_IO;
    }
    side b, c;
    char note_b[256] = "", note_c[256] = "";
    pg_status st = analyze(btext, blen, r->baseline_name, &o, tmpdir, "baseline.ptx", &b, note_b, sizeof note_b);
    if (st == PG_ERR_IO) {
        pg_diag_emit(diag, PG_E_IO, r->baseline_name, 0, 0, "%s", b.error);
        side_free(&b);
        rmdir(tmpdir);
        return PG_ERR_IO;
    }
    if (st != PG_OK) {
        pg_diag_emit(diag, PG_E_GATE, r->baseline_name, 0, 0, "the baseline is unusable, nothing to compare: %s", b.error);
        snprintf(r->error, sizeof r->error, "baseline unusable: %.900s", b.error);
        side_free(&b);
        rmdir(tmpdir);
        return PG_ERR_INVALID;
    }
    pg_status cst = analyze(ctext, clen, r->candidate_name, &o, tmpdir, "candidate.ptx", &c, note_c, sizeof note_c);
    rmdir(tmpdir);
    if (cst == PG_ERR_IO) {
        pg_diag_emit(diag, PG_E_IO, r->candidate_name, 0, 0, "%s", c.error);
        side_free(&b);
        side_free(&c);
        return PG_ERR_IO;
    }
    /* both sides must be measured the same way; otherwise fall back to libptx for both */
    r->ptxas_used = b.ptxas_used && (cst != PG_OK || c.ptxas_used);
    snprintf(r->ptxas_note, sizeof r->ptxas_note, "%s", note_b[0] ? note_b : note_c);
    if (cst != PG_OK) {
        snprintf(r->error, sizeof r->error, "the candidate is not usable: %.900s", c.error);
        for (int i = 0; i < b.n; i++) {
            eval_gate_kernel *k = add_row(r, b.k[i].name);
            fill_side(k, &b.k[i], true);
            k->verdict = EVAL_GATE_FAILED;
            reason(k, "the candidate is not usable: %.900s", c.error);
        }
    } else {
        if (b.ptxas_used != c.ptxas_used) {
            r->ptxas_used = false;
            snprintf(r->ptxas_note, sizeof r->ptxas_note, "ptxas ran on only one side; using libptx estimates");
        }
        /* pairs: explicit "A=B", else the only kernel of each side, else the same name */
        name_ix *bix = side_index(&b), *cix = side_index(&c);
        int *pair_of = malloc(sizeof *pair_of * (size_t)(b.n + 1));   /* [b.n]: candidate index, -1 by name, -2 skipped */
        bool *used = calloc((size_t)c.n + 1, 1);
        for (int i = 0; i < b.n; i++) pair_of[i] = o.only_paired ? -2 : -1;
        bool by_position = o.npairs == 0 && b.n == 1 && c.n == 1 && strcmp(b.k[0].name, c.k[0].name) != 0;
        if (by_position) pair_of[0] = 0;
        for (int p = 0; p < o.npairs && cst == PG_OK; p++) {
            const char *eq = o.pairs[p] ? strchr(o.pairs[p], '=') : NULL;
            char bn_[256];
            snprintf(bn_, sizeof bn_, "%.*s", eq ? (int)(eq - o.pairs[p]) : 0, eq ? o.pairs[p] : "");
            int bi = eq ? side_find(bix, b.n, bn_) : -1, ci = eq ? side_find(cix, c.n, eq + 1) : -1;
            if (bi < 0 || ci < 0) {
                pg_diag_emit(diag, PG_E_GATE, NULL, 0, 0, "--pair %s: %s", o.pairs[p] ? o.pairs[p] : "(null)",
                             !eq ? "want BASELINE_KERNEL=CANDIDATE_KERNEL" : bi < 0 ? "no such kernel in the baseline"
                                                                              : "no such kernel in the candidate");
                free(bix); free(cix); free(pair_of); free(used);
                side_free(&b);
                side_free(&c);
                return PG_ERR_USAGE;
            }
            pair_of[bi] = ci;
        }
        for (int i = 0; i < b.n; i++) {
            if (pair_of[i] == -2) continue;   /* only_paired: not part of this comparison */
            int j = pair_of[i] >= 0 ? pair_of[i] : side_find(cix, c.n, b.k[i].name);
            const side_kernel *ck = j >= 0 ? &c.k[j] : NULL;
            eval_gate_kernel *k = add_row(r, b.k[i].name);
            fill_side(k, &b.k[i], true);
            if (!ck) {
                k->verdict = EVAL_GATE_FAILED;
                reason(k, "kernel missing from the candidate%s", c.n == 1 && b.n > 1 ? " (pair kernels of other names with --pair A=B)" : "");
                continue;
            }
            used[j] = true;
            if (strcmp(ck->name, b.k[i].name)) {
                snprintf(k->candidate, sizeof k->candidate, "%s", ck->name);
                reason(k, "note: compared with the candidate's %s (%s)", ck->name, by_position ? "the only kernel on each side" : "--pair");
            }
            side_kernel bk = b.k[i], cc = *ck;
            if (!r->ptxas_used && b.ptxas_used != c.ptxas_used) {
                bk.spills = cc.spills = 0;   /* not comparable */
            }
            fill_side(k, &cc, false);
            k->inst_ratio = ratio(cc.insts, bk.insts);
            k->reg_ratio = ratio(cc.regs, bk.regs);
            k->smem_ratio = ratio((double)cc.smem, (double)bk.smem);
            decide(k, &bk, &cc, &o);
        }
        for (int j = 0; j < c.n && !o.only_paired; j++) {
            if (used[j] || side_find(bix, b.n, c.k[j].name) >= 0) continue;   /* compared, or paired away by --pair */
            eval_gate_kernel *k = add_row(r, c.k[j].name);
            fill_side(k, &c.k[j], false);
            k->verdict = EVAL_GATE_FAILED;
            reason(k, "kernel not in the baseline (entries are matched by name; pair others with --pair A=B)");
        }
        free(bix);
        free(cix);
        free(pair_of);
        free(used);
    }
    if (cst == PG_OK && b.n == 0 && c.n == 0) snprintf(r->error, sizeof r->error, "no kernels (.entry with a body) on either side");
    for (int i = 0; i < r->nkernels; i++) {
        switch (r->kernels[i].verdict) {
        case EVAL_GATE_IMPROVED: r->nimproved++; break;
        case EVAL_GATE_NEUTRAL: r->nneutral++; break;
        case EVAL_GATE_REGRESSED: r->nregressed++; break;
        case EVAL_GATE_FAILED: r->nfailed++; break;
        }
    }
    r->pass = r->nfailed == 0 && !r->error[0];
    side_free(&b);
    side_free(&c);
    return PG_OK;
}

pg_status eval_gate_compare_files(const char *bpath, const char *cpath, const eval_gate_opts *opts,
                                  eval_gate_result *r, pg_diag_sink *diag) {
    memset(r, 0, sizeof *r);
    char *bt = NULL, *ct = NULL;
    size_t bn = 0, cn = 0;
    if (pg_read_file(bpath, PTX_MAX_FILE_BYTES, &bt, &bn, diag) != PG_OK) return PG_ERR_IO;
    if (pg_read_file(cpath, PTX_MAX_FILE_BYTES, &ct, &cn, diag) != PG_OK) { free(bt); return PG_ERR_IO; }
    eval_gate_opts o;
    if (opts) o = *opts;
    else eval_gate_opts_default(&o);
    if (!o.baseline_name) o.baseline_name = bpath;
    if (!o.candidate_name) o.candidate_name = cpath;
    pg_status st = eval_gate_compare(bt, bn, ct, cn, &o, r, diag);
    free(bt);
    free(ct);
    return st;
}

void eval_gate_result_append(eval_gate_result *dst, const eval_gate_result *src) {
    for (int i = 0; i < src->nkernels; i++) *add_row(dst, src->kernels[i].name) = src->kernels[i];
    dst->nimproved += src->nimproved;
    dst->nneutral += src->nneutral;
    dst->nregressed += src->nregressed;
    dst->nfailed += src->nfailed;
    dst->pass = dst->pass && src->pass;
    dst->ptxas_used = dst->ptxas_used && src->ptxas_used;
    if (!dst->ptxas_note[0]) snprintf(dst->ptxas_note, sizeof dst->ptxas_note, "%s", src->ptxas_note);
    if (!dst->error[0]) snprintf(dst->error, sizeof dst->error, "%s", src->error);
}

void eval_gate_result_free(eval_gate_result *r) {
    free(r->kernels);
    memset(r, 0, sizeof *r);
}

/* ---- reports ----------------------------------------------------------------------- */
static void md_ratio(pg_buf *b, double r, bool present) {
    if (!present) pg_buf_puts(b, " – |");
    else if (r < 0) pg_buf_puts(b, " new |");
    else pg_buf_printf(b, " %.3f |", r);
}

/* Markdown table cells must not contain '|' or newlines. */
static void md_text(pg_buf *b, const char *s) {
    for (; *s; s++) {
        if (*s == '|') pg_buf_puts(b, "\\|");
        else if (*s == '\n') pg_buf_putc(b, ' ');
        else pg_buf_putc(b, *s);
    }
}

void eval_gate_markdown(const eval_gate_result *r, pg_buf *b) {
    pg_buf_printf(b, "## ptxgen gate: %s\n\n", r->pass ? "✅ PASS" : "❌ FAIL");
    pg_buf_printf(b, "`%s` (baseline) vs `%s` (candidate): %d improved, %d neutral, %d regressed, %d failed.\n\n",
                  r->baseline_name, r->candidate_name, r->nimproved, r->nneutral, r->nregressed, r->nfailed);
    if (r->error[0]) {
        pg_buf_puts(b, "**");
        md_text(b, r->error);
        pg_buf_puts(b, "**\n\n");
    }
    if (r->ptxas_used)
        pg_buf_printf(b, "Registers, shared memory and spills from `ptxas -v`%s%s.\n\n", r->opts.arch ? " -arch=" : "",
                      r->opts.arch ? r->opts.arch : "");
    else
        pg_buf_printf(b, "Registers are libptx's estimate (max live 32-bit registers), shared memory is declared bytes, "
                         "spills unknown: %s.\n\n", r->ptxas_note[0] ? r->ptxas_note : "ptxas not used");
    if (r->nkernels) {
        pg_buf_puts(b, "| kernel | verdict | instructions | ratio | registers | ratio | smem (B) | spills |\n"
                       "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (int i = 0; i < r->nkernels; i++) {
            const eval_gate_kernel *k = &r->kernels[i];
            bool both = k->in_baseline && k->in_candidate;
            pg_buf_puts(b, "| `");
            md_text(b, k->name);
            if (k->candidate[0]) { pg_buf_puts(b, "` vs `"); md_text(b, k->candidate); }
            pg_buf_printf(b, "` | %s |", eval_gate_verdict_name(k->verdict));
            if (both) pg_buf_printf(b, " %d → %d |", k->insts_base, k->insts_cand);
            else pg_buf_printf(b, " %s |", !k->in_baseline ? "only in candidate" : r->error[0] ? "candidate unusable" : "only in baseline");
            md_ratio(b, k->inst_ratio, both);
            if (both) pg_buf_printf(b, " %d → %d |", k->regs_base, k->regs_cand);
            else pg_buf_puts(b, " – |");
            md_ratio(b, k->reg_ratio, both);
            if (both) pg_buf_printf(b, " %lld → %lld | %d → %d |\n", (long long)k->smem_base, (long long)k->smem_cand,
                                    k->spills_base, k->spills_cand);
            else pg_buf_puts(b, " – | – |\n");
        }
        pg_buf_putc(b, '\n');
        for (int i = 0; i < r->nkernels; i++) {
            const eval_gate_kernel *k = &r->kernels[i];
            if (!k->reasons[0]) continue;
            pg_buf_printf(b, "- `%s` (%s): ", k->name, eval_gate_verdict_name(k->verdict));
            md_text(b, k->reasons);
            pg_buf_putc(b, '\n');
        }
        pg_buf_putc(b, '\n');
    }
    pg_buf_printf(b, "<sub>Rule: improvement when instructions drop to ≤%.2f× with registers ≤%.2f×; failure when "
                     "instructions exceed %.2f×, a kernel is missing, the candidate is invalid or its floating-point "
                     "precision changed.</sub>\n", r->opts.max_inst_ratio, r->opts.max_reg_ratio, r->opts.fail_inst_ratio);
}

static json_t *jratio(double r, bool present) { return present && r >= 0 ? json_real(r) : json_null(); }

void eval_gate_json(const eval_gate_result *r, pg_buf *out) {
    json_t *o = json_object();
    json_object_set_new(o, "pass", json_boolean(r->pass));
    json_object_set_new(o, "baseline", json_string(r->baseline_name));
    json_object_set_new(o, "candidate", json_string(r->candidate_name));
    json_object_set_new(o, "improved", json_integer(r->nimproved));
    json_object_set_new(o, "neutral", json_integer(r->nneutral));
    json_object_set_new(o, "regressed", json_integer(r->nregressed));
    json_object_set_new(o, "failed", json_integer(r->nfailed));
    json_object_set_new(o, "ptxas", json_boolean(r->ptxas_used));
    json_object_set_new(o, "ptxas_note", json_string(r->ptxas_note));
    json_object_set_new(o, "error", r->error[0] ? json_string(r->error) : json_null());
    json_t *rule = json_object();
    json_object_set_new(rule, "max_inst_ratio", json_real(r->opts.max_inst_ratio));
    json_object_set_new(rule, "max_reg_ratio", json_real(r->opts.max_reg_ratio));
    json_object_set_new(rule, "fail_inst_ratio", json_real(r->opts.fail_inst_ratio));
    json_object_set_new(rule, "allow_precision_change", json_boolean(r->opts.allow_precision_change));
    json_object_set_new(o, "rule", rule);
    json_t *ks = json_array();
    for (int i = 0; i < r->nkernels; i++) {
        const eval_gate_kernel *k = &r->kernels[i];
        bool both = k->in_baseline && k->in_candidate;
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string(k->name));
        if (k->candidate[0]) json_object_set_new(j, "candidate_name", json_string(k->candidate));
        json_object_set_new(j, "verdict", json_string(eval_gate_verdict_name(k->verdict)));
        json_object_set_new(j, "in_baseline", json_boolean(k->in_baseline));
        json_object_set_new(j, "in_candidate", json_boolean(k->in_candidate));
        json_object_set_new(j, "insts", json_pack("[ii]", k->insts_base, k->insts_cand));
        json_object_set_new(j, "regs", json_pack("[ii]", k->regs_base, k->regs_cand));
        json_object_set_new(j, "smem", json_pack("[II]", (json_int_t)k->smem_base, (json_int_t)k->smem_cand));
        json_object_set_new(j, "spills", json_pack("[ii]", k->spills_base, k->spills_cand));
        json_t *fw = json_object();
        for (int w = 0; w < EVAL_FW__COUNT; w++)
            json_object_set_new(fw, fw_name[w], json_pack("[ii]", k->float_base[w], k->float_cand[w]));
        json_object_set_new(j, "float_insts", fw);
        json_object_set_new(j, "inst_ratio", jratio(k->inst_ratio, both));
        json_object_set_new(j, "reg_ratio", jratio(k->reg_ratio, both));
        json_object_set_new(j, "smem_ratio", jratio(k->smem_ratio, both));
        json_object_set_new(j, "reasons", json_string(k->reasons));
        json_array_append_new(ks, j);
    }
    json_object_set_new(o, "kernels", ks);
    char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    if (s) {
        pg_buf_puts(out, s);
        pg_buf_putc(out, '\n');
        free(s);
    }
    json_decref(o);
}
