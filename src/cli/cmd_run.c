/* cmd_run.c — `ptxgen run` (check and time PTX for a task on the GPU) and
 * `ptxgen devinfo`. */
#define _GNU_SOURCE
#include "cli.h"
#include "ptxgen/eval.h"
#include "ptxgen/gpu.h"
#include "ptxgen/ptx.h"
#include "ptxgen/task.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *run_usage =
    "usage: ptxgen run [options] TASK.json [KERNEL.ptx]\n"
    "       ptxgen run [options] --suite DIR\n"
    "  Checks a PTX kernel against the task's reference on >=5 seeds x every distribution x every size,\n"
    "  then times it and nvcc's PTX of the task's reference.cu through the same path.\n"
    "  KERNEL.ptx defaults to kernel.ptx next to task.json.\n"
    "  --suite DIR      every folder of DIR holding a task.json (and its kernel.ptx)\n"
    "  --kernel NAME    file name of the kernel inside each suite folder (default kernel.ptx)\n"
    "  --seeds N        seeds per size and distribution (default 5)\n"
    "  --all-sets       keep checking after the first wrong input set (default: stop there; sizes run\n"
    "                   smallest first)\n"
    "  --timeout S      watchdog per kernel process in seconds (default 60)\n"
    "  --no-baseline    do not build and time nvcc's PTX of reference.cu\n"
    "  --no-timing      correctness only\n"
    "  --sanitize       also run compute-sanitizer memcheck and racecheck (when installed)\n"
    "  --arch sm_XX     nvcc target for the baseline (default: the device's)\n"
    "  --dry-run        no GPU: validate the spec, the kernel (check + ptxas), the signature against the\n"
    "                   spec and reference.cu, and run the C reference on the smallest size\n"
    "  --json           JSON on stdout instead of the table\n"
    "  --out FILE       also write the JSON report to FILE (atomically)\n"
    "  exit: 0 all correct; 1 some kernel failed; 2 usage/IO/spec error; 3 no GPU (nothing was run)\n";

typedef struct {
    gpu_run_opts o;
    bool json, dry, have_suite;
    const char *suite, *kernel_name, *out;
} run_opts;

static json_t *kernel_json(const gpu_kernel_result *k) {
    json_t *o = json_object();
    json_object_set_new(o, "status", json_string(gpu_status_name(k->status)));
    json_object_set_new(o, "correct", json_boolean(k->status == GPU_OK));
    if (k->detail[0]) json_object_set_new(o, "detail", json_string(k->detail));
    if (k->hygiene) json_object_set_new(o, "hygiene", json_string(gpu_hyg_name((gpu_hyg)k->hygiene)));
    json_object_set_new(o, "checks", json_integer(k->checks));
    json_object_set_new(o, "checks_passed", json_integer(k->checks_passed));
    if (k->checks_total) json_object_set_new(o, "checks_total", json_integer(k->checks_total));
    json_object_set_new(o, "worst_rel_l2", json_real(k->worst_rel_l2));
    if (k->trials) {
        json_object_set_new(o, "ms_median", json_real(k->ms_median));
        json_object_set_new(o, "ms_min", json_real(k->ms_min));
        json_object_set_new(o, "ms_max", json_real(k->ms_max));
        json_object_set_new(o, "trials", json_integer(k->trials));
        json_object_set_new(o, "gbps", json_real(k->gbps));
        json_object_set_new(o, "tflops", json_real(k->tflops));
        json_object_set_new(o, "pct_of_ceiling", json_real(k->pct_of_ceiling));
        json_object_set_new(o, "faster_than_light", json_boolean(k->faster_than_light));
    }
    json_object_set_new(o, "registers", json_integer(k->regs));
    json_object_set_new(o, "smem_static_bytes", json_integer(k->smem_static));
    json_object_set_new(o, "local_bytes", json_integer(k->spill_bytes));
    if (k->sanitizer_log) json_object_set_new(o, "sanitizer", json_string(k->sanitizer_log));
    return o;
}

static json_t *task_json(const gpu_task_result *r) {
    json_t *o = json_object();
    json_object_set_new(o, "task", json_string(r->task));
    json_object_set_new(o, "timing_size", json_string(r->timing_size));
    json_object_set_new(o, "kernel", kernel_json(&r->kernel));
    if (r->have_baseline) json_object_set_new(o, "baseline_nvcc", kernel_json(&r->baseline));
    if (r->speedup > 0) json_object_set_new(o, "speedup_vs_nvcc", json_real(r->speedup));
    return o;
}

static void print_row(const gpu_task_result *r) {
    const gpu_kernel_result *k = &r->kernel, *b = &r->baseline;
    char t1[32] = "-", t2[32] = "-", sp[32] = "-", bw[32] = "-";
    if (k->trials) snprintf(t1, sizeof t1, "%.4f", k->ms_median);
    if (r->have_baseline && b->trials) snprintf(t2, sizeof t2, "%.4f", b->ms_median);
    if (r->speedup > 0) snprintf(sp, sizeof sp, "%.2fx", r->speedup);
    if (k->trials && k->gbps > 0) snprintf(bw, sizeof bw, "%.0f", k->gbps);
    printf("%-24s %-11s %5d/%-5d %10s %10s %8s %8s %5.0f%%%s %4d\n", r->task, gpu_status_name(k->status), k->checks_passed,
           k->checks, t1, t2, sp, bw, k->pct_of_ceiling, k->faster_than_light ? "!" : " ", k->regs);
    if (k->status != GPU_OK) printf("    %s\n", k->detail);
    if (r->have_baseline && b->status != GPU_OK && b->status != GPU_NO_GPU)
        printf("    baseline (nvcc): %s: %s\n", gpu_status_name(b->status), b->detail);
    if (k->status != GPU_OK && k->hygiene) printf("    rejected by reward hygiene: %s\n", gpu_hyg_name((gpu_hyg)k->hygiene));
    if (k->faster_than_light) printf("    flagged: faster than the speed-of-light bound of the cost model — check the cost model or the kernel\n");
}

/* No GPU: everything that can be checked statically.  The kernel goes through
 * the funnel's static stages (validator + the task's signature, ptxas), all of
 * them even after one failed, so every problem is reported.  A task without its
 * kernel (a held-out suite task: the model is to write it) gets the spec and
 * reference checks and "no kernel" (exit 2), never a failed check it did not
 * have.  Returns the exit status of this task. */
static int dry_run(const task_spec *t, const char *ptx, bool json, json_t *arr) {
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 50};
    int bad = 0;
    char ptxas_path[512];
    eval_funnel_opts fo = {.ptxas = ptx_ptxas_find(ptxas_path, sizeof ptxas_path), .keep_going = true, .diag = &sink};
    eval_funnel_result fr;
    memset(&fr, 0, sizeof fr);
    char *text = NULL;
    size_t len = 0;
    bool no_kernel = access(ptx, F_OK) != 0;
    if (no_kernel) {
        /* said once below, with what to do about it */
    } else if (pg_read_file(ptx, PTX_MAX_FILE_BYTES, &text, &len, &sink) == PG_OK) {
        eval_funnel_in fi = {text, NULL, ptx, NULL};
        eval_funnel(&fi, t, &fo, &fr);
        if (!fr.check) bad++;
        if (fr.ptxas.ran && !fr.ptxas.ok && fr.ptxas.exit_code != 127) bad++;   /* ptxas ran and rejected it */
    } else {
        bad++;
    }
    free(text);
    int regs = fr.ptxas.nfuncs ? fr.ptxas.funcs[0].registers : 0;
    eval_funnel_result_free(&fr);
    /* reference.cu: compiles, and its signature matches the spec too */
    char *base = NULL;
    bool nvcc_ok = false;
    if (system("command -v nvcc >/dev/null 2>&1") == 0) {
        if (gpu_nvcc_ptx(t, "sm_80", &base, &sink) == PG_OK) {
            const char *name = "reference.cu (nvcc -ptx)";
            ptx_module *bm = NULL;
            if (ptx_parse(base, strlen(base), name, &bm, &sink) != PG_OK || task_check_signature(t, bm, name, &sink) != PG_OK)
                bad++;
            ptx_module_free(bm);
            nvcc_ok = true;
        } else bad++;
        free(base);
    }
    /* the C reference on the smallest size */
    int small = 0;
    double best = 1e300;
    for (int s = 0; s < t->nsizes; s++) {
        double prod = 1;
        for (int i = 0; i < t->sizes[s].env.n; i++) prod *= (double)(t->sizes[s].env.val[i] + 1);
        if (prod < best) { best = prod; small = s; }
    }
    bool ref_ok = true;
    if (t->ref.kind && !strcmp(t->ref.kind, "c")) {
        for (int d = 0; d < t->ndists; d++) {
            task_inst in, ref;
            if (task_inst_make(t, small, d, 1, &in, &sink) != PG_OK) { ref_ok = false; break; }
            pg_status rs = task_reference_run(&in, &ref, &sink);
            if (rs != PG_OK) ref_ok = false;
            for (int p = 0; rs == PG_OK && p < t->nparams; p++) {
                if (!t->params[p].is_pointer || t->params[p].role == TASK_ROLE_IN) continue;
                /* a reference must write every output element (no poison left) */
                task_cmp c = task_compare(t, p, &ref.args[p], &ref.args[p]);
                if (c.nan_count) { ref_ok = false; pg_diag_emit(&sink, PG_E_TASK, t->path, 0, 0, "the C reference leaves %zu NaN in '%s'", c.nan_count, t->params[p].name); }
            }
            task_inst_free(&in);
            if (ref.args) task_inst_free(&ref);
        }
    }
    if (!ref_ok) bad++;
    json_t *o = json_object();
    json_object_set_new(o, "task", json_string(t->name));
    /* static_ok: every check passed; null when the kernel was missing (only the task was checked) */
    json_object_set_new(o, "static_ok", bad ? json_false() : no_kernel ? json_null() : json_true());
    json_object_set_new(o, "task_ok", json_boolean(bad == 0));
    if (no_kernel) json_object_set_new(o, "no_kernel", json_string(ptx));
    else json_object_set_new(o, "ptxas_registers", json_integer(regs));
    json_object_set_new(o, "reference_cu_compiles", nvcc_ok ? json_true() : json_null());
    json_array_append_new(arr, o);
    if (no_kernel)
        fprintf(stderr, "ptxgen run: %s: no kernel (%s does not exist): give one as the second argument, "
                        "ptxgen run %s KERNEL.ptx (e.g. from ptxgen gen --task %s -o KERNEL.ptx)\n",
                t->name, ptx, t->path, t->path);
    if (!json) {
        if (no_kernel) printf("%-24s %s (task checked%s; no kernel to check)\n", t->name, bad ? "TASK CHECK FAILED" : "task ok",
                              nvcc_ok ? ", reference.cu compiles" : "");
        else printf("%-24s %s (ptxas %d registers%s)\n", t->name, bad ? "STATIC CHECK FAILED" : "static ok", regs,
                    nvcc_ok ? ", reference.cu compiles" : "");
    }
    return bad ? 1 : no_kernel ? 2 : 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int cmd_run(int argc, char **argv) {
    run_opts ro;
    memset(&ro, 0, sizeof ro);
    gpu_run_opts_default(&ro.o);
    ro.kernel_name = "kernel.ptx";
    const char *pos[2] = {NULL, NULL};
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) ro.json = true;
        else if (!strcmp(a, "--dry-run")) ro.dry = true;
        else if (!strcmp(a, "--no-baseline")) ro.o.baseline = false;
        else if (!strcmp(a, "--no-timing")) ro.o.timing = false;
        else if (!strcmp(a, "--sanitize")) ro.o.sanitize = true;
        else if (!strcmp(a, "--suite") && i + 1 < argc) { ro.suite = argv[++i]; ro.have_suite = true; }
        else if (!strcmp(a, "--kernel") && i + 1 < argc) ro.kernel_name = argv[++i];
        else if (!strcmp(a, "--out") && i + 1 < argc) ro.out = argv[++i];
        else if (!strcmp(a, "--arch") && i + 1 < argc) ro.o.arch = argv[++i];
        else if (!strcmp(a, "--seeds") && i + 1 < argc) { if (!cli_int_arg("run", a, argv[++i], 1, 1000, &ro.o.seeds)) return 2; }
        else if (!strcmp(a, "--all-sets")) ro.o.all_sets = true;
        else if (!strcmp(a, "--timeout") && i + 1 < argc) {
            float t;
            if (!cli_float_arg("run", a, argv[++i], 0.001, 86400, &t)) return 2;
            ro.o.timeout_s = t;
        }
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { printf("%s", run_usage); return 0; }
        else if (a[0] == '-') { cli_usage_error("run", "unknown option '%s'", a); return 2; }
        else if (npos < 2) pos[npos++] = a;
        else { cli_usage_error("run", "too many arguments"); return 2; }
    }
    /* the list of (task.json, kernel.ptx) pairs */
    char **tasks = NULL, **kernels = NULL;
    int n = 0;
    if (ro.have_suite) {
        if (npos) return cli_usage_error("run", "--suite takes no other files");
        DIR *d = opendir(ro.suite);
        if (!d) { fprintf(stderr, "ptxgen run: cannot open suite folder %s\n", ro.suite); return 2; }
        struct dirent *e;
        char **names = NULL;
        int nn = 0;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s/task.json", ro.suite, e->d_name);
            if (access(p, R_OK) != 0) continue;
            names = realloc(names, sizeof(char *) * (size_t)(nn + 1));
            names[nn++] = strdup(e->d_name);
        }
        closedir(d);
        if (nn > 1) qsort(names, (size_t)nn, sizeof(char *), cmp_str);   /* names is NULL when empty */
        tasks = calloc((size_t)nn + 1, sizeof(char *));
        kernels = calloc((size_t)nn + 1, sizeof(char *));
        for (int i = 0; i < nn; i++) {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s/task.json", ro.suite, names[i]);
            tasks[n] = strdup(p);
            snprintf(p, sizeof p, "%s/%s/%s", ro.suite, names[i], ro.kernel_name);
            kernels[n++] = strdup(p);
            free(names[i]);
        }
        free(names);
        if (!n) { fprintf(stderr, "ptxgen run: no task folders in %s\n", ro.suite); free(tasks); free(kernels); return 2; }
    } else {
        if (!npos) { cli_usage_error("run", "no TASK.json given (or --suite DIR)"); return 2; }
        tasks = calloc(2, sizeof(char *));
        kernels = calloc(2, sizeof(char *));
        tasks[0] = strdup(pos[0]);
        if (pos[1]) kernels[0] = strdup(pos[1]);
        else {
            char p[4096];
            const char *sl = strrchr(pos[0], '/');
            snprintf(p, sizeof p, "%.*s%s", sl ? (int)(sl - pos[0] + 1) : 0, pos[0], ro.kernel_name);
            kernels[0] = strdup(p);
        }
        n = 1;
        if (!ro.dry && access(kernels[0], F_OK) != 0) {   /* before the GPU: the same answer on every machine */
            fprintf(stderr, "ptxgen run: no kernel: %s does not exist; give one as the second argument, ptxgen run %s KERNEL.ptx "
                            "(e.g. from ptxgen gen --task %s -o KERNEL.ptx)\n", kernels[0], tasks[0], tasks[0]);
            free(tasks[0]); free(kernels[0]); free(tasks); free(kernels);
            return 2;
        }
    }
    char why[256];
    bool gpu = ro.dry ? false : gpu_available(why, sizeof why);
    if (!ro.dry && !gpu) {
        fprintf(stderr, "ptxgen run: %s — nothing was run (use --dry-run for the checks that need no GPU)\n", why);
        for (int i = 0; i < n; i++) { free(tasks[i]); free(kernels[i]); }
        free(tasks);
        free(kernels);
        return 3;
    }
    gpu_devinfo dev;
    bool have_dev = gpu && gpu_devinfo_get(false, &dev, NULL) == PG_OK;
    json_t *arr = json_array();
    int worst = 0, ncorrect = 0, nfast = 0, nsp = 0;
    int nhyg[GPU_HYG__COUNT] = {0};   /* kernels rejected or flagged by reward hygiene, per reason */
    double logsum = 0;
    if (!ro.json && !ro.dry) {
        if (have_dev) printf("device: %s (sm_%d), copy %.0f GB/s, FP32 %.1f TFLOP/s (measured %s)\n", dev.name, dev.sm, dev.copy_gbps, dev.fp32_tflops, dev.measured_at);
        printf("%-24s %-11s %-11s %10s %10s %8s %8s %6s %4s\n", "task", "status", "checks", "ms", "nvcc ms", "speedup", "GB/s", "%SOL", "regs");
    }
    for (int i = 0; i < n; i++) {
        pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 50};
        task_spec *t = NULL;
        if (task_load(tasks[i], &t, &sink) != PG_OK) { worst = worst > 2 ? worst : 2; continue; }
        if (ro.dry) {
            int r = dry_run(t, kernels[i], ro.json, arr);
            if (r > worst) worst = r;
            task_free(t);
            continue;
        }
        gpu_task_result r;
        pg_status st = gpu_run_task(t, kernels[i], &ro.o, &r, &sink);
        if (st == PG_ERR_IO) worst = worst > 2 ? worst : 2;
        if (r.kernel.status != GPU_OK && worst < 1) worst = 1;
        if (r.kernel.status == GPU_OK) ncorrect++;
        if (r.kernel.hygiene > 0 && r.kernel.hygiene < GPU_HYG__COUNT) nhyg[r.kernel.hygiene]++;
        if (r.speedup > 0) {
            nsp++;
            logsum += log(r.speedup);
            if (r.speedup >= 1.0) nfast++;
        }
        if (!ro.json) print_row(&r);
        fflush(stdout);
        json_array_append_new(arr, task_json(&r));
        if (ro.out) {   /* keep the report current, so an interrupted batch still leaves its results */
            json_t *partial = json_object();
            json_object_set(partial, "tasks", arr);
            json_object_set_new(partial, "complete", json_false());
            char *ptxt = json_dumps(partial, JSON_INDENT(2));
            pg_diag_sink q = {0};
            pg_write_file_atomic(ro.out, ptxt, strlen(ptxt), &q);
            free(ptxt);
            json_decref(partial);
        }
        gpu_result_free(&r);
        task_free(t);
    }
    json_t *top = json_object();
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    json_object_set_new(top, "date", json_string(date));
    if (have_dev) {
        json_t *d = json_object();
        json_object_set_new(d, "name", json_string(dev.name));
        json_object_set_new(d, "sm", json_integer(dev.sm));
        json_object_set_new(d, "sms", json_integer(dev.sms));
        json_object_set_new(d, "copy_gbps", json_real(dev.copy_gbps));
        json_object_set_new(d, "fp32_tflops", json_real(dev.fp32_tflops));
        json_object_set_new(d, "fp16_tflops", json_real(dev.fp16_tflops));
        json_object_set_new(top, "device", d);
    } else {
        json_object_set_new(top, "device", json_string(ro.dry ? "none (dry run: static checks only)" : "unknown"));
    }
    if (ro.suite) json_object_set_new(top, "suite", json_string(ro.suite));
    json_object_set_new(top, "tasks", arr);
    if (!ro.dry) {
        json_t *s = json_object();
        json_object_set_new(s, "tasks", json_integer(n));
        json_object_set_new(s, "correct", json_integer(ncorrect));
        json_object_set_new(s, "with_baseline", json_integer(nsp));
        json_object_set_new(s, "at_least_nvcc_speed", json_integer(nfast));
        json_object_set_new(s, "geomean_speedup_vs_nvcc", json_real(nsp ? exp(logsum / nsp) : 0));
        json_t *hy = json_object();
        for (int h = 1; h < GPU_HYG__COUNT; h++) json_object_set_new(hy, gpu_hyg_name((gpu_hyg)h), json_integer(nhyg[h]));
        json_object_set_new(s, "hygiene", hy);   /* rejected (or, faster-than-light, flagged) per reason */
        json_object_set_new(top, "summary", s);
        if (!ro.json) {
            printf("\n%d/%d correct; %d of %d at or above nvcc speed; geomean speedup %.3f\n", ncorrect, n, nfast, nsp,
                   nsp ? exp(logsum / nsp) : 0.0);
            for (int h = 1; h < GPU_HYG__COUNT; h++)
                if (nhyg[h]) printf("reward hygiene: %d %s\n", nhyg[h], gpu_hyg_name((gpu_hyg)h));
        }
    }
    char *txt = json_dumps(top, JSON_INDENT(2));
    if (ro.json) printf("%s\n", txt);
    if (ro.out) {
        pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 5};
        if (pg_write_file_atomic(ro.out, txt, strlen(txt), &sink) != PG_OK) worst = 2;
    }
    free(txt);
    json_decref(top);
    for (int i = 0; i < n; i++) { free(tasks[i]); free(kernels[i]); }
    free(tasks);
    free(kernels);
    return worst;
}

int cmd_devinfo(int argc, char **argv) {
    bool json = false, re = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = true;
        else if (!strcmp(argv[i], "--remeasure")) re = true;
        else if (!strcmp(argv[i], "--help")) { printf("usage: ptxgen devinfo [--json] [--remeasure]\n  device name, sm, measured copy bandwidth and FP32/FP16 peak (cached)\n  exit 3 when there is no GPU\n"); return 0; }
        else return cli_usage_error("devinfo", "unknown option '%s'", argv[i]);
    }
    char why[256];
    if (!gpu_available(why, sizeof why)) { fprintf(stderr, "ptxgen devinfo: %s\n", why); return 3; }
    gpu_devinfo d;
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 5};
    if (gpu_devinfo_get(re, &d, &sink) != PG_OK) return 1;
    if (json) {
        printf("{\"name\": \"%s\", \"sm\": %d, \"sms\": %d, \"mem_bytes\": %zu, \"l2_bytes\": %zu, \"copy_gbps\": %.1f, "
               "\"fp32_tflops\": %.2f, \"fp16_tflops\": %.2f, \"measured_at\": \"%s\"}\n",
               d.name, d.sm, d.sms, d.mem_bytes, d.l2_bytes, d.copy_gbps, d.fp32_tflops, d.fp16_tflops, d.measured_at);
    } else {
        printf("device:       %s (sm_%d, %d SMs, %.1f GiB, L2 %.0f MiB)\n", d.name, d.sm, d.sms, (double)d.mem_bytes / (1 << 30), (double)d.l2_bytes / (1 << 20));
        printf("copy (DtoD):  %.0f GB/s (read+write)\n", d.copy_gbps);
        printf("FP32 FMA:     %.1f TFLOP/s\nFP16x2 FMA:   %.1f TFLOP/s\nmeasured:     %s\n", d.fp32_tflops, d.fp16_tflops, d.measured_at);
    }
    return 0;
}
