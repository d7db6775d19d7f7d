/* cmd_twin.c — `ptxgen twin`: a PTX file against its CUDA C twin, no model.  The work is
 * the library's (pipe_twin_prepare, pipe_twin_judge: src/pipeline/twin.c). */
#include "cli.h"
#include "ptxgen/isa.h"
#include "ptxgen/pipeline.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *twin_usage =
    "usage: ptxgen twin KERNEL.ptx TWIN.cu [--request TEXT] [--task-out F.task.json] [--arch sm_80] [--no-gpu] [--json]\n"
    "  The verdict path of `gen --twin` on a kernel you have: TWIN.cu (extern \"C\" __global__, the entry's\n"
    "  name and parameters) is compiled with nvcc (-ptx and a cubin), a task is inferred from it and the\n"
    "  request (written to --task-out, default KERNEL.task.json beside the PTX, with the twin copied to\n"
    "  KERNEL.cu when it lives elsewhere), and with a GPU the PTX runs against the twin on every input set.\n"
    "  --no-gpu: compile and infer only (the verdict is \"not run\").\n"
    "  Exit: 0 agrees (or could not be run: the line says why), 1 differs or the PTX fails its checks,\n"
    "  2 usage/IO or a twin ptxgen cannot read.\n";

int cmd_twin(int argc, char **argv) {
    const char *ptxp = NULL, *cup = NULL, *request = NULL, *task_out = NULL, *arch = "sm_80";
    bool json = false, no_gpu = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--no-gpu")) no_gpu = true;
        else if (!strcmp(a, "--request") && i + 1 < argc) request = argv[++i];
        else if (!strcmp(a, "--task-out") && i + 1 < argc) task_out = argv[++i];
        else if (!strcmp(a, "--arch") && i + 1 < argc) arch = argv[++i];
        else if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { printf("%s", twin_usage); return 0; }
        else if (a[0] == '-' && a[1]) { cli_usage_error("twin", "unknown or incomplete option '%s'", a); return 2; }
        else if (!ptxp) ptxp = a;
        else if (!cup) cup = a;
        else { cli_usage_error("twin", "one PTX file and one twin"); return 2; }
    }
    if (!ptxp || !cup) { cli_usage_error("twin", "need KERNEL.ptx and TWIN.cu"); return 2; }
    int sm_;
    bool as_, fam_;
    if (!isa_parse_target(arch, &sm_, &as_, &fam_)) { fprintf(stderr, "ptxgen twin: --arch %s is not a known target\n", arch); return 2; }
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 20};
    pipe_notes notes = {cli_print_note, NULL, NULL};
    char *ptx = NULL, *cu = NULL;
    size_t n;
    int rc = 2;
    pipe_twin to;
    memset(&to, 0, sizeof to);
    task_spec *inferred = NULL;
    char tmpdir[600] = "";
    if (pg_read_file(ptxp, 64 << 20, &ptx, &n, &sink) != PG_OK || pg_read_file(cup, 4 << 20, &cu, &n, &sink) != PG_OK) goto out;
    pipe_sibling_path(ptxp, ".cu", to.cu_path, sizeof to.cu_path);
    if (task_out) snprintf(to.task_path, sizeof to.task_path, "%s", task_out);
    else pipe_sibling_path(ptxp, ".task.json", to.task_path, sizeof to.task_path);
    /* the twin must sit beside the task.json (the reference is a plain file name there) */
    {
        char tdir[4200], cdir[4200];
        const char *ts = strrchr(to.task_path, '/'), *cs = strrchr(to.cu_path, '/');
        snprintf(tdir, sizeof tdir, "%.*s", ts ? (int)(ts - to.task_path) : 1, ts ? to.task_path : ".");
        snprintf(cdir, sizeof cdir, "%.*s", cs ? (int)(cs - to.cu_path) : 1, cs ? to.cu_path : ".");
        if (!pipe_same_file(tdir, cdir)) {
            fprintf(stderr, "ptxgen twin: --task-out %s: put the task.json in the PTX's folder (%s), where the twin's copy is\n",
                    to.task_path, cdir);
            goto out;
        }
    }
    char *existing = NULL;
    size_t en = 0;
    pg_diag_sink quiet = {0};
    bool identical = access(to.cu_path, F_OK) == 0 && pg_read_file(to.cu_path, 4 << 20, &existing, &en, &quiet) == PG_OK &&
                     !strcmp(existing, cu);
    free(existing);
    if (!pipe_same_file(cup, to.cu_path) && !identical && access(to.cu_path, F_OK) == 0) {
        fprintf(stderr, "ptxgen twin: %s exists and is not %s; the twin's copy would overwrite it: pass that file or move it\n",
                to.cu_path, cup);
        goto out;
    }
    if (!pipe_same_file(cup, to.cu_path) && !identical && pg_write_file(to.cu_path, cu, strlen(cu), 0, &sink) != PG_OK) goto out;
    {
        twin_kernel k;
        if (twin_parse(cu, cup, NULL, &k, &sink) != PG_OK) goto out;
        twin_kernel_free(&k);
    }
    pipe_twin_prepare(request, cu, ptx, arch, 0, NULL, &to, &inferred, &notes, &sink);
    if (to.write_failed) goto out;
    pipe_verdict v;
    memset(&v, 0, sizeof v);
    v.check = v.ptxas = v.gpu = "not run";
    rc = 0;
    if (inferred) {
        pg_tmp_path(tmpdir, sizeof tmpdir, "ptxgen-twin-XXXXXX");
        if (!mkdtemp(tmpdir)) { fprintf(stderr, "ptxgen twin: cannot create a temp dir: %s\n", strerror(errno)); rc = 2; tmpdir[0] = 0; goto out; }
        pipe_verify(ptx, ptxp, arch, inferred, 1, false, NULL, &v);   /* validator + signature + ptxas first */
        if (!pipe_passed(&v, 1)) { to.verdict = TWIN_V_NOT_RUN; snprintf(to.detail, sizeof to.detail, "the PTX fails its checks: %.560s", v.why); rc = 1; }
        else if (no_gpu) { to.verdict = TWIN_V_NOT_RUN; snprintf(to.detail, sizeof to.detail, "--no-gpu"); }
        else if (pipe_twin_can_run(&v, &to)) pipe_twin_judge(ptx, arch, inferred, tmpdir, 1, &to, &v, &sink);
    }
    if (to.verdict == TWIN_V_DIFFERS) rc = 1;
    pg_buf line = {0};
    pipe_utf8_clean(to.detail);
    twin_verdict_line(to.verdict, to.sets, to.detail, &line);
    fprintf(stderr, "twin: %s vs %s: %s\n", ptxp, to.cu_path, line.data);
    if (json) {
        json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:i}", "ptx", ptxp, "twin", to.cu_path, "verdict", twin_verdict_name(to.verdict),
                              "line", line.data, "input_sets", to.sets);
        if (to.task_written) json_object_set_new(j, "task_file", json_string(to.task_path));
        if (to.detail[0]) json_object_set_new(j, "detail", json_string(to.detail));
        json_object_set_new(j, "nvcc", to.nvcc[0] ? json_string(to.nvcc) : json_null());
        char *s2 = json_dumps(j, JSON_INDENT(2));
        printf("%s\n", s2);
        free(s2);
        json_decref(j);
    }
    pg_buf_free(&line);
out:
    if (tmpdir[0]) rmdir(tmpdir);
    task_free(inferred);
    free(ptx);
    free(cu);
    return rc;
}


