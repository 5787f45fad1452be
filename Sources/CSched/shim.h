#ifndef TRIPTO_CSCHED_SHIM_H
#define TRIPTO_CSCHED_SHIM_H

#ifdef __linux__
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>
#include <linux/sched/types.h>

#ifndef SCHED_FLAG_KEEP_POLICY
#define SCHED_FLAG_KEEP_POLICY 0x08
#endif

/* Asks the scheduler for a short time slice for the calling thread (sched_setattr(2) with
   sched_runtime on a normal thread, Linux 6.12 and later: the EEVDF scheduler then runs it sooner
   when it wakes, in shorter turns, at the same share of the CPU). Its policy and nice value stay as
   they are, so no privilege is needed. Linux 5.3 to 6.11 accept the call and ignore the slice;
   earlier kernels refuse it. Either way the thread keeps running as before. (glibc wraps the call
   only from 2.41.) Returns 0, or -1 with errno set. */
static inline int tripto_request_short_slice(unsigned long long slice_ns) {
    struct sched_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.sched_flags = SCHED_FLAG_KEEP_POLICY;
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, 0);
    if (nice == -1 && errno != 0) return -1;
    attr.sched_nice = nice;
    attr.sched_runtime = slice_ns;
    return (int)syscall(SYS_sched_setattr, 0, &attr, 0);
}

/* Names the calling thread (up to 15 bytes), as ps, top -H and perf show it. */
static inline void tripto_name_thread(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

/* The calling thread's id in the kernel (gettid(2), which glibc declares only for _GNU_SOURCE). */
static inline pid_t tripto_thread_id(void) { return (pid_t)syscall(SYS_gettid); }
#endif

#endif
