/* plan.h — the plan stage with another source of plans (internal, for tests): pipe_plan's loop
 * (ptxgen/pipeline.h) over plans that next(user, k, plan) appends to `plan` (k = 0, 1, ...;
 * false: no plan k, a draw that failed) instead of the model's plan turn.  Each counts as an
 * attempt, as a drawn plan does; pipe_in.plan, when set, still takes precedence (one attempt). */
#ifndef PTXGEN_PIPE_PLAN_H
#define PTXGEN_PIPE_PLAN_H
#include "ptxgen/pipeline.h"

typedef bool (*pipe_plan_source)(void *user, int k, pg_buf *plan);
pg_status pipe_plan_from(pipe_plan_source next, void *user, const pipe_in *in, pipe_out *out, pg_diag_sink *diag);
#endif
