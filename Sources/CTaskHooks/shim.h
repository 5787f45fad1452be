#ifndef TRIPTO_CTASKHOOKS_SHIM_H
#define TRIPTO_CTASKHOOKS_SHIM_H

/* The Swift runtime's hook for enqueuing a job on the global concurrent executor (declared in the
   runtime's ConcurrencyHooks.def). A release build links the runtime statically and does not
   export the symbol, so it cannot be found with dlsym; named here, the linker resolves it in both
   the static and the shared build. */
extern void *swift_task_enqueueGlobal_hook;

static inline void **tripto_enqueue_global_hook(void) { return &swift_task_enqueueGlobal_hook; }

#endif
