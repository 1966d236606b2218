#!/usr/bin/env bash
# Installs the Debian packages profkit needs to build, test and benchmark, if any are missing.
# Runs apt-get as root, through sudo otherwise. Safe to run repeatedly: it only calls apt-get
# when `dpkg -s` reports a package as absent.
set -euo pipefail

packages=(
  # toolchains: LLVM 22 (primary target) and Debian's default LLVM 14 (must stay readable)
  clang-22 llvm-22 llvm-22-dev llvm-22-tools libclang-rt-22-dev lld-22
  clang-14 llvm-14 libclang-rt-14-dev g++ cmake ninja-build make
  # libraries
  zlib1g-dev libxxhash-dev libmd-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libdw-dev libelf-dev libcapstone-dev libunwind-dev
  libbz2-dev liblzma-dev
  # tools used by tests and benchmarks
  hyperfine time b3sum python3 xxd
  # gold's identical code folding makes DWARF with several functions at one address
  binutils
  # perf: `profkit profgen --perfdata` runs `perf script`; recordings for benchmarks
  linux-perf
  # AutoFDO's create_llvm_prof: bench/pgo compares its no-LBR profiles with profkit's
  autofdo
  # man pages from --help (help2man) and the Debian package's dependencies (dpkg-shlibdeps)
  help2man dpkg-dev
  # 32-bit producers: clang -m32 builds run under user-mode emulation (kernels may lack IA-32)
  qemu-user libc6-dev-i386 lib32gcc-12-dev
  # report exports (issue 6): protobuf and pprof's profile.proto for pprof, the real pprof
  # (Go's tool) to read ours, headless Chromium driven by selenium, valgrind for dh_view.html
  protobuf-compiler libprotobuf-dev golang-github-google-pprof-dev golang-1.19-go
  chromium chromium-driver python3-selenium valgrind fonts-dejavu-core
  # fleet merging (issue 19): Dask's distributed scheduler for /usr/bin/python3; openssl makes
  # the TLS test's certificates
  python3-distributed python3-dask openssl
)

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
