/* cmd_devinfo.c — `ptxgen devinfo`: the GPU's name, sm, measured copy bandwidth and peaks. */
#include "cli.h"
#include "ptxgen/gpu.h"

#include <stdio.h>
#include <string.h>

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
