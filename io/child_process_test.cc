#include "io/child_process.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

namespace profkit {
namespace {

TEST(EnvironmentWith, ReplacesEarlierValuesAndAddsTheRestLast) {
  setenv("PROFKIT_ENV_TEST_A", "old", 1);
  unsetenv("PROFKIT_ENV_TEST_B");
  const auto env = environment_with({"PROFKIT_ENV_TEST_A=new", "PROFKIT_ENV_TEST_B=b"});
  EXPECT_EQ(std::count(env.begin(), env.end(), "PROFKIT_ENV_TEST_A=old"), 0);
  ASSERT_GE(env.size(), 2u);
  EXPECT_EQ(env[env.size() - 2], "PROFKIT_ENV_TEST_A=new");
  EXPECT_EQ(env.back(), "PROFKIT_ENV_TEST_B=b");
  // A name that only starts like one of `set`'s stays.
  setenv("PROFKIT_ENV_TEST_AB", "kept", 1);
  const auto env2 = environment_with({"PROFKIT_ENV_TEST_A=new"});
  EXPECT_EQ(std::count(env2.begin(), env2.end(), "PROFKIT_ENV_TEST_AB=kept"), 1);
  unsetenv("PROFKIT_ENV_TEST_A");
  unsetenv("PROFKIT_ENV_TEST_AB");
}

TEST(RunChild, GivesTheExitStatusAndTheEnvironment) {
  auto ran = run_child({"sh", "-c", "test \"$PROFKIT_CHILD_TEST\" = yes && exit 3"},
                       environment_with({"PROFKIT_CHILD_TEST=yes"}), "");
  ASSERT_TRUE(ran) << ran.error().message;
  EXPECT_EQ(ran->exec_error, 0);
  ASSERT_TRUE(WIFEXITED(ran->status));
  EXPECT_EQ(WEXITSTATUS(ran->status), 3);
  EXPECT_EQ(pass_on_exit(ran->status), 3);
}

TEST(RunChild, ThePidVariableHoldsTheProgramsOwnPidAndReplacesAnInheritedOne) {
  setenv("PROFKIT_CHILD_PID", "1", 1);
  auto ran = run_child({"sh", "-c", "test \"$PROFKIT_CHILD_PID\" = \"$$\""},
                       environment_with({}), "PROFKIT_CHILD_PID");
  unsetenv("PROFKIT_CHILD_PID");
  ASSERT_TRUE(ran) << ran.error().message;
  ASSERT_TRUE(WIFEXITED(ran->status));
  EXPECT_EQ(WEXITSTATUS(ran->status), 0);
}

TEST(RunChild, AProgramThatCannotRunIsAnExecErrorNotAStatus) {
  auto ran = run_child({"/nonexistent/profkit-no-such-program"}, environment_with({}), "");
  ASSERT_TRUE(ran) << ran.error().message;
  EXPECT_EQ(ran->exec_error, ENOENT);
}

TEST(RunChild, AChildEndedByASignalReportsThatSignal) {
  auto ran = run_child({"sh", "-c", "kill -TERM $$"}, environment_with({}), "");
  ASSERT_TRUE(ran) << ran.error().message;
  ASSERT_TRUE(WIFSIGNALED(ran->status));
  EXPECT_EQ(WTERMSIG(ran->status), SIGTERM);
}

}  // namespace
}  // namespace profkit
