#ifndef CFUTEX_H
#define CFUTEX_H

#include <stdint.h>

/// Futexes and atomic operations on words in memory shared between processes (a MAP_SHARED
/// mapping of one file). Every operation is a futex(2) call: the kernel touches the word, not
/// the caller, so a word whose file another process cut short fails with EFAULT instead of
/// killing the caller with SIGBUS. The futex(2) system call has no glibc wrapper Swift can see.

/// Sleeps while `*word == expected`, for at most `timeout_ms` milliseconds: 0 when woken, -1
/// with errno set otherwise (EAGAIN: the word had changed already; ETIMEDOUT; EINTR; EFAULT:
/// the word's page is gone).
int sk_futex_wait_shared(uint32_t *word, uint32_t expected, int timeout_ms);

/// Adds `delta` (-2048 to 2047) to `*word` atomically, then wakes at most `wake` sleepers on
/// it: how many it woke, or -1 with errno (EFAULT: the word's page is gone).
int sk_futex_add_shared(uint32_t *word, int32_t delta, int wake);

/// Whether `*word == value`, compared atomically: 1 or 0, or -1 with errno (EFAULT).
int sk_futex_equals_shared(uint32_t *word, uint32_t value);

#endif
