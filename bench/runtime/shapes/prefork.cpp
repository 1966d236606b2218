// A pre-forking server: the parent builds some state, then forks 100 workers one after the
// other; each copies part of the inherited state, and exits with _exit (no exit handlers, so
// no worker writes a profile: the fork handlers and the copy-on-write pages are the cost).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <unistd.h>
#include <sys/wait.h>
int main(int argc, char** argv) {
  int children = argc > 1 ? atoi(argv[1]) : 100;
  std::vector<std::string> state;
  for (int i = 0; i < 20000; ++i) state.push_back(std::string(30 + i % 50, 'p'));
  unsigned long ok = 0;
  for (int c = 0; c < children; ++c) {
    pid_t pid = fork();
    if (pid == 0) {
      std::vector<std::string> v;
      for (int i = 0; i < 5000; ++i) v.push_back(state[(i * 7 + c) % state.size()] + "x");
      unsigned long s = 0;
      for (auto& x : v) s += x.size();
      _exit(s % 2 == 0 ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    ok += WIFEXITED(st);
  }
  printf("%lu\n", ok);
}
