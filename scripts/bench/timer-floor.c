// The floor under any open loop on this machine: one timer wakeup and
// nothing else. Sleeps on a timerfd until each of N deadlines PERIOD ns
// apart (default 100000: 10,000 wakeups a second) and prints the CPU (user +
// sys, getrusage) per wakeup and how late the wakeups were (from the
// deadline to the clock read after the wakeup: p50, p99, p99.9, max).
// scripts/bench-pacing.sh builds and runs it beside platbench: where each
// operation needs its own wakeup (10,000/s), platbench's CPU per operation
// cannot go below the first figure, and no loader's schedule lag below the
// second.
// Usage: timer-floor [PERIOD_NS [N]]
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static int64_t now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv) {
  long period = argc > 1 ? atol(argv[1]) : 100000;
  long n = argc > 2 ? atol(argv[2]) : 50000;
  if (period <= 0 || n <= 0) {
    fprintf(stderr, "usage: timer-floor [PERIOD_NS [N]] (both > 0)\n");
    return 2;
  }
  int fd = timerfd_create(CLOCK_MONOTONIC, 0);
  int64_t *late = malloc(n * sizeof *late);
  if (fd < 0 || late == NULL) {
    perror("timer-floor");
    return 1;
  }
  int64_t start = now() + period;
  for (long i = 0; i < n; i++) {
    int64_t due = start + i * period;
    struct itimerspec its = {{0, 0}, {due / 1000000000LL, due % 1000000000LL}};
    timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
    uint64_t x;
    if (read(fd, &x, sizeof x) != sizeof x) {
      perror("timer-floor: read");
      return 1;
    }
    late[i] = now() - due;
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  qsort(late, n, sizeof *late, cmp);
  printf("%.2f us CPU per wakeup; lateness p50 %.0f us, p99 %.0f us, p99.9 %.0f us, max %.2f ms (%ld wakeups %ld ns apart)\n",
         cpu / n * 1e6, late[n / 2] / 1e3, late[n * 99 / 100] / 1e3, late[n * 999 / 1000] / 1e3, late[n - 1] / 1e6, n, period);
  return 0;
}
