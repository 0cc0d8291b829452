#ifndef CPROCESSEXIT_H
#define CPROCESSEXIT_H

#include <sys/types.h>

/// A file descriptor that turns readable when process `pid` exits, whoever its parent is
/// (pidfd_open(2), Linux 5.3); -1 with errno set (ESRCH: no such process; ENOSYS: an older
/// kernel). glibc's own wrapper is not visible to Swift, so the system call is made here.
int sk_pidfd_open(pid_t pid);

#endif
