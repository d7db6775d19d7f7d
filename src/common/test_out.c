/* test_out.c — pg_out: how an output name is written (file, link, special file,
 * descriptor, stdout), no-clobber, and that every failure is reported with its
 * cause and leaves nothing new under the name. */
#define _GNU_SOURCE
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[256];

static char *path(const char *name) {
    static char p[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static char *slurp(const char *p) {
    char *d = NULL;
    size_t n;
    pg_diag_sink q = {0};
    return pg_read_file(p, 1 << 20, &d, &n, &q) == PG_OK ? d : NULL;
}

/* Names in dir that look like a temporary ("*.tmp.*"). */
static int temps_left(void) {
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".tmp.")) n++;
    if (d) closedir(d);
    return n;
}

static void test_regular_and_links(void) {
    pg_diag_sink s = test_sink();
    CHECK(pg_write_file(path("a.txt"), "one\n", 4, 0, &s) == PG_OK, "write a new file");
    char *t = slurp(path("a.txt"));
    CHECK(t && !strcmp(t, "one\n"), "content: %s", t ? t : "(none)");
    free(t);
    chmod(path("a.txt"), 0600);
    CHECK(pg_write_file(path("a.txt"), "two\n", 4, 0, &s) == PG_OK, "replace it");
    struct stat st;
    CHECK(stat(path("a.txt"), &st) == 0 && (st.st_mode & 0777) == 0600, "a replaced file keeps its mode: %o", st.st_mode & 0777);
    /* a link is written through: the target gets the data, the link stays a link */
    CHECK(symlink("a.txt", path("link.txt")) == 0, "symlink");
    CHECK(pg_write_file(path("link.txt"), "three\n", 6, 0, &s) == PG_OK, "write through a link");
    CHECK(lstat(path("link.txt"), &st) == 0 && S_ISLNK(st.st_mode), "the link is still a link");
    t = slurp(path("a.txt"));
    CHECK(t && !strcmp(t, "three\n"), "the target has the data: %s", t ? t : "(none)");
    free(t);
    /* a chain of links, and a dangling one (its target is created) */
    CHECK(symlink("link.txt", path("link2.txt")) == 0 && symlink("new.txt", path("dangling.txt")) == 0, "symlinks");
    CHECK(pg_write_file(path("link2.txt"), "four\n", 5, 0, &s) == PG_OK, "a chain of links");
    t = slurp(path("a.txt"));
    CHECK(t && !strcmp(t, "four\n"), "the chain's target: %s", t ? t : "(none)");
    free(t);
    CHECK(pg_write_file(path("dangling.txt"), "five\n", 5, 0, &s) == PG_OK, "a dangling link");
    t = slurp(path("new.txt"));
    CHECK(t && !strcmp(t, "five\n"), "the dangling link's target was created");
    free(t);
    CHECK(lstat(path("dangling.txt"), &st) == 0 && S_ISLNK(st.st_mode), "the dangling link stays a link");
    /* a loop of links is an error naming the output */
    CHECK(symlink("loop_b", path("loop_a")) == 0 && symlink("loop_a", path("loop_b")) == 0, "a loop");
    s = test_sink();
    CHECK(pg_write_file(path("loop_a"), "x", 1, 0, &s) == PG_ERR_IO && strstr(test_diag_log(), "loop_a"), "a link loop: %s", test_diag_log());
    CHECK(s.nerrors == 1, "one diagnostic");
    CHECK(temps_left() == 0, "no temporary left");
}

static void test_no_clobber(void) {
    pg_diag_sink s = test_sink();
    CHECK(pg_write_file(path("nc.txt"), "old\n", 4, PG_OUT_NO_CLOBBER, &s) == PG_OK, "no-clobber creates a new file");
    s = test_sink();
    CHECK(pg_write_file(path("nc.txt"), "new\n", 4, PG_OUT_NO_CLOBBER, &s) == PG_ERR_IO, "no-clobber refuses an existing file");
    CHECK(strstr(test_diag_log(), "nc.txt") && strstr(test_diag_log(), "--force"), "the message names it and --force: %s", test_diag_log());
    char *t = slurp(path("nc.txt"));
    CHECK(t && !strcmp(t, "old\n"), "the existing file is untouched");
    free(t);
    /* a file that appears between open and close is not replaced either */
    pg_out *o;
    s = test_sink();
    CHECK(pg_out_open(path("race.txt"), PG_OUT_NO_CLOBBER, &o, &s) == PG_OK, "open");
    fputs("mine\n", pg_out_stream(o));
    CHECK(pg_write_file(path("race.txt"), "theirs\n", 7, 0, &s) == PG_OK, "someone else writes it");
    CHECK(pg_out_close(o, &s) == PG_ERR_IO, "close refuses to replace it");
    t = slurp(path("race.txt"));
    CHECK(t && !strcmp(t, "theirs\n"), "theirs is kept: %s", t ? t : "(none)");
    free(t);
    CHECK(temps_left() == 0, "no temporary left");
}

static void test_failures(void) {
    /* /dev/full fails every write with ENOSPC: reported with the cause, PG_ERR_IO */
    pg_diag_sink s = test_sink();
    char big[100000];
    memset(big, 'x', sizeof big);
    CHECK(pg_write_file("/dev/full", big, sizeof big, 0, &s) == PG_ERR_IO, "a write to /dev/full fails");
    CHECK(strstr(test_diag_log(), "/dev/full") && strstr(test_diag_log(), "No space left"), "names the file and the cause: %s", test_diag_log());
    s = test_sink();
    CHECK(pg_write_file("/dev/full", "x", 1, 0, &s) == PG_ERR_IO && strstr(test_diag_log(), "No space left"), "a short write too: %s",
          test_diag_log());
    /* /dev/null is a special file: written directly, not replaced */
    s = test_sink();
    CHECK(pg_write_file("/dev/null", big, sizeof big, PG_OUT_NO_CLOBBER, &s) == PG_OK, "/dev/null (even with no-clobber)");
    struct stat st;
    CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode), "/dev/null is still a device");
    /* a folder, a missing folder */
    s = test_sink();
    CHECK(pg_write_file(dir, "x", 1, 0, &s) == PG_ERR_IO && strstr(test_diag_log(), "folder"), "a folder: %s", test_diag_log());
    s = test_sink();
    CHECK(pg_write_file(path("nope/x.txt"), "x", 1, 0, &s) == PG_ERR_IO && strstr(test_diag_log(), "No such file"),
          "a missing folder: %s", test_diag_log());
    /* discard: nothing appears */
    pg_out *o;
    CHECK(pg_out_open(path("gone.txt"), 0, &o, &s) == PG_OK, "open");
    fputs("half", pg_out_stream(o));
    pg_out_discard(o);
    CHECK(access(path("gone.txt"), F_OK) != 0 && temps_left() == 0, "a discarded output leaves nothing");
    /* a read-only folder: the temporary cannot be created (skipped as root, who may write anyway) */
    if (geteuid() != 0) {
        mkdir(path("ro"), 0555);
        s = test_sink();
        CHECK(pg_write_file(path("ro/x.txt"), "x", 1, 0, &s) == PG_ERR_IO && strstr(test_diag_log(), "ro/x.txt"), "read-only folder: %s",
              test_diag_log());
    }
}

/* A temporary that a killed writer left (its pid gone) is removed by the next write; a live one is kept. */
static void test_stale_temps(void) {
    pid_t dead = fork();
    if (dead == 0) _exit(0);
    int st;
    waitpid(dead, &st, 0);
    char stale[600], alive[600];
    snprintf(stale, sizeof stale, "%s.tmp.%ld.0", path("st.txt"), (long)dead);
    snprintf(alive, sizeof alive, "%s.tmp.%ld.0", path("st.txt"), (long)getppid());
    pg_diag_sink s = test_sink();
    CHECK(pg_write_file(stale, "half", 4, 0, &s) == PG_OK && pg_write_file(alive, "busy", 4, 0, &s) == PG_OK, "make the leftovers");
    CHECK(pg_write_file(path("st.txt"), "whole\n", 6, 0, &s) == PG_OK, "write the output again");
    CHECK(access(stale, F_OK) != 0, "the dead writer's temporary is gone");
    CHECK(access(alive, F_OK) == 0, "a live writer's temporary is kept");
    unlink(alive);
    /* a zombie (killed, never reaped: kill(pid, 0) still succeeds) is no writer either */
    pid_t z = fork();
    if (z == 0) _exit(0);
    char zpath[600], stat_path[64], buf[256] = "";
    snprintf(zpath, sizeof zpath, "%s.tmp.%ld.0", path("st.txt"), (long)z);
    snprintf(stat_path, sizeof stat_path, "/proc/%ld/stat", (long)z);
    for (int i = 0; i < 200; i++) {   /* until the child has exited (a zombie) */
        FILE *f = fopen(stat_path, "r");
        size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f) fclose(f);
        buf[n] = 0;
        const char *rp = strrchr(buf, ')');
        if (rp && rp[1] == ' ' && rp[2] == 'Z') break;
        usleep(10000);
    }
    CHECK(pg_write_file(zpath, "half", 4, 0, &s) == PG_OK, "make the zombie's leftover");
    CHECK(pg_write_file(path("st.txt"), "again\n", 6, 0, &s) == PG_OK, "write the output once more");
    CHECK(access(zpath, F_OK) != 0, "a zombie writer's temporary is gone (state: %s)", strrchr(buf, ')') ? strrchr(buf, ')') : buf);
    waitpid(z, &st, 0);
}

/* A FIFO is written directly (a reader gets the bytes); a reader that leaves is EPIPE, reported. */
static void test_fifo(void) {
    CHECK(mkfifo(path("fifo"), 0600) == 0, "mkfifo");
    pid_t p = fork();
    if (p == 0) {
        int fd = open(path("fifo"), O_RDONLY);
        char buf[64] = {0};
        ssize_t n = read(fd, buf, sizeof buf - 1);
        _exit(n == 6 && !strcmp(buf, "hello\n") ? 0 : 1);
    }
    pg_diag_sink s = test_sink();
    CHECK(pg_write_file(path("fifo"), "hello\n", 6, 0, &s) == PG_OK, "write into a FIFO: %s", test_diag_log());
    int st;
    waitpid(p, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the reader got the bytes");
    struct stat sb;
    CHECK(lstat(path("fifo"), &sb) == 0 && S_ISFIFO(sb.st_mode), "the FIFO is still a FIFO");
    /* the reader opens and leaves at once */
    p = fork();
    if (p == 0) { close(open(path("fifo"), O_RDONLY)); _exit(0); }
    signal(SIGPIPE, SIG_IGN);
    char big[200000];
    memset(big, 'y', sizeof big);
    s = test_sink();
    pg_status r = pg_write_file(path("fifo"), big, sizeof big, 0, &s);
    waitpid(p, &st, 0);
    CHECK(r == PG_ERR_IO && strstr(test_diag_log(), "closed the pipe"), "a FIFO whose reader left: %s", test_diag_log());
}

/* A descriptor by name (/dev/fd/N, /proc/self/fd/N): written through a duplicate, sharing the offset. */
static void test_fd_names(void) {
    int fd = open(path("fd.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0 && write(fd, "head\n", 5) == 5, "open");
    char name[64];
    snprintf(name, sizeof name, "/dev/fd/%d", fd);
    pg_diag_sink s = test_sink();
    CHECK(pg_write_file(name, "body\n", 5, 0, &s) == PG_OK, "write /dev/fd/N: %s", test_diag_log());
    snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
    CHECK(pg_write_file(name, "tail\n", 5, 0, &s) == PG_OK, "write /proc/self/fd/N");
    close(fd);
    char *t = slurp(path("fd.txt"));
    CHECK(t && !strcmp(t, "head\nbody\ntail\n"), "appended at the shared offset, not replaced: %s", t ? t : "(none)");
    free(t);
    CHECK(temps_left() == 0, "no temporary left");
}

/* "-" and /dev/stdout are stdout; a failure there is named with its cause (in a child
 * whose stdout is /dev/full). */
static void test_stdout(void) {
    pid_t p = fork();
    if (p == 0) {
        int fd = open(path("so.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        close(fd);
        pg_stdout_install();
        pg_diag_sink s = {0};
        printf("a\n");
        bool ok = pg_write_file("-", "b\n", 2, 0, &s) == PG_OK;
        printf("c\n");
        ok = ok && pg_write_file("/dev/stdout", "d\n", 2, 0, &s) == PG_OK;
        ok = ok && pg_stdout_finish(&s) == PG_OK;
        _exit(ok ? 0 : 1);
    }
    int st;
    waitpid(p, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "stdout writes");
    char *t = slurp(path("so.txt"));
    CHECK(t && !strcmp(t, "a\nb\nc\nd\n"), "in order: %s", t ? t : "(none)");
    free(t);
    int pfd[2];
    CHECK(pipe(pfd) == 0, "pipe");
    p = fork();
    if (p == 0) {
        int fd = open("/dev/full", O_WRONLY);
        dup2(fd, 1);
        dup2(pfd[1], 2);
        pg_stdout_install();
        pg_diag_sink s = test_sink();
        for (int i = 0; i < 10000; i++) printf("line %d\n", i);   /* fails early; the cause is kept */
        pg_status r = pg_stdout_finish(&s);
        fputs(test_diag_log(), stderr);
        _exit(r == PG_ERR_IO ? 0 : 1);
    }
    close(pfd[1]);
    char buf[512] = {0};
    ssize_t n = read(pfd[0], buf, sizeof buf - 1);
    close(pfd[0]);
    waitpid(p, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0 && n > 0 && strstr(buf, "<stdout>") && strstr(buf, "No space left"),
          "stdout on /dev/full: %s", buf);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/ptxgen-test-out-XXXXXX");
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
    test_regular_and_links();
    test_no_clobber();
    test_failures();
    test_stale_temps();
    test_fifo();
    test_fd_names();
    test_stdout();
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "chmod -R u+w %s; rm -rf %s", dir, dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    printf("%d passed, %d failed\n", t_pass, t_fail);
    return t_fail != 0;
}
