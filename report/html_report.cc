// Heap profile -> one self-contained HTML page: the template (html_report_page.inc) with the
// profile embedded as JSON.
#include "report/html_report.h"

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>
#include <tuple>

namespace profkit::report {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kPage =
#include "report/html_report_page.inc"
    ;

std::string hex(uint64_t value) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(value));
  return buf;
}

std::string html_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}


}  // namespace

std::string html_report_data(const HeapProfile& profile, const FrameFilter& filter) {
  Json frames = Json::array();
  std::map<std::tuple<std::string, std::string, uint32_t, uint32_t, uint32_t, bool>, size_t>
      frame_index;
  Json contexts = Json::array();
  // Without access counts no verdict is given (heap_profile.h, has_access_counts).
  const bool measured = has_access_counts(profile);
  for (const HeapContext& context : profile.contexts) {
    Json chain = Json::array();
    size_t folded = 0;
    for (const FrameFilter::Item& item : filter.fold(context.frames)) {
      if (item.frame == nullptr) {
        folded += item.folded;
        continue;
      }
      const HeapFrame& f = *item.frame;
      auto key = std::make_tuple(f.function, f.file, f.line, f.column, f.line_offset, f.inlined);
      auto [it, inserted] = frame_index.try_emplace(key, frames.size());
      if (inserted)
        frames.push_back({{"function", f.function.empty() ? std::string("???") : f.function},
                          {"file", f.file},
                          {"line", f.line},
                          {"column", f.column},
                          {"line_offset", f.line_offset},
                          {"inlined", f.inlined}});
      chain.push_back(it->second);
    }
    const memprof::MemInfoBlock& mib = context.mib;
    contexts.push_back({{"id", hex(context.id)},
                        {"frames", std::move(chain)},
                        {"folded_frames", folded},
                        {"count", mib.AllocCount},
                        {"bytes", mib.TotalSize},
                        {"accesses", mib.TotalAccessCount},
                        {"lifetime_s", mib.TotalLifetime / 1000.0},
                        {"min_size", mib.MinSize},
                        {"max_size", mib.MaxSize},
                        {"avg_size", context.avg_size()},
                        {"avg_lifetime_s", context.avg_lifetime_s()},
                        {"density", context.lifetime_access_density()},
                        {"verdict", measured ? verdict_name(context.verdict) : ""},
                        {"why", measured ? std::string(context.why) : std::string(kNoAccessCounts)}});
    if (profile.live_peak.present) {
      Json& c = contexts.back();
      c["live_bytes"] = context.live_bytes;
      c["live_blocks"] = context.live_blocks;
      c["peak_bytes"] = context.peak_bytes;
      c["peak_blocks"] = context.peak_blocks;
    }
  }
  const HeapSummary& s = profile.summary;
  auto verdicts = [measured](uint64_t v) { return measured ? Json(v) : Json(nullptr); };
  Json data = {{"path", profile.path},
               {"kind", profile.kind},
               {"summary",
                {{"contexts", s.contexts},
                 {"allocations", s.allocations},
                 {"bytes", s.bytes},
                 {"accesses", s.accesses},
                 {"access_counts", measured},
                 {"cold_contexts", verdicts(s.cold_contexts)},
                 {"hot_contexts", verdicts(s.hot_contexts)},
                 {"not_cold_contexts", verdicts(s.not_cold_contexts)},
                 {"cold_bytes", verdicts(s.cold_bytes)},
                 {"hot_bytes", verdicts(s.hot_bytes)},
                 {"not_cold_bytes", verdicts(s.not_cold_bytes)}}},
               {"dropped_contexts", profile.dropped_contexts},
               {"dropped_allocations", profile.dropped_allocations},
               {"frames", std::move(frames)},
               {"contexts", std::move(contexts)}};
  // profkit runtime's leaks and peak (docs/formats/profkit-heap.md); null without them.
  const LivePeakSummary& lp = profile.live_peak;
  data["live_peak"] = nullptr;
  if (lp.present)
    data["live_peak"] = {{"at_exit", lp.at_exit},         {"live_bytes", lp.live_bytes},
                         {"live_blocks", lp.live_blocks}, {"peak_bytes", lp.peak_bytes},
                         {"peak_blocks", lp.peak_blocks}, {"peak_time_s", lp.peak_time_ms / 1000.0}};
  // Names come from binaries we do not control: replace invalid UTF-8 rather than throw.
  std::string json = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  // '<' only occurs inside JSON strings, where \u003c means the same; this keeps
  // "</script" and "<!--" out of the <script> element.
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

std::string html_report(const HeapProfile& profile, const FrameFilter& frames) {
  // Both placeholders are found in the template, so text substituted for one is never
  // searched for the other. The title comes first in the page.
  constexpr std::string_view kTitle = "@TITLE@", kData = "@DATA@";
  const size_t title_at = kPage.find(kTitle), data_at = kPage.find(kData);
  std::string page(kPage.substr(0, title_at));
  page += html_escape("profkit heap report: " + profile.path);
  page += kPage.substr(title_at + kTitle.size(), data_at - title_at - kTitle.size());
  page += html_report_data(profile, frames);
  page += kPage.substr(data_at + kData.size());
  return page;
}

}  // namespace profkit::report
