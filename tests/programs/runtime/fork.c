/* fork: the parent allocates before and after the fork, the child at its own site; each
   process writes its own profile. One parent block is live at the fork and freed by the
   child: the parent reports it (live at its exit), the child must not report it again. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
void *volatile sink;
__attribute__((noinline, disable_tail_calls)) char *parent_site(void) { char *p = malloc(48); p[0] = 1; return p; }
__attribute__((noinline, disable_tail_calls)) char *child_site(void) { char *p = malloc(24); p[0] = 1; p[8] = 1; return p; }
int main(void) {
  free(parent_site()); sink = parent_site();
  pid_t pid = fork();
  if (pid == 0) {
    for (int i = 0; i < 3; i++) free(child_site());
    free(sink); exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  free(parent_site());
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
