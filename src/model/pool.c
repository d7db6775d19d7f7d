/* pool.c — a small persistent thread pool for the matmuls and attention.
 *
 * A decode step dispatches ~5 jobs per layer, thousands per second, so waking
 * a worker must cost well under a microsecond: workers spin on a generation
 * counter for a while (~1 ms) and only then sleep on a condition variable; the
 * caller takes the mutex to wake them only when one is asleep.
 *
 * A job is nchunks chunks handed out through an atomic counter, the caller
 * working too.  On a shared machine a worker may be descheduled for a whole
 * time slice: with a static split the caller would then spin until it runs
 * again; here the caller takes the remaining chunks, closes the job, and waits
 * only for workers that joined it (a late worker sees the job closed and skips it). */
#include "kernels.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#else
#define cpu_relax() ((void)0)
#endif

#define SPIN_ITERS 20000
#define JS_CLOSED (1ull << 31)          /* job state: no more workers may join */
#define JS_ACTIVE ((1ull << 31) - 1)    /* job state: workers inside the job */

struct pg_pool {
    int n;                                   /* threads including the caller */
    pthread_t *th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_uint_fast64_t gen;                /* bumped once per job: wakes workers */
    atomic_uint_fast64_t js;                 /* (gen & 0xffffffff) << 32 | JS_CLOSED | active workers */
    atomic_int next;                         /* next chunk to hand out */
    atomic_int sleepers;                     /* workers in pthread_cond_wait (or about to be) */
    atomic_bool stop;
    int nchunks;
    void (*fn)(void *, int, int, int);
    void *arg;
    struct { void *p; size_t n; char pad[48]; } *scratch;   /* per thread, [n]; own cache lines */
    pool_prof *prof;                         /* NULL: not measured */
};

void model_pool_set_prof(pg_pool *p, pool_prof *pp) { if (p) p->prof = pp; }
pool_prof *model_pool_get_prof(const pg_pool *p) { return p ? p->prof : NULL; }

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct { pg_pool *p; int id; } worker_arg;

static void take_chunks(pg_pool *p, int ith) {
    for (int c; (c = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed)) < p->nchunks;) p->fn(p->arg, c, c + 1, ith);
}

static void *worker(void *a_) {
    worker_arg a = *(worker_arg *)a_;
    free(a_);
    pg_pool *p = a.p;
    uint64_t seen = 0;
    for (;;) {
        uint64_t g = atomic_load_explicit(&p->gen, memory_order_acquire);
        for (int i = 0; g == seen && i < SPIN_ITERS; i++) {
            cpu_relax();
            g = atomic_load_explicit(&p->gen, memory_order_acquire);
        }
        if (g == seen) {
            pthread_mutex_lock(&p->mu);
            atomic_fetch_add(&p->sleepers, 1);   /* before the last look at gen: model_pool_run checks sleepers after bumping it */
            while ((g = atomic_load(&p->gen)) == seen && !atomic_load(&p->stop)) pthread_cond_wait(&p->cv, &p->mu);
            atomic_fetch_sub(&p->sleepers, 1);
            pthread_mutex_unlock(&p->mu);
        }
        if (atomic_load(&p->stop)) return NULL;
        seen = g;
        /* join the job unless the caller already closed it (or moved on to a later one) */
        uint64_t v = atomic_load(&p->js);
        bool joined = false;
        while ((v >> 32) == (g & 0xffffffffu) && !(v & JS_CLOSED))
            if (atomic_compare_exchange_weak(&p->js, &v, v + 1)) { joined = true; break; }
        if (!joined) continue;
        take_chunks(p, a.id);
        atomic_fetch_sub_explicit(&p->js, 1, memory_order_release);
    }
}

pg_pool *model_pool_new(int nthreads) {
    pg_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->n = nthreads < 1 ? 1 : nthreads;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->th = calloc((size_t)p->n, sizeof *p->th);
    p->scratch = calloc((size_t)p->n + POOL_SHARED, sizeof *p->scratch);
    if (!p->th || !p->scratch) p->n = 1;
    for (int i = 1; i < p->n; i++) {
        worker_arg *a = malloc(sizeof *a);
        if (!a) { p->n = i; break; }
        a->p = p;
        a->id = i;
        if (pthread_create(&p->th[i], NULL, worker, a) != 0) { free(a); p->n = i; break; }
    }
    return p;
}

int model_pool_size(const pg_pool *p) { return p ? p->n : 1; }

void *model_pool_shared(pg_pool *p, int which, size_t bytes) {
    return p && p->scratch ? model_pool_scratch(p, p->n + which, bytes) : NULL;
}

void *model_pool_scratch(pg_pool *p, int ith, size_t bytes) {
    if (!p || !p->scratch) return NULL;
    if (p->scratch[ith].n < bytes) {
        free(p->scratch[ith].p);
        p->scratch[ith].p = aligned_alloc(64, (bytes + 63) / 64 * 64);
        p->scratch[ith].n = p->scratch[ith].p ? bytes : 0;
    }
    return p->scratch[ith].p;
}

void model_pool_run(pg_pool *p, void (*fn)(void *, int, int, int), void *arg, int nchunks) {
    if (nchunks <= 0) return;
    if (!p || p->n == 1) { fn(arg, 0, nchunks, 0); return; }
    p->fn = fn;
    p->arg = arg;
    p->nchunks = nchunks;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    uint64_t g = atomic_load_explicit(&p->gen, memory_order_relaxed) + 1;
    atomic_store(&p->js, (g & 0xffffffffu) << 32);   /* open, nobody inside */
    atomic_store(&p->gen, g);
    if (atomic_load(&p->sleepers) > 0) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
    take_chunks(p, 0);
    atomic_fetch_or(&p->js, JS_CLOSED);
    double w0 = p->prof ? mono_s() : 0;
    for (long i = 0; atomic_load_explicit(&p->js, memory_order_acquire) & JS_ACTIVE; i++) {
        if (i < SPIN_ITERS) cpu_relax();
        else sched_yield();    /* a worker inside the job was descheduled (busy machine): let it run */
    }
    if (p->prof) {
        p->prof->sync_s += mono_s() - w0;
        p->prof->dispatches++;
    }
}

void model_pool_free(pg_pool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, true);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i < p->n; i++) pthread_join(p->th[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    for (int i = 0; p->scratch && i < p->n + POOL_SHARED; i++) free(p->scratch[i].p);
    free(p->scratch);
    free(p->th);
    free(p);
}
