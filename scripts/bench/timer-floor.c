// The floor under any open loop on this machine: the CPU of one timer wakeup
// and nothing else. A blocking timerfd that expires every PERIOD ns (default
// 100000: 10,000 wakeups a second), read N times; prints the CPU (user+sys,
// getrusage) per wakeup. scripts/bench-pacing.sh builds and runs it beside
// platbench: at rates where each operation needs its own wakeup (10,000/s),
// platbench's CPU per operation cannot go below this figure.
// Usage: timer-floor [PERIOD_NS [N]]
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/timerfd.h>
#include <sys/resource.h>
#include <time.h>
int main(int argc, char **argv) {
  long period = argc > 1 ? atol(argv[1]) : 100000;
  long n = argc > 2 ? atol(argv[2]) : 50000;
  int fd = timerfd_create(CLOCK_MONOTONIC, 0);
  struct itimerspec its = {{0, period}, {0, period}};
  timerfd_settime(fd, 0, &its, NULL);
  uint64_t x, got = 0;
  for (long i = 0; i < n; i++) { read(fd, &x, 8); got += x; }
  struct rusage ru; getrusage(RUSAGE_SELF, &ru);
  double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  printf("period %ld ns: %ld wakeups (%lu expiries), %.2f us CPU per wakeup, %ld voluntary cs\n", period, n, (unsigned long)got, cpu / n * 1e6, ru.ru_nvcsw);
  return 0;
}
