// Installing profkit: `cmake --install` into a prefix and the Debian package from
// `cpack -G DEB`, unpacked with `dpkg -x` into an empty folder, must each give a working
// profkit (its runtime found beside it), man pages and the fleet merger.
#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "tests/support/harness.h"

namespace profkit::test {
namespace {

// What every installed tree must hold and do; `root` is the prefix (…/usr for the package).
void check_installed_tree(const std::string& root) {
  const std::string bin = root + "/bin/profkit";
  EXPECT_EQ(run_ok(sh_quote(bin) + " --version").out, "profkit 0.1.0\n");
  EXPECT_TRUE(file_exists(root + "/lib/libprofkit_memprof.so"));
  EXPECT_TRUE(file_exists(root + "/lib/libprofkit_memprof.a"));
  EXPECT_TRUE(file_exists(root + "/lib/preload/libprofkit_memprof.so"));
  for (const char* page : {"profkit", "profkit-merge", "profkit-show", "profkit-run"}) {
    const std::string path = root + "/share/man/man1/" + page + ".1";
    ASSERT_TRUE(file_exists(path)) << path;
    // The page is made from the command's own --help: its options are in it.
    EXPECT_NE(read_file(path).find(".TH"), std::string::npos) << path;
    // Title and NAME name the page's own command (they once came from the error text a
    // subcommand's --version printed: ".TH BASE", "command \- ...").
    std::string title = page;
    for (char& c : title) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const std::string name = page;
    const std::string text = read_file(path);
    EXPECT_NE(text.find(".TH " + title + " \"1\""), std::string::npos) << path;
    EXPECT_NE(text.find(".SH NAME\n" + name + " \\- "), std::string::npos) << path << "\n"
                                                                            << text.substr(0, 400);
    EXPECT_EQ(text.find("is required"), std::string::npos) << path;
  }
  EXPECT_NE(read_file(root + "/share/man/man1/profkit-merge.1").find("weighted\\-input"),
            std::string::npos);
  // `profkit run` finds the installed runtime (../lib beside bin/) and writes a profile.
  const std::string dir = root + "/../run-check";
  run_ok("mkdir -p " + sh_quote(dir));
  run_ok("cd " + sh_quote(dir) + " && " + sh_quote(bin) + " run -o p.raw -- /bin/true");
  EXPECT_TRUE(file_exists(dir + "/p.raw"));
  const CommandResult fleet = run(sh_quote(root + "/bin/profkit-fleet") + " merge --help");
  EXPECT_EQ(fleet.status, 0) << fleet.err;
  EXPECT_NE(fleet.out.find("--scheduler"), std::string::npos);
}

TEST(Install, CmakeInstallGivesAWorkingPrefix) {
  const std::string dir = work_dir("cmake_install");
  run_ok("cmake --install " + sh_quote(PROFKIT_BINARY_DIR) + " --prefix " + sh_quote(dir + "/prefix") +
         " > /dev/null");
  check_installed_tree(dir + "/prefix");
}

TEST(Install, DebianPackageUnpacksToAWorkingTree) {
  const std::string dir = work_dir("deb");
  run_ok("cd " + sh_quote(PROFKIT_BINARY_DIR) + " && cpack -G DEB -B " + sh_quote(dir) +
         " > /dev/null");
  const std::string deb = dir + "/profkit_0.1.0_amd64.deb";
  ASSERT_TRUE(file_exists(deb));
  const CommandResult info = run_ok("dpkg-deb -f " + sh_quote(deb) + " Package Depends");
  EXPECT_NE(info.out.find("Package: profkit"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("libc6"), std::string::npos) << info.out;
  run_ok("dpkg -x " + sh_quote(deb) + " " + sh_quote(dir + "/root"));
  check_installed_tree(dir + "/root/usr");
}

}  // namespace
}  // namespace profkit::test
