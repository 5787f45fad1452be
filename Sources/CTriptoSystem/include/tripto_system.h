#ifndef TRIPTO_SYSTEM_H
#define TRIPTO_SYSTEM_H

/* The few calls into the C library and the kernel that Swift cannot make directly. Each is a
   measured optimisation or a plain system call; docs/performance.md says what each one is worth
   and how to turn it off (TRIPTO_DISABLE). */

#include <sys/types.h>

/* Whether NAME is in the comma-separated list of the TRIPTO_DISABLE environment variable: an
   optimisation the box is to run without, to measure what it is worth. */
int tripto_disabled(const char *name);

/* The soft limit on open files that the start left in force (see system.c), or -1 if it could not
   be read. */
int tripto_open_file_limit(void);

/* Slots the table of open files was grown to before main (0 if it was not). */
int tripto_open_file_table(void);

/* Asks the scheduler for a short time slice for the calling thread; 0, or -1 with errno set. */
int tripto_request_short_slice(unsigned long long slice_ns);

/* Names the calling thread (up to 15 bytes), as ps, top -H and perf show it. */
void tripto_name_thread(const char *name);

/* The calling thread's id in the kernel. */
pid_t tripto_thread_id(void);

/* The Swift runtime's hook for enqueuing a job on the global concurrent executor. */
void **tripto_enqueue_global_hook(void);

#endif
