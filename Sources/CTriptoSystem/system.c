#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tripto_system.h"

int tripto_disabled(const char *name) {
    const char *list = getenv("TRIPTO_DISABLE");
    size_t length = strlen(name);
    if (list == NULL || length == 0) return 0;
    for (const char *item = list; *item != '\0';) {
        const char *end = strchr(item, ',');
        const char *stop = end ? end : item + strlen(item);
        /* Spaces around a name are not part of it ("loop-executor, fd-table"). */
        while (item < stop && *item == ' ') item++;
        while (stop > item && stop[-1] == ' ') stop--;
        if ((size_t)(stop - item) == length && strncmp(item, name, length) == 0) return 1;
        if (end == NULL) break;
        item = end + 1;
    }
    return 0;
}

/* Open files: room for the sockets of a venue, made before main (docs/performance.md, "Open-file
   table grown before main"; TRIPTO_DISABLE=fd-table leaves both as the process started).

   A process usually starts with a soft limit of 1,024 open files, far below its hard limit: too
   few for a venue's tables, so the soft limit is raised to the hard one. And the kernel keeps a
   process's open files in a table that it doubles as it fills; once the process has threads, each
   doubling waits for an RCU grace period (expand_fdtable in fs/file.c), which held an event loop's
   accept, and every socket of the loop, for 5-22 ms at each doubling. Before main there is one
   thread and no wait. */

/* 64 KB of the kernel's memory: room for about 8,000 sockets before the first doubling. */
enum { prepared_slots = 8192 };

static int open_file_limit = -1;
static int open_file_table = 0;

__attribute__((constructor)) static void tripto_prepare_open_files(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
    if (tripto_disabled("fd-table")) {
        open_file_limit = limit.rlim_cur > 0x7fffffff ? 0x7fffffff : (int)limit.rlim_cur;
        return;
    }
    if (limit.rlim_cur < limit.rlim_max) {
        struct rlimit raised = limit;
        raised.rlim_cur = limit.rlim_max;
        /* A hard limit of "unlimited" is refused as a soft one above fs.nr_open (2^20 by default). */
        if (setrlimit(RLIMIT_NOFILE, &raised) != 0 && limit.rlim_cur < (1u << 20)) {
            raised.rlim_cur = limit.rlim_max < (1u << 20) ? limit.rlim_max : (1u << 20);
            (void)setrlimit(RLIMIT_NOFILE, &raised);
        }
        if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
    }
    open_file_limit = limit.rlim_cur > 0x7fffffff ? 0x7fffffff : (int)limit.rlim_cur;

    /* A descriptor in the table's last slot makes the kernel grow the table to hold it; closed
       again, the slot is free and the table keeps its size. */
    int last = (open_file_limit < prepared_slots ? open_file_limit : prepared_slots) - 1;
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0) return;
    int high = fcntl(null, F_DUPFD_CLOEXEC, last);
    if (high >= 0) {
        open_file_table = last + 1;
        close(high);
    }
    close(null);
}

int tripto_open_file_limit(void) { return open_file_limit; }

int tripto_open_file_table(void) { return open_file_table; }

/* The kernel's struct sched_attr in its first version (SCHED_ATTR_SIZE_VER0, 48 bytes; see
   sched_setattr(2)). Declared here under a name of our own: <linux/sched/types.h> and glibc 2.41's
   <sched.h> both declare struct sched_attr, and including the kernel's header then fails to build. */
struct tripto_sched_attr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
};

_Static_assert(sizeof(struct tripto_sched_attr) == 48, "sched_attr's first version is 48 bytes");

/* Keep the thread's scheduling policy, change only what is given (SCHED_FLAG_KEEP_POLICY). */
enum { keep_policy = 0x08 };

/* sched_setattr(2) with sched_runtime on a normal thread (Linux 6.12 and later: the EEVDF scheduler
   then runs it sooner when it wakes, in shorter turns, at the same share of the CPU). Its policy
   and nice value stay as they are, so no privilege is needed. Linux 5.3 to 6.11 accept the call and
   ignore the slice; earlier kernels refuse it. Either way the thread keeps running as before.
   TRIPTO_DISABLE=short-slice leaves the kernel's default slice. */
int tripto_request_short_slice(unsigned long long slice_ns) {
    if (tripto_disabled("short-slice")) return 0;
    struct tripto_sched_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.sched_flags = keep_policy;
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, 0);
    if (nice == -1 && errno != 0) return -1;
    attr.sched_nice = nice;
    attr.sched_runtime = slice_ns;
    return (int)syscall(SYS_sched_setattr, 0, &attr, 0);
}

void tripto_name_thread(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

pid_t tripto_thread_id(void) { return (pid_t)syscall(SYS_gettid); }

/* Declared in the Swift runtime (ConcurrencyHooks.def). A release build links the runtime
   statically and does not export the symbol, so it cannot be found with dlsym; named here, the
   linker resolves it in both the static and the shared build. */
extern void *swift_task_enqueueGlobal_hook;

void **tripto_enqueue_global_hook(void) { return &swift_task_enqueueGlobal_hook; }
