#ifndef TRIPTO_CSTARTUP_H
#define TRIPTO_CSTARTUP_H

/* The soft limit on open files that the box's start left in force (see startup.c), or -1 if it
   could not be read. */
int tripto_open_file_limit(void);

/* Slots the table of open files was grown to before main. */
int tripto_open_file_table(void);

#endif
