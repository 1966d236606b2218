// Heap profile -> DHAT JSON (the fields valgrind's dh_view.js checks and reads; see the
// header for how memprof's metrics map onto DHAT's).
#include "report/dhat_export.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <vector>

namespace profkit::report {
namespace {

using Json = nlohmann::ordered_json;

constexpr uint64_t kMicrosPerMilli = 1000;

uint64_t ms_to_us(uint64_t ms) {
  return ms > std::numeric_limits<uint64_t>::max() / kMicrosPerMilli
             ? std::numeric_limits<uint64_t>::max()
             : ms * kMicrosPerMilli;
}

// DHAT's frame text: "0xADDR: function (file:line)"; we add the column when known and mark
// frames inlined into their caller, which DHAT's own output does not distinguish. Without a
// file, the line offset in the function keeps different call sites apart.
std::string frame_text(const HeapFrame& frame) {
  std::string s;
  if (frame.pc != 0) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llX: ", static_cast<unsigned long long>(frame.pc));
    s += buf;
  }
  s += frame.function.empty() ? std::string("???") : frame.function;
  if (frame.file.empty()) {
    // Indexed and YAML inputs without a binary know only the line's offset in its function.
    s += " (in unknown file";
    if (frame.line == 0 && (frame.line_offset != 0 || frame.column != 0))
      s += ", line +" + std::to_string(frame.line_offset) + ":" + std::to_string(frame.column);
    s += ")";
  } else {
    s += " (" + frame.file;
    if (frame.line != 0) s += ":" + std::to_string(frame.line);
    if (frame.line != 0 && frame.column != 0) s += ":" + std::to_string(frame.column);
    s += ")";
  }
  if (frame.inlined) s += " [inlined]";
  return s;
}

struct Point {
  std::vector<uint64_t> frames;  // indices into ftbl, innermost first
  uint64_t bytes = 0, blocks = 0, lifetimes_us = 0, max_block_bytes = 0;
  uint64_t peak_bytes = 0, peak_blocks = 0, end_bytes = 0, end_blocks = 0;
};

}  // namespace

std::string dhat_json(const HeapProfile& profile) {
  std::vector<std::string> ftbl{"[root]"};  // dh_view.js: "Frame 0 is always [root]"
  std::unordered_map<std::string, uint64_t> frame_index;
  std::vector<Point> points;
  std::map<std::vector<uint64_t>, size_t> point_index;
  uint64_t end_us = 1;

  for (const HeapContext& context : profile.contexts) {
    std::vector<uint64_t> frames;
    frames.reserve(context.frames.size());
    for (const HeapFrame& frame : context.frames) {
      auto [it, inserted] = frame_index.try_emplace(frame_text(frame), ftbl.size());
      if (inserted) ftbl.push_back(it->first);
      frames.push_back(it->second);
    }
    auto [it, inserted] = point_index.try_emplace(frames, points.size());
    if (inserted) points.push_back(Point{std::move(frames)});
    Point& p = points[it->second];
    const memprof::MemInfoBlock& mib = context.mib;
    p.bytes += mib.TotalSize;
    p.blocks += mib.AllocCount;
    p.lifetimes_us += ms_to_us(mib.TotalLifetime);
    p.max_block_bytes = std::max<uint64_t>(p.max_block_bytes, mib.MaxSize);
    p.peak_bytes += context.peak_bytes;
    p.peak_blocks += context.peak_blocks;
    p.end_bytes += context.live_bytes;
    p.end_blocks += context.live_blocks;
    // Indexed profiles keep no timestamps (nor MaxLifetime in LLVM's default schema): then
    // the longest average lifetime is the best lower bound on the program's duration.
    const uint64_t avg_lifetime_ms = mib.AllocCount != 0 ? mib.TotalLifetime / mib.AllocCount : 0;
    end_us = std::max({end_us, ms_to_us(mib.DeallocTimestamp), ms_to_us(mib.MaxLifetime),
                       ms_to_us(avg_lifetime_ms)});
  }

  Json out;
  out["dhatFileVersion"] = 2;
  out["mode"] = "heap";
  out["verb"] = "Allocated";
  out["bklt"] = true;
  out["bkacc"] = false;
  out["tu"] = "µs";
  out["Mtu"] = "s";
  out["tuth"] = 1000;
  out["cmd"] = "profkit report " + profile.path + " (" + profile.kind + ")";
  out["pid"] = 0;
  const LivePeakSummary& lp = profile.live_peak;
  if (lp.present) end_us = std::max(end_us, ms_to_us(lp.dump_time_ms));
  out["te"] = end_us;
  out["tg"] = lp.present ? ms_to_us(lp.peak_time_ms) : 0;
  Json pps = Json::array();
  for (const Point& p : points) {
    Json pp;
    pp["tb"] = p.bytes;
    pp["tbk"] = p.blocks;
    pp["tl"] = p.lifetimes_us;
    // The PP's own maximum is at least its largest block and at least its share of the
    // global peak.
    const bool peak_larger = p.peak_bytes > p.max_block_bytes;
    pp["mb"] = peak_larger ? p.peak_bytes : p.max_block_bytes;
    pp["mbk"] = peak_larger ? p.peak_blocks : p.blocks != 0 ? 1 : 0;
    pp["gb"] = p.peak_bytes;
    pp["gbk"] = p.peak_blocks;
    pp["eb"] = p.end_bytes;
    pp["ebk"] = p.end_blocks;
    pp["fs"] = p.frames;
    pps.push_back(std::move(pp));
  }
  out["pps"] = std::move(pps);
  out["ftbl"] = ftbl;
  // Names come from binaries we do not control: replace invalid UTF-8 rather than throw.
  return out.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace profkit::report
