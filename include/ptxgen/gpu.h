/* ptxgen/gpu.h — the GPU harness: run PTX on a GPU against a reference and
 * time it against nvcc's PTX of the task's reference.cu.
 *
 * libcuda is loaded at run time (ptxgen/gpu_cuda.h, the one loader), so ptxgen
 * builds and runs on machines without a GPU; every entry point then reports
 * "no CUDA driver".
 * Kernels run in a child process with a watchdog: a fault or a hang is a
 * result ("fault", "timeout"), never a crash of the caller, and the next
 * kernel gets a fresh context (a wrong or unloadable kernel leaves a gpu_memo's
 * worker context as it was, and the worker checks the next one).
 *
 * Ownership: results are plain structs owned by the caller; gpu_result_free
 * releases their heap parts.  Errors go to the diagnostics sink.
 */
#ifndef PTXGEN_GPU_H
#define PTXGEN_GPU_H

#include "ptxgen/common.h"
#include "ptxgen/task.h"

#include <jansson.h>

/* Is a CUDA driver with at least one device usable here?  On false, `why`
 * says what is missing ("no CUDA driver: libcuda.so.1: cannot open shared object
 * file: ...", "the CUDA driver lacks cuCtxCreate_v2 (too old a driver?)"). */
PG_API bool gpu_available(char *why, size_t n);

/* What one process that verifies many kernels of one task asks the GPU once, not per kernel
 * (gen's best-of-k): the probe above, the device query, and nvcc's baseline run and timing
 * (kept when it ran clean).  It also owns the harness's worker: one child process that checks
 * the memo's kernels of one task in turn, initialising CUDA and building the input sets and their
 * references once (or taking them from gpu_memo_prepare's process, which builds them ahead) (and a device copy of each set, so a set crosses to the device once per worker, not
 * once per kernel: $PTXGEN_GPU_RESIDENT_MB, default half the device's memory), replaced after a kernel
 * that faults, hangs or writes outside its outputs
 * (PTXGEN_GPU_WORKER=0: a fresh process per kernel, as without a memo).  The process that owns it
 * never initialises CUDA, so its children can.  Pass it in gpu_run_opts.memo; NULL asks every time;
 * gpu_memo_free ends the worker. */
typedef struct gpu_memo gpu_memo;
/* A new memo, owned by the caller (gpu_memo_free).  NULL when $PTXGEN_GPU_MEMO is "0" (the switch
 * that turns the memo off for every caller: gen's attempts and plan checks, eval's tasks) or when out
 * of memory; callers then pass the NULL on, and every check asks again (one harness process a
 * kernel, the probe, device query and nvcc's baseline per call), with the same verdicts. */
PG_API gpu_memo *gpu_memo_new(void);
PG_API void gpu_memo_free(gpu_memo *m);
/* gpu_available, probed on the first call only (m NULL: every call) */
PG_API bool gpu_memo_available(gpu_memo *m, char *why, size_t n);

typedef struct {
    char name[128];
    int sm;                    /* 90 for sm_90 */
    int sms;                   /* multiprocessors */
    size_t mem_bytes, l2_bytes;
    int clock_khz, mem_clock_khz, bus_width_bits;
    double copy_gbps;          /* measured device-to-device copy, read+write bytes */
    double fp32_tflops, fp16_tflops;  /* measured FMA peak */
    char measured_at[32];      /* date of the measurement */
} gpu_devinfo;
/* Query and (unless cached in $XDG_CACHE_HOME/ptxgen or ~/.cache/ptxgen)
 * measure the device ceilings; runs in a child process. */
PG_API pg_status gpu_devinfo_get(bool remeasure, gpu_devinfo *out, pg_diag_sink *diag);

typedef struct {
    int seeds;                 /* per size and distribution (>= 5 by default) */
    bool all_sets;             /* keep checking after the first wrong input set (default: stop there;
                                * sizes run smallest first, so a wrong kernel costs one small set) */
    double timeout_s;          /* watchdog per kernel process */
    bool baseline;             /* compile reference.cu with nvcc and time it the same way */
    bool timing;               /* time the kernels (otherwise correctness only) */
    int min_trials;            /* >= 100 */
    double min_ms;             /* >= 50 ms of measured kernel time */
    bool sanitize;             /* run compute-sanitizer memcheck+racecheck when installed */
    const char *arch;          /* nvcc -arch for the baseline (default: the device's sm) */
    gpu_memo *memo;            /* answers shared by the calls of one process (NULL: none) */
} gpu_run_opts;
PG_API void gpu_run_opts_default(gpu_run_opts *o);

/* The memo's preparation: every input set of task t (sizes x distributions x o->seeds) and its C reference
 * built now, in a child process of this one (CPU only: it never touches CUDA), and published one size at a
 * time, smallest first, into the region the memo's workers share -- so a gen that starts it as soon as it
 * knows the task has the sets ready when its first correct candidate needs them (bias_gelu_residual's 40
 * sets of up to 8192 x 3072 were ~5 s of an H100 gen's first correct candidate, 2026-12-07) instead of
 * building them inside that candidate's check, and a worker that exits after a fault has none of its own
 * to copy out for the next one.  A worker that reaches a size the preparation is still building waits for
 * it (the watchdog's clock stands still meanwhile); a size it does not publish (its inputs or reference
 * failed, the region is full ($PTXGEN_GPU_CACHE_MB), it was stopped or died) is built by the worker as
 * without a preparation, so a failure is still the candidate's "setup-error" with the same words -- and
 * the preparation's own record of it is in gpu_memo_prep_stats.  The sets are the ones a worker builds (the
 * same calls, sizes, distributions and seeds): the verdicts do not change.  threads: how many it builds
 * with until the memo's first check (0: the cores less two, at least 1), every core after.  Starts nothing
 * (state "off") when m is NULL, the task's reference is not a C one, the memo has no worker
 * ($PTXGEN_GPU_WORKER=0), $PTXGEN_GPU_PREPARE=0, or the memo already serves a task.  t must outlive the
 * memo; gpu_memo_free kills a preparation still at work. */
PG_API void gpu_memo_prepare(gpu_memo *m, const task_spec *t, const gpu_run_opts *o, int threads);
/* The cores the preparation builds its next sizes with, from now until the memo's next check gives it every
 * core again (threads as gpu_memo_prepare's): for a caller that draws again after a check -- gen's plan stage
 * checks its plans with the memo, then the candidates are drawn, on a CPU engine's --threads cores.  Nothing
 * when no preparation is at work. */
PG_API void gpu_memo_prepare_threads(gpu_memo *m, int threads);
typedef struct {
    const char *state;         /* "off", "running", "done" (every size published), "failed" (a size's inputs or
                                * reference failed: why), "full" (a size did not fit the region), "stopped" */
    int sets, total;           /* input sets published (with their references), and the task's */
    double seconds;            /* wall seconds from the start to the end (or to now, while running) */
    char why[700];             /* "failed": the first failure ("size 2: the C reference failed: ..."), as a
                                * worker's setup-error says it; else empty */
} gpu_prep_stats;
/* Where the preparation stands; wait: after it has ended (tests; gen reports it without waiting). */
PG_API void gpu_memo_prep_stats(gpu_memo *m, bool wait, gpu_prep_stats *out);

typedef enum {
    GPU_OK,            /* correct on every input set */
    GPU_WRONG,         /* ran, wrong results */
    GPU_FAULT,         /* the kernel faulted or the process died */
    GPU_TIMEOUT,       /* the watchdog fired */
    GPU_LOAD_ERROR,    /* cuModuleLoadDataEx/getFunction failed (log says why) */
    GPU_NO_GPU,        /* no driver or device */
    GPU_SETUP_ERROR,   /* spec/reference problem (not the kernel's fault) */
} gpu_status;
PG_API const char *gpu_status_name(gpu_status s);

typedef struct {
    gpu_status status;
    char detail[1024];         /* first failure: size, dist, seed, param, errors */
    int checks, checks_passed; /* (size, dist, seed) combinations run (fewer than all when stopped early) */
    int checks_total;          /* combinations the spec defines */
    double worst_rel_l2;
    double ms_median, ms_min, ms_max;   /* timing size, per launch */
    int trials;
    double gbps, tflops;       /* from the cost model */
    double pct_of_ceiling;     /* of measured copy bandwidth or FP32 peak, whichever bounds */
    bool faster_than_light;    /* beats the speed-of-light bound: flagged, not trusted */
    int regs, smem_static, spill_bytes;   /* from the JIT (cuFuncGetAttribute) */
    char *jit_log;             /* info + error log of the JIT (malloc'd) */
    char *sanitizer_log;       /* compute-sanitizer output tail, when run */
    int hygiene;               /* gpu_hyg: why a kernel was rejected (or flagged) by reward hygiene; 0 = none */
    double setup_s, sets_s, timing_s;   /* wall seconds in its process: driver, context and module load;
                                         * the input sets (inputs, C references, launches, compares);
                                         * the timing loop (0 when a phase was not reached) */
    bool started;              /* a harness process was started (CUDA initialised) for this kernel */
    int refs_built;            /* input sets built with their reference for it (0: all kept from earlier) */
    /* What its check asked of the device: bytes copied host to device (inputs and poisoned outputs; 0
     * once a worker holds every set resident on the device), device to host (what the kernel left, the
     * guard zones) and device to device (a resident set into the working buffers); cuMemAlloc calls; waits
     * for the device; resident sets found altered after a failure and uploaded again */
    long long htod_bytes, dtoh_bytes, dtod_bytes, allocs, syncs, resident_refreshed;
    double prep_wait_s;        /* seconds its check waited for input sets the memo's preparation was still building */
} gpu_kernel_result;

typedef struct {
    char task[128];
    gpu_kernel_result kernel, baseline;
    bool have_baseline;
    double speedup;            /* baseline median / kernel median (0 when unknown) */
    char timing_size[160];     /* "n=16777216" */
    double probe_s, nvcc_s, kernel_s, baseline_s;   /* wall seconds: the GPU probe and device info (each a
                                                     * child process), nvcc's PTX of the reference (a cache
                                                     * hit is quick), the kernel's process, the baseline's */
    int cuda_starts;           /* harness processes started (each initialises CUDA): kernel and baseline */
    int refs_built;            /* input sets built with their reference: kernel and baseline */
    bool baseline_ran;         /* nvcc's baseline ran for this call (false: none, or the memo's) */
    long long htod_bytes, dtoh_bytes, dtod_bytes, allocs, syncs, resident_refreshed;   /* the kernel's and (when it
                                                                                         * ran) the baseline's */
    double prep_wait_s;        /* the kernel's and the baseline's prep_wait_s */
} gpu_task_result;

/* Check (and time) one PTX file for a task.  nvcc's baseline runs only after the kernel passed
 * (a wrong kernel has no speedup to compute). */
PG_API pg_status gpu_run_task(const task_spec *t, const char *ptx_path, const gpu_run_opts *o, gpu_task_result *out,
                       pg_diag_sink *diag);
PG_API void gpu_result_free(gpu_task_result *r);

/* The differential test (the nvcc wrapper's check of a rewrite against nvcc's kernel,
 * with a spec from task_from_ptx): base_ptx and cand_ptx (texts, entry t->kernel in
 * both) run on the same inputs (t's first size and distribution, seeds 1..seeds)
 * through the harness above, in one child process with a watchdog of timeout_s;
 * every pointer buffer of the candidate must match the baseline's (task_compare
 * with t's tolerances; guard zones checked); then both are timed on the last inputs
 * (median of 50 launches, L2 flushed before each).  Returns a new JSON object:
 * status "pass", "mismatch", "candidate-fault", "baseline-fault", "setup-error" or
 * "no-gpu"; detail; and when reached device, baseline_regs, candidate_regs,
 * seeds_passed, worst_rel_l2, baseline_ms, candidate_ms.  A hang (*timed_out set)
 * or a child that died without a result is a "candidate-fault". */
PG_API json_t *gpu_run_diff(const task_spec *t, const char *base_ptx, const char *cand_ptx, int seeds, double timeout_s,
                     bool *timed_out);

/* Compile a task's reference.cu to PTX with nvcc -O3 (for the baseline). */
PG_API pg_status gpu_nvcc_ptx(const task_spec *t, const char *arch, char **ptx_out, pg_diag_sink *diag);

/* The watchdog used for every kernel: run fn(arg, fd) in a child process,
 * collect what it writes to fd, kill it after timeout_s.  Returns 0 when the
 * child exited normally, 1 on timeout, 2 when it died (signal or nonzero
 * exit); *out gets its output (malloc'd). Exposed for tests. */
PG_API int gpu_isolate(void (*fn)(void *arg, int fd), void *arg, double timeout_s, char **out, int *exit_code);
/* The same with the output's length (binary output; out->data NULL when the child wrote nothing). */
PG_API int gpu_isolate_buf(void (*fn)(void *arg, int fd), void *arg, double timeout_s, pg_buf *out, int *exit_code);

/* ---- reward hygiene (src/gpu/hygiene.c; pure functions, no GPU) ----
 * Checks on top of poison, guard zones and unchanged inputs, so that a kernel
 * cannot pass (and be learned from) without doing the work.  The harness
 * runs them on every input set; a rejection is status "wrong" with
 * gpu_kernel_result.hygiene naming the reason, and run/eval JSON count them. */
typedef enum {
    GPU_HYG_NONE,
    GPU_HYG_NOT_RUN,       /* every output exactly as uploaded (poison / in-out input) while the reference writes one */
    GPU_HYG_COPIES_INPUT,  /* an output equals an input buffer byte for byte; the reference's differs by > tol/10 */
    GPU_HYG_CONSTANT,      /* an output is one value everywhere; the reference's spread is > tol/10 of its magnitude */
    GPU_HYG_LAUNCH,        /* .reqntid/.maxntid does not admit the task's block: it cannot run as specified */
    GPU_HYG_FASTER_THAN_LIGHT, /* timed below 0.9 x the speed-of-light bound: flagged, never trusted or kept */
    GPU_HYG__COUNT
} gpu_hyg;
PG_API const char *gpu_hyg_name(gpu_hyg h);   /* "none", "not-run", "copies-input", "constant", "launch", "faster-than-light" */
/* One input set after a launch: `before` is the instance as uploaded (inputs,
 * poisoned outputs), `got` what came back, `ref` the reference's result (all
 * of spec t).  Returns the first problem (in the enum's order) with a sentence
 * in why (may be NULL).  Called on passing and failing sets alike: NOT_RUN
 * explains a failure, COPIES_INPUT and CONSTANT reject a set that compared
 * within tolerance. */
PG_API gpu_hyg gpu_hygiene_outputs(const task_spec *t, const task_inst *before, const task_inst *got, const task_inst *ref,
                            char *why, size_t n);
/* Did an oracle write anything on this input set: does one of its out buffers
 * (role "out"; an in/out may legitimately stay as it was) differ from what was
 * uploaded (`up`)?  True when there is no non-empty out buffer.  The harness
 * asks this of oracles with task_ref.must_write (CUDA twins). */
PG_API bool gpu_hygiene_oracle_wrote(const task_spec *t, const task_inst *up, const task_inst *ref);
/* The entry's .reqntid (equal) / .maxntid (at least as many threads) against
 * the block of every size: GPU_HYG_LAUNCH or GPU_HYG_NONE (also when the text
 * does not parse: the load then says why). */
PG_API gpu_hyg gpu_hygiene_launch(const task_spec *t, const char *ptx, char *why, size_t n);
/* The speed-of-light time of a problem moving `bytes` and doing `flops` on
 * the device: max(bytes / copy bandwidth, flops / FP32 peak); 0 when unknown. */
PG_API double gpu_sol_seconds(double bytes, double flops, const gpu_devinfo *dev);
/* A measured time below 0.9 x the bound (the copy measurement is a little below peak). */
PG_API bool gpu_beyond_sol(double seconds, double bound_s);

#endif
