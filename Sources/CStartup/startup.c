/* Room for the sockets of a venue, made before main (docs/bench.md, "Fifteenth round").

   A process usually starts with a soft limit of 1,024 open files, far below its hard limit: too
   few for a venue's tables, so the soft limit is raised to the hard one. And the kernel keeps a
   process's open files in a table that it doubles as it fills; once the process has threads, each
   doubling waits for an RCU grace period (expand_fdtable in fs/file.c). On a running box that held
   an event loop's accept, and every socket of the loop, for 5-22 ms at each of 64, 128, 256, 512,
   1,024 and 2,048 open files; at the start of `tripto serve`, with its first threads already
   there, growing the table took 12-20 ms. Before main there is one thread and no wait. */

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "startup.h"

/* 64 KB of the kernel's memory: room for about 8,000 sockets before the first doubling. */
enum { prepared_slots = 8192 };

static int open_file_limit = -1;
static int open_file_table = 0;

__attribute__((constructor)) static void tripto_prepare_open_files(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
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
