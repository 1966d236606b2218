#include "tools/branch-trace/tracer.h"

#include <elf.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "io/output_file.h"

namespace profkit::branch_trace {

namespace {

Unexpected io_error(const std::string& what) {
  return make_error(ErrorCode::io, kNoOffset, what + ": " + std::strerror(errno));
}

// A file descriptor closed on scope exit.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// One executable line of /proc/PID/maps.
struct ExecMapping {
  uint64_t start = 0, end = 0, offset = 0;
  unsigned dev_major = 0, dev_minor = 0;
  uint64_t inode = 0;
  std::string prot, path;

  auto key() const { return std::tie(start, end, offset, inode, path); }
};

std::vector<ExecMapping> read_exec_mappings(int pid) {
  std::vector<ExecMapping> result;
  std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
  std::string line;
  while (std::getline(in, line)) {
    ExecMapping m;
    char prot[8] = {};
    unsigned long long start, end, offset, inode;
    int path_at = 0;
    if (sscanf(line.c_str(), "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, prot, &offset,
               &m.dev_major, &m.dev_minor, &inode, &path_at) < 7)
      continue;
    if (prot[2] != 'x') continue;
    m.start = start;
    m.end = end;
    m.offset = offset;
    m.inode = inode;
    m.prot = prot;
    m.path = path_at > 0 && static_cast<size_t>(path_at) <= line.size() ? line.substr(path_at) : "";
    while (!m.path.empty() && m.path.back() == ' ') m.path.pop_back();
    if (m.path.empty()) m.path = "//anon";  // perf's name for anonymous executable memory
    if (m.path == "[vsyscall]") continue;   // a fixed kernel page, never announced by mmap
    result.push_back(std::move(m));
  }
  return result;
}

// The inode generation perf prints after the inode (0 when the file system has none).
uint64_t inode_generation(const std::string& path) {
  if (path.empty() || path[0] != '/') return 0;
  Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  int generation = 0;
  if (fd.get() < 0 || ioctl(fd.get(), FS_IOC_GETVERSION, &generation) != 0) return 0;
  return static_cast<uint32_t>(generation);
}

// One output script: text is collected and handed to the OutputFile in large pieces.
class ScriptSink {
 public:
  static Expected<std::unique_ptr<ScriptSink>> open(const std::string& path) {
    if (path.empty()) return std::unique_ptr<ScriptSink>();
    auto file = OutputFile::create(path);
    if (!file) return unexpected(std::move(file).error());
    return std::unique_ptr<ScriptSink>(new ScriptSink(std::move(*file)));
  }
  std::string& text() { return text_; }
  Expected<void> flush_if_large() {
    if (text_.size() < (1u << 20)) return {};
    return flush();
  }
  Expected<void> flush() {
    PROFKIT_TRY(file_.write(text_));
    text_.clear();
    return {};
  }
  Expected<void> commit() {
    PROFKIT_TRY(flush());
    return file_.commit();
  }

 private:
  explicit ScriptSink(OutputFile file) : file_(std::move(file)) {}
  OutputFile file_;
  std::string text_;
};

// The traced process: started stopped, stepped one instruction at a time.
class Tracee {
 public:
  ~Tracee() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  Expected<void> start(const TraceOptions& options) {
    std::vector<char*> argv;
    for (const std::string& arg : options.command) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    pid_ = fork();
    if (pid_ < 0) return io_error("fork");
    if (pid_ == 0) {
      if (options.no_aslr) personality(ADDR_NO_RANDOMIZE);
      ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
      execvp(argv[0], argv.data());
      fprintf(stderr, "profkit-branch-trace: cannot run %s: %s\n", argv[0], strerror(errno));
      _exit(127);
    }
    PROFKIT_TRY(wait_stop());
    if (exited_)
      return make_error(ErrorCode::invalid_argument, kNoOffset,
                        "cannot run " + options.command[0]);
    ptrace(PTRACE_SETOPTIONS, pid_, nullptr, reinterpret_cast<void*>(PTRACE_O_EXITKILL));
    mem_ = std::make_unique<Fd>(open(("/proc/" + std::to_string(pid_) + "/mem").c_str(),
                                     O_RDWR | O_CLOEXEC));
    if (mem_->get() < 0) return io_error("open /proc/PID/mem");
    if (!options.from_exec) PROFKIT_TRY(run_to_entry());
    return read_registers();
  }

  // Executes one instruction (or one iteration of a rep-prefixed one). False once the
  // program has ended.
  Expected<bool> step() {
    if (ptrace(PTRACE_SINGLESTEP, pid_, nullptr, reinterpret_cast<void*>(pending_signal_)) != 0)
      return io_error("PTRACE_SINGLESTEP");
    pending_signal_ = 0;
    PROFKIT_TRY(wait_stop());
    if (exited_) return false;
    PROFKIT_TRY(read_registers());
    return true;
  }

  // Lets the program run until its next stop (a breakpoint, a signal, its end). False once
  // the program has ended.
  Expected<bool> resume() {
    if (ptrace(PTRACE_CONT, pid_, nullptr, reinterpret_cast<void*>(pending_signal_)) != 0)
      return io_error("PTRACE_CONT");
    pending_signal_ = 0;
    PROFKIT_TRY(wait_stop());
    if (exited_) return false;
    PROFKIT_TRY(read_registers());
    return true;
  }

  Expected<void> set_pc(uint64_t pc) {
    user_regs_struct regs = regs_;
    regs.rip = pc;
    return set_registers(regs);
  }

  Expected<void> set_registers(const user_regs_struct& regs) {
    if (ptrace(PTRACE_SETREGS, pid_, nullptr, &regs) != 0) return io_error("PTRACE_SETREGS");
    regs_ = regs;
    return {};
  }

  // Writes `n` bytes of the program's memory; false if they are not all writable.
  bool write(uint64_t address, const void* data, size_t n) {
    return pwrite(mem_->get(), data, n, static_cast<off_t>(address)) == static_cast<ssize_t>(n);
  }

  // Writes one byte of the program's memory (code pages included, as a debugger does).
  Expected<void> poke_byte(uint64_t address, uint8_t byte) {
    if (pwrite(mem_->get(), &byte, 1, static_cast<off_t>(address)) != 1)
      return io_error("write /proc/PID/mem");
    return {};
  }

  // Reads up to `n` bytes at `address`; returns how many could be read.
  size_t read(uint64_t address, void* buffer, size_t n) const {
    const ssize_t got = pread(mem_->get(), buffer, n, static_cast<off_t>(address));
    return got > 0 ? static_cast<size_t>(got) : 0;
  }

  // Whether the program has a handler for the signal it is about to be given.
  bool pending_signal_has_handler() const {
    if (pending_signal_ == 0) return false;
    std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("SigCgt:", 0) != 0) continue;
      const uint64_t caught = std::stoull(line.substr(7), nullptr, 16);
      return (caught >> (pending_signal_ - 1)) & 1;
    }
    return false;
  }

  int pid() const { return pid_; }
  const user_regs_struct& regs() const { return regs_; }
  bool stopped_by_signal() const { return pending_signal_ != 0; }
  int last_stop_signal() const { return last_stop_signal_; }
  int exit_status() const { return exit_status_; }

 private:
  Expected<void> wait_stop() {
    int status = 0;
    for (;;) {
      if (waitpid(pid_, &status, 0) < 0) {
        if (errno == EINTR) continue;
        return io_error("waitpid");
      }
      break;
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      exited_ = true;
      exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return {};
    }
    // A signal other than the single-step trap is handed to the program when it resumes.
    last_stop_signal_ = WIFSTOPPED(status) ? WSTOPSIG(status) : 0;
    if (last_stop_signal_ != SIGTRAP) pending_signal_ = last_stop_signal_;
    return {};
  }

  Expected<void> read_registers() {
    if (ptrace(PTRACE_GETREGS, pid_, nullptr, &regs_) != 0) return io_error("PTRACE_GETREGS");
    return {};
  }

  // Runs the dynamic loader untraced: a temporary int3 at the program's entry point.
  Expected<void> run_to_entry() {
    uint64_t entry = 0;
    {
      std::ifstream auxv("/proc/" + std::to_string(pid_) + "/auxv", std::ios::binary);
      uint64_t pair[2];
      while (auxv.read(reinterpret_cast<char*>(pair), sizeof pair))
        if (pair[0] == AT_ENTRY) entry = pair[1];
    }
    if (entry == 0)
      return make_error(ErrorCode::malformed, kNoOffset, "no AT_ENTRY in the program's auxv");
    errno = 0;
    const long word = ptrace(PTRACE_PEEKTEXT, pid_, entry, nullptr);
    if (errno != 0) return io_error("PTRACE_PEEKTEXT");
    const long trap = static_cast<long>((static_cast<unsigned long>(word) & ~0xfful) | 0xcc);
    if (ptrace(PTRACE_POKETEXT, pid_, entry, reinterpret_cast<void*>(trap)) != 0)
      return io_error("PTRACE_POKETEXT");
    if (ptrace(PTRACE_CONT, pid_, nullptr, nullptr) != 0) return io_error("PTRACE_CONT");
    PROFKIT_TRY(wait_stop());
    if (exited_)
      return make_error(ErrorCode::malformed, kNoOffset, "the program ended before its entry point");
    if (ptrace(PTRACE_POKETEXT, pid_, entry, reinterpret_cast<void*>(word)) != 0)
      return io_error("PTRACE_POKETEXT");
    PROFKIT_TRY(read_registers());
    regs_.rip = entry;
    if (ptrace(PTRACE_SETREGS, pid_, nullptr, &regs_) != 0) return io_error("PTRACE_SETREGS");
    return {};
  }

  int pid_ = -1;
  bool exited_ = false;
  int exit_status_ = 0;
  int pending_signal_ = 0;
  int last_stop_signal_ = 0;
  user_regs_struct regs_ = {};
  std::unique_ptr<Fd> mem_;
};

// The state of one tracing run: mappings seen, decoded instructions, LBR, call stack.
class Tracer {
 public:
  Tracer(const TraceOptions& options, Tracee& tracee)
      : options_(options), tracee_(tracee), ring_(options.depth) {}

  Expected<TraceStats> run(ScriptSink* lbr, ScriptSink* hybrid) {
    lbr_ = lbr;
    hybrid_ = hybrid;
    refresh_mappings();
    uint64_t pc = tracee_.regs().rip;
    for (;;) {
      if (options_.step == StepMode::block) {
        auto ran = run_block(pc);
        if (!ran) return unexpected(std::move(ran).error());
        if (*ran == BlockRun::ended) break;
        if (*ran == BlockRun::ran) {
          pc = tracee_.regs().rip;
          continue;
        }
      }
      const Insn insn = decoded(pc);
      const bool enters_handler = tracee_.pending_signal_has_handler();
      auto more = tracee_.step();
      if (!more) return unexpected(std::move(more).error());
      if (!*more) break;
      const uint64_t next = tracee_.regs().rip;
      if (enters_handler) {
        // The kernel built a signal frame and stopped at the handler's first instruction;
        // the instruction at pc has not run. The frame's return address (the restorer)
        // is a frame like a call's; the jump is the kernel's, not an LBR entry.
        uint64_t restorer = 0;
        const uint64_t sp = tracee_.regs().rsp;
        if (tracee_.read(sp, &restorer, sizeof restorer) == sizeof restorer)
          shadow_.on_call(restorer, sp);
        if (!in_known_mapping(next)) refresh_mappings();
        pc = next;
        continue;
      }
      // A rep-prefixed instruction stops after every iteration at the same address, and a
      // signal can stop the program before the instruction ran: nothing retired.
      if (next == pc && (insn.kind == InsnKind::other || tracee_.stopped_by_signal())) continue;
      if (insn.enters_kernel && (tracee_.regs().orig_rax == SYS_clone ||
                                 tracee_.regs().orig_rax == SYS_clone3))
        threads_may_exist_ = true;
      PROFKIT_TRY(retire(pc, insn, next));
      pc = next;
    }
    stats_.exit_status = tracee_.exit_status();
    return stats_;
  }

 private:
  // Accounts for the instruction at `pc` having run, `next` being the next pc and the
  // registers being those after it: count, LBR, shadow stack, mappings, sample.
  Expected<void> retire(uint64_t pc, const Insn& insn, uint64_t next) {
    ++stats_.instructions;
    bool taken = false;
    switch (insn.kind) {
      case InsnKind::other: break;
      case InsnKind::cond_jump: taken = next != pc + insn.length; break;
      default: taken = true; break;
    }
    const uint64_t sp = tracee_.regs().rsp;
    if (is_call(insn.kind)) shadow_.on_call(pc + insn.length, sp);
    else if (insn.kind == InsnKind::ret) shadow_.drop_dead(sp);
    if (taken) {
      ring_.push({pc, next, insn.kind});
      ++stats_.branches;
    }
    if (!in_known_mapping(next)) refresh_mappings();
    const bool sample = options_.event == SampleEvent::instructions
                            ? stats_.instructions % options_.period == 0
                            : taken && stats_.branches % options_.period == 0;
    if (sample) PROFKIT_TRY(write_sample(next));
    return {};
  }

  // Performs the direct branch or near return at `pc` (the program's registers are current
  // and its pc is `pc` or, after a breakpoint, `pc` + 1) by setting the registers and stack
  // as the CPU would, then retires it. False if it could not (then nothing changed).
  Expected<bool> emulate_branch(uint64_t pc) {
    const Insn insn = decoded(pc);
    if (!insn.emulable) return false;
    user_regs_struct regs = tracee_.regs();
    const uint64_t fall_through = pc + insn.length;
    uint64_t next = insn.target;
    switch (insn.kind) {
      case InsnKind::cond_jump:
        if (!condition_holds(insn.condition, regs.eflags)) next = fall_through;
        break;
      case InsnKind::jump: break;
      case InsnKind::call:
        if (!tracee_.write(regs.rsp - 8, &fall_through, sizeof fall_through)) return false;
        regs.rsp -= 8;
        break;
      case InsnKind::ret:
        if (tracee_.read(regs.rsp, &next, sizeof next) != sizeof next) return false;
        regs.rsp += 8 + insn.pop_bytes;
        break;
      default: return false;
    }
    regs.rip = next;
    PROFKIT_TRY(tracee_.set_registers(regs));
    PROFKIT_TRY(retire(pc, insn, next));
    return true;
  }

  // Straight-line code from an address: `count` instructions that are not branches, kernel
  // entries or undecodable, then `end`, the first that is (or the 64th).
  struct Block {
    uint64_t end = 0;
    uint32_t count = 0;
  };
  static constexpr uint32_t kMaxBlock = 64;

  const Block& block_at(uint64_t pc) {
    if (auto it = blocks_.find(pc); it != blocks_.end()) return it->second;
    Block b;
    b.end = pc;
    while (b.count < kMaxBlock) {
      const Insn insn = decoded(b.end);
      if (insn.length == 0 || insn.kind != InsnKind::other || insn.enters_kernel) break;
      b.end += insn.length;
      ++b.count;
    }
    return blocks_.emplace(pc, b).first->second;
  }

  enum class BlockRun { stepped_nothing, ran, ended };

  // Runs the straight-line code at `pc` at full speed to a temporary int3 at its end, when
  // no sample falls inside it: the same instructions, branches and samples as stepping it,
  // with two stops instead of one per instruction. The branch at the end is then stepped.
  Expected<BlockRun> run_block(uint64_t pc) {
    // A pending signal's handler must be stepped from its first instruction, and once the
    // program has threads they would share the breakpoint without being traced.
    if (threads_may_exist_ || tracee_.stopped_by_signal()) return BlockRun::stepped_nothing;
    const Block block = block_at(pc);
    if (block.count == 0) {
      auto emulated = emulate_branch(pc);  // a branch right here: no stop at all
      if (!emulated) return unexpected(std::move(emulated).error());
      return *emulated ? BlockRun::ran : BlockRun::stepped_nothing;
    }
    if (options_.event == SampleEvent::instructions &&
        options_.period - stats_.instructions % options_.period <= block.count)
      return BlockRun::stepped_nothing;  // a sample inside: step it to see its registers
    if (!in_known_mapping(block.end)) return BlockRun::stepped_nothing;
    uint8_t original = 0;
    if (tracee_.read(block.end, &original, 1) != 1) return BlockRun::stepped_nothing;
    PROFKIT_TRY(tracee_.poke_byte(block.end, 0xcc));
    auto alive = tracee_.resume();
    if (!alive) return unexpected(std::move(alive).error());
    if (!*alive) {
      stats_.exit_status = tracee_.exit_status();
      return BlockRun::ended;
    }
    PROFKIT_TRY(tracee_.poke_byte(block.end, original));
    const uint64_t stop = tracee_.regs().rip;
    if (tracee_.last_stop_signal() == SIGTRAP && stop == block.end + 1) {
      stats_.instructions += block.count;
      auto emulated = emulate_branch(block.end);
      if (!emulated) return unexpected(std::move(emulated).error());
      if (!*emulated) PROFKIT_TRY(tracee_.set_pc(block.end));
      return BlockRun::ran;
    }
    // Stopped inside the block by a signal (a fault, or one sent to it): count what ran
    // before the instruction it stopped at; the signal is delivered when it resumes.
    uint64_t at = pc;
    for (uint32_t i = 0; i < block.count; ++i) {
      if (at == stop) {
        stats_.instructions += i;
        return BlockRun::ran;
      }
      at += decoded(at).length;
    }
    return make_error(ErrorCode::malformed, kNoOffset,
                      "the program stopped outside the code it was running");
  }

  Insn decoded(uint64_t pc) {
    if (auto it = insns_.find(pc); it != insns_.end()) return it->second;
    uint8_t bytes[15];
    const size_t n = tracee_.read(pc, bytes, sizeof bytes);
    const Insn insn = decode_insn(std::span<const uint8_t>(bytes, n), pc);
    insns_.emplace(pc, insn);
    return insn;
  }

  bool in_known_mapping(uint64_t address) {
    if (address >= last_hit_.first && address < last_hit_.second) return true;
    for (const auto& [start, end] : ranges_) {
      if (address >= start && address < end) {
        last_hit_ = {start, end};
        return true;
      }
    }
    return false;
  }

  // Emits an MMAP2 event for every executable mapping not announced yet, as the kernel
  // does when a mapping is made (here: before the first sample that can refer to it).
  void refresh_mappings() {
    const std::vector<ExecMapping> mappings = read_exec_mappings(tracee_.pid());
    ranges_.clear();
    last_hit_ = {0, 0};
    bool replaced = false;
    for (const ExecMapping& m : mappings) {
      ranges_.emplace_back(m.start, m.end);
      if (!announced_.insert(m.key()).second) continue;
      replaced = replaced || !first_refresh_;
      MmapEvent event;
      event.pid = tracee_.pid();
      event.start = m.start;
      event.size = m.end - m.start;
      event.pgoff = m.offset;
      event.dev_major = m.dev_major;
      event.dev_minor = m.dev_minor;
      event.inode = m.inode;
      event.generation = inode_generation(m.path);
      event.prot = m.prot;
      event.path = m.path;
      for (ScriptSink* sink : {lbr_, hybrid_})
        if (sink) append_mmap2(sink->text(), event);
      ++stats_.mmap_events;
    }
    // New code may sit where other code was decoded before (dlclose, then dlopen).
    if (replaced) {
      insns_.clear();
      blocks_.clear();
    }
    first_refresh_ = false;
  }

  void collect_stack(uint64_t ip) {
    stack_.clear();
    stack_.push_back(ip);
    if (options_.stack == StackSource::shadow) {
      shadow_.drop_dead(tracee_.regs().rsp);
      const auto& frames = shadow_.frames();
      for (auto it = frames.rbegin(); it != frames.rend() && stack_.size() < options_.max_stack;
           ++it)
        stack_.push_back(it->return_address);
      return;
    }
    // perf's user call chain: from rbp, pairs {saved rbp, return address} until a read fails.
    uint64_t fp = tracee_.regs().rbp;
    while (stack_.size() < options_.max_stack) {
      uint64_t frame[2];
      if (tracee_.read(fp, frame, sizeof frame) != sizeof frame) break;
      stack_.push_back(frame[1]);
      fp = frame[0];
    }
  }

  Expected<void> write_sample(uint64_t ip) {
    ++stats_.samples;
    if (lbr_) {
      append_lbr_sample(lbr_->text(), ip, ring_, options_.flags);
      PROFKIT_TRY(lbr_->flush_if_large());
    }
    if (hybrid_) {
      collect_stack(ip);
      append_hybrid_sample(hybrid_->text(), stack_, ring_, options_.flags);
      PROFKIT_TRY(hybrid_->flush_if_large());
    }
    return {};
  }

  const TraceOptions& options_;
  Tracee& tracee_;
  ScriptSink* lbr_ = nullptr;
  ScriptSink* hybrid_ = nullptr;
  BranchRing ring_;
  ShadowStack shadow_;
  std::vector<uint64_t> stack_;
  std::unordered_map<uint64_t, Insn> insns_;
  std::unordered_map<uint64_t, Block> blocks_;
  std::vector<std::pair<uint64_t, uint64_t>> ranges_;
  std::pair<uint64_t, uint64_t> last_hit_{0, 0};
  std::set<std::tuple<uint64_t, uint64_t, uint64_t, uint64_t, std::string>> announced_;
  bool first_refresh_ = true;
  bool threads_may_exist_ = false;  // a clone ran: block stepping is off from then on
  TraceStats stats_;
};

}  // namespace

Expected<TraceStats> run_trace(const TraceOptions& options) {
  if (options.command.empty())
    return make_error(ErrorCode::invalid_argument, kNoOffset, "no program to run");
  if (options.lbr_output.empty() && options.hybrid_output.empty())
    return make_error(ErrorCode::invalid_argument, kNoOffset, "no output (--lbr or --hybrid)");
  if (options.period == 0 || options.depth == 0 || options.max_stack == 0)
    return make_error(ErrorCode::invalid_argument, kNoOffset,
                      "--period, --depth and --max-stack must be at least 1");
  auto lbr = ScriptSink::open(options.lbr_output);
  if (!lbr) return unexpected(std::move(lbr).error());
  auto hybrid = ScriptSink::open(options.hybrid_output);
  if (!hybrid) return unexpected(std::move(hybrid).error());

  const auto begin = std::chrono::steady_clock::now();
  Tracee tracee;
  PROFKIT_TRY(tracee.start(options));
  Tracer tracer(options, tracee);
  auto stats = tracer.run(lbr->get(), hybrid->get());
  if (!stats) return stats;
  stats->seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  if (*lbr) PROFKIT_TRY((*lbr)->commit());
  if (*hybrid) PROFKIT_TRY((*hybrid)->commit());
  return stats;
}

}  // namespace profkit::branch_trace
