/* isolate.c — the watchdog every GPU job runs under (gpu_isolate): a child
 * process does the work and writes its answer to a pipe; the parent collects
 * it and kills the child after the timeout.  Its own file because both the
 * harness (run.c) and the device probe (devinfo.c) use it, and run.c uses
 * devinfo.c: keeping it in run.c made the two files depend on each other. */
#define _GNU_SOURCE
#include "ptxgen/gpu.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int gpu_isolate(void (*fn)(void *arg, int fd), void *arg, double timeout_s, char **out, int *exit_code) {
    pg_buf b = {0};
    int rc = gpu_isolate_buf(fn, arg, timeout_s, &b, exit_code);
    *out = b.data;
    return rc;
}

int gpu_isolate_buf(void (*fn)(void *arg, int fd), void *arg, double timeout_s, pg_buf *out, int *exit_code) {
    memset(out, 0, sizeof *out);
    if (exit_code) *exit_code = -1;
    int pfd[2];
    if (pipe(pfd) != 0) return 2;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) { close(pfd[0]); close(pfd[1]); return 2; }
    if (pid == 0) {
        close(pfd[0]);
        fn(arg, pfd[1]);
        close(pfd[1]);
        _exit(0);
    }
    close(pfd[1]);
    pg_buf b = {0};
    double deadline = now_s() + timeout_s;
    int rc = 0;
    for (;;) {
        double left = deadline - now_s();
        if (left <= 0) { rc = 1; break; }
        struct pollfd p = {pfd[0], POLLIN, 0};
        int pr = poll(&p, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) continue;
        char chunk[8192];
        ssize_t k = read(pfd[0], chunk, sizeof chunk);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        pg_buf_putn(&b, chunk, (size_t)k);
        if (b.len > (64u << 20)) { rc = 2; break; }
    }
    close(pfd[0]);
    int status = 0;
    if (rc != 0) kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (rc == 0) {
        if (WIFSIGNALED(status)) rc = 2;
        else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) rc = 2;
    }
    if (exit_code) *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    *out = b;
    return rc;
}
