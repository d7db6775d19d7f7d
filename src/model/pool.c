/* pool.c — a small persistent thread pool for the matmuls.
 *
 * A decode step dispatches ~4 jobs per layer, thousands per second, so waking
 * a worker must cost well under a microsecond: workers spin on a generation
 * counter for a while (~1 ms) and only then sleep on a condition variable.
 * The calling thread is thread 0 and works too; pool_run returns when every
 * thread has finished its share. */
#include "model_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#else
#define cpu_relax() ((void)0)
#endif

#define SPIN_ITERS 20000

struct pg_pool {
    int n;                                   /* threads including the caller */
    pthread_t *th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_uint_fast64_t gen;                /* bumped once per job */
    atomic_int done;                         /* workers finished with the current job */
    atomic_bool stop;
    void (*fn)(void *, int, int);
    void *arg;
};

typedef struct { pg_pool *p; int id; } worker_arg;

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
            while ((g = atomic_load(&p->gen)) == seen && !atomic_load(&p->stop)) pthread_cond_wait(&p->cv, &p->mu);
            pthread_mutex_unlock(&p->mu);
        }
        if (atomic_load(&p->stop)) return NULL;
        seen = g;
        p->fn(p->arg, a.id, p->n);
        atomic_fetch_add_explicit(&p->done, 1, memory_order_release);
    }
}

pg_pool *pool_new(int nthreads) {
    pg_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->n = nthreads < 1 ? 1 : nthreads;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->th = calloc((size_t)p->n, sizeof *p->th);
    for (int i = 1; i < p->n; i++) {
        worker_arg *a = malloc(sizeof *a);
        if (!a) { p->n = i; break; }
        a->p = p;
        a->id = i;
        if (pthread_create(&p->th[i], NULL, worker, a) != 0) { free(a); p->n = i; break; }
    }
    return p;
}

int pool_size(const pg_pool *p) { return p ? p->n : 1; }

void pool_run(pg_pool *p, void (*fn)(void *, int, int), void *arg) {
    if (!p || p->n == 1) { fn(arg, 0, 1); return; }
    p->fn = fn;
    p->arg = arg;
    atomic_store(&p->done, 0);
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add_explicit(&p->gen, 1, memory_order_release);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    fn(arg, 0, p->n);
    for (long i = 0; atomic_load_explicit(&p->done, memory_order_acquire) < p->n - 1; i++) {
        if (i < SPIN_ITERS) cpu_relax();
        else sched_yield();    /* a worker was descheduled (busy machine): let it run */
    }
}

void pool_free(pg_pool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, true);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i < p->n; i++) pthread_join(p->th[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p->th);
    free(p);
}
