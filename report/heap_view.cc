// Rendering of the heap-report model as terminal text and JSON.
#include "report/heap_view.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace profkit::report {
namespace {

struct Palette {
  bool on;
  std::string wrap(std::string_view code, std::string_view text) const {
    if (!on) return std::string(text);
    return "\033[" + std::string(code) + "m" + std::string(text) + "\033[0m";
  }
  std::string bold(std::string_view t) const { return wrap("1", t); }
  std::string dim(std::string_view t) const { return wrap("2", t); }
  std::string verdict(Verdict v, std::string_view t) const {
    switch (v) {
      case Verdict::cold: return wrap("1;34", t);
      case Verdict::hot: return wrap("1;31", t);
      case Verdict::not_cold: break;
    }
    return wrap("33", t);
  }
};

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// A short number for metrics: 3 significant digits below 1000, grouped integers above.
std::string short_number(double v) {
  if (std::fabs(v) >= 1000) return grouped(static_cast<uint64_t>(std::llround(std::fabs(v))));
  char buf[32];
  if (v != 0 && std::fabs(v) < 0.001)
    std::snprintf(buf, sizeof buf, "%.2g", v);
  else
    std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string plural(uint64_t n, std::string_view noun) {
  return grouped(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

std::string percent(uint64_t part, uint64_t whole) {
  if (whole == 0) return "0%";
  return fixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) + "%";
}

// Cuts `text` to `width` columns, ending in "..." when cut (bytes; names are ASCII).
std::string fit(std::string text, size_t width) {
  if (text.size() <= width) return text;
  if (width <= 3) return text.substr(0, width);
  return text.substr(0, width - 3) + "...";
}

std::string location(const HeapFrame& f) {
  // A raw profile's frame with no line: named from a stripped binary's symbol table.
  if (f.file.empty() && f.line == 0 && f.pc != 0) return std::string();
  if (f.file.empty() && f.line == 0)
    return "+" + std::to_string(f.line_offset) + ":" + std::to_string(f.column);
  std::string s = f.file.empty() ? std::string("?") : f.file;
  s += ":" + std::to_string(f.line);
  if (f.column != 0) s += ":" + std::to_string(f.column);
  return s;
}

nlohmann::ordered_json frame_json(const HeapFrame& f, const FrameFilter& filter) {
  nlohmann::ordered_json j;
  j["function"] = f.function;
  j["short_name"] = short_function_name(f.function);
  j["folded"] = filter.folds(f);
  j["linkage_name"] = f.linkage_name;
  j["guid"] = hex_id(f.guid);
  j["file"] = f.file;
  j["line"] = f.line;
  j["column"] = f.column;
  j["line_offset"] = f.line_offset;
  j["inlined"] = f.inlined;
  if (f.pc != 0) j["pc"] = hex_id(f.pc);
  return j;
}

}  // namespace

std::string_view sort_key_name(SortKey key) {
  switch (key) {
    case SortKey::bytes: return "bytes";
    case SortKey::count: return "count";
    case SortKey::accesses: return "accesses";
    case SortKey::density: return "density";
    case SortKey::lifetime: return "lifetime";
    case SortKey::live: return "live";
    case SortKey::peak: return "peak";
  }
  return "bytes";
}

bool parse_view_kind(std::string_view text, HeapViewKind& kind) {
  if (text == "contexts") kind = HeapViewKind::contexts;
  else if (text == "leaks") kind = HeapViewKind::leaks;
  else if (text == "peak") kind = HeapViewKind::peak;
  else return false;
  return true;
}

std::string live_peak_missing(const HeapProfile& p, const ViewOptions& o) {
  const bool needs = o.view != HeapViewKind::contexts || o.sort == SortKey::live ||
                     o.sort == SortKey::peak;
  if (!needs || p.live_peak.present) return {};
  const std::string what = o.view == HeapViewKind::leaks  ? "--view=leaks"
                           : o.view == HeapViewKind::peak ? "--view=peak"
                                                          : "--sort=" + std::string(sort_key_name(o.sort));
  return what + ": " + p.path + " (" + p.kind +
         ") has no leak or peak data: only profkit's runtime (libprofkit_memprof, profkit run) "
         "records it, in its raw profiles; compiler-rt's raw profiles and YAML or indexed "
         "profiles do not have it";
}

namespace {

// The contexts a view lists, in its order: leaks and peak keep those with bytes there.
std::vector<const HeapContext*> view_contexts(const HeapProfile& p, const ViewOptions& o) {
  if (o.view == HeapViewKind::contexts) return sorted_contexts(p, o.sort);
  const bool leaks = o.view == HeapViewKind::leaks;
  std::vector<const HeapContext*> out;
  for (const HeapContext* c : sorted_contexts(p, leaks ? SortKey::live : SortKey::peak))
    if ((leaks ? c->live_bytes : c->peak_bytes) != 0) out.push_back(c);
  return out;
}

std::string seconds(uint64_t ms) { return fixed(static_cast<double>(ms) / 1000, 3) + " s"; }

// The leaks or peak view as text.
std::string render_live_text(const HeapProfile& p, const ViewOptions& o) {
  const Palette c{o.color};
  const int width = std::max(o.width, 40);
  const size_t w = static_cast<size_t>(width);
  const LivePeakSummary& s = p.live_peak;
  const bool leaks = o.view == HeapViewKind::leaks;
  std::string out;
  auto line = [&](const std::string& text) { out += text + "\n"; };
  line(c.bold(fit(p.path + " (" + p.kind + ")", w)));
  const auto ranked = view_contexts(p, o);
  uint64_t shown_bytes = 0, shown_blocks = 0;
  for (const HeapContext* ctx : ranked) {
    shown_bytes += leaks ? ctx->live_bytes : ctx->peak_bytes;
    shown_blocks += leaks ? ctx->live_blocks : ctx->peak_blocks;
  }
  const uint64_t all_bytes = leaks ? s.live_bytes : s.peak_bytes;
  const uint64_t all_blocks = leaks ? s.live_blocks : s.peak_blocks;
  if (leaks) {
    line(fit("  Leaks: " + grouped(all_bytes) + " bytes in " + plural(all_blocks, "block") +
                 (s.at_exit ? " live at exit" : " live when the profile was written (" +
                                                    seconds(s.dump_time_ms) + ", not at exit)"),
             w));
  } else {
    line(fit("  Peak heap: " + grouped(all_bytes) + " bytes in " + plural(all_blocks, "block") +
                 " at " + seconds(s.peak_time_ms),
             w));
    line("  " + c.dim(fit("the runtime's snapshot nearest the top: at most 1/64 (or 16 KiB) below it",
                          w - 2)));
  }
  if (all_bytes != shown_bytes)
    line("  " + c.dim(fit("+ " + grouped(all_bytes - shown_bytes) + " bytes in " +
                              plural(all_blocks - shown_blocks, "block") +
                              " from call stacks with no frame with debug info",
                          w - 2)));
  const size_t shown = o.top == 0 ? ranked.size() : std::min(o.top, ranked.size());
  line("");
  line(c.bold(fit("Top " + std::to_string(shown) + " of " + grouped(ranked.size()) +
                      (leaks ? " leaking contexts by bytes live at exit"
                             : " contexts by bytes at the peak"),
                  w)));
  for (size_t i = 0; i < shown; ++i) {
    const HeapContext& ctx = *ranked[i];
    const uint64_t bytes = leaks ? ctx.live_bytes : ctx.peak_bytes;
    const uint64_t blocks = leaks ? ctx.live_blocks : ctx.peak_blocks;
    line("");
    std::string head = "#" + std::to_string(i + 1) + " " + grouped(bytes) + " bytes in " +
                       plural(blocks, "block") + " (" + percent(bytes, all_bytes) + ")";
    const std::string id = hex_id(ctx.id);
    if (head.size() + 1 + id.size() <= w)
      line(c.bold(head) + std::string(w - head.size() - id.size(), ' ') + c.dim(id));
    else
      line(c.bold(fit(head, w)));
    line(fit("   of " + plural(ctx.mib.AllocCount, "allocation") + ", " +
                 grouped(ctx.mib.TotalSize) + " bytes in all",
             w));
    out += chain_lines(ctx.frames, o.frames, width, "     ");
  }
  return out;
}

}  // namespace

std::string human_bytes(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  const bool negative = bytes < 0;
  double v = std::fabs(bytes);
  int unit = 0;
  while (v >= 1024 && unit < 4) {
    v /= 1024;
    ++unit;
  }
  std::string s = unit == 0 ? fixed(v, 0) : fixed(v, v < 10 ? 2 : 1);
  return (negative ? "-" : "") + s + " " + kUnits[unit];
}

std::string grouped(uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string hex_id(uint64_t id) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, id);
  return buf;
}

std::string frame_name(const HeapFrame& frame) {
  return (frame.inlined ? "(inlined) " : "") + short_function_name(frame.function);
}

std::string frame_line(const HeapFrame& frame, int width, int name_column) {
  const size_t w = static_cast<size_t>(std::max(width, 20));
  size_t name_room = name_column > 0 ? static_cast<size_t>(name_column) : w / 2;
  name_room = std::min(name_room, w - 10);
  std::string name = fit(frame_name(frame), name_room);
  name.append(name_room - name.size(), ' ');
  const size_t loc_room = w - name_room - 2;
  std::string loc = location(frame);
  if (loc.size() > loc_room) {
    // Long paths lose their leading directories first.
    const size_t slash = frame.file.rfind('/');
    if (slash != std::string::npos) loc = ".../" + loc.substr(slash + 1);
    loc = fit(loc, loc_room);
  }
  std::string out = name + "  " + loc;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string chain_lines(const std::vector<HeapFrame>& frames, const FrameFilter& filter,
                        int width, const std::string& indent) {
  const std::vector<FrameFilter::Item> items = filter.fold(frames);
  // Names in one column: as wide as the longest shown, leaving room for the locations.
  size_t longest = 0;
  for (const FrameFilter::Item& item : items)
    if (item.frame != nullptr) longest = std::max(longest, frame_name(*item.frame).size());
  const int room = width - static_cast<int>(indent.size());
  const int name_column = static_cast<int>(std::min(longest, static_cast<size_t>(room * 3 / 5)));
  std::string out;
  for (const FrameFilter::Item& item : items) {
    if (item.frame != nullptr) {
      out += indent + frame_line(*item.frame, room, name_column) + "\n";
    } else {
      out += indent + fit("... " + plural(item.folded, "allocator/library frame") +
                              " folded (--show-all-frames)",
                          static_cast<size_t>(std::max(room, 20))) + "\n";
    }
  }
  return out;
}

std::string render_report_text(const HeapProfile& p, const ViewOptions& o) {
  if (o.view != HeapViewKind::contexts) return render_live_text(p, o);
  const Palette c{o.color};
  const int width = std::max(o.width, 40);
  const HeapSummary& s = p.summary;
  std::string out;
  auto line = [&](const std::string& text) { out += text + "\n"; };
  // A plain line cut to the width, then `segment` (if still whole) shown as `colored`.
  auto colored_line = [&](const std::string& plain, const std::string& segment,
                          const std::string& colored) {
    std::string fitted = fit(plain, static_cast<size_t>(width));
    if (const size_t at = fitted.find(segment); !segment.empty() && at != std::string::npos)
      fitted.replace(at, segment.size(), colored);
    line(fitted);
  };
  line(c.bold(fit(p.path + " (" + p.kind + ")", static_cast<size_t>(width))));
  line(fit("  " + plural(s.contexts, "context") + ", " + plural(s.allocations, "allocation") +
               ", " + human_bytes(static_cast<double>(s.bytes)) + ", " + grouped(s.accesses) +
               " accesses",
           static_cast<size_t>(width)));
  // Counted in allocations: a dropped raw call stack is not one of the contexts above.
  if (p.dropped_contexts != 0)
    line("  " + c.dim(fit("+ " + plural(p.dropped_allocations, "allocation") +
                              " left out: no frame with debug info in " +
                              plural(p.dropped_contexts, "call stack"),
                          static_cast<size_t>(width) - 2)));
  if (!p.absent_fields.empty()) {
    std::string names;
    for (const std::string& f : p.absent_fields) names += (names.empty() ? "" : ", ") + f;
    line("  " + c.dim(fit("not stored in this profile (shown as 0): " + names,
                          static_cast<size_t>(width) - 2)));
  }
  // Without access counts (an allocation-only profile) a verdict would only restate the
  // lifetime test: say what is missing instead of printing hints that look measured.
  const bool measured = has_access_counts(p);
  if (!measured) {
    line(fit("No access counts in this profile (allocations only, as `profkit run` records),",
             static_cast<size_t>(width)));
    line(fit("so no hot/cold hints: build with clang -fmemory-profile to measure them.",
             static_cast<size_t>(width)));
  } else {
    const auto& t = o.thresholds;
    line(fit("LLVM 22 hints (cold: density < " + short_number(t.lifetime_access_density_cold_threshold) +
                 " and lifetime >= " + std::to_string(t.ave_lifetime_cold_threshold_s) + " s" +
                 (t.use_hot_hints ? "; hot: density > " +
                                        std::to_string(t.min_ave_lifetime_access_density_hot_threshold)
                                  : std::string()) +
                 "):",
             static_cast<size_t>(width)));
    auto verdict_row = [&](Verdict v, uint64_t contexts, uint64_t bytes) {
      std::string name(verdict_name(v));
      name.resize(8, ' ');
      std::string count = grouped(contexts);
      count.insert(0, count.size() < 8 ? 8 - count.size() : 0, ' ');
      colored_line("  " + name + count + (contexts == 1 ? " context   " : " contexts  ") +
                       human_bytes(static_cast<double>(bytes)) + " (" + percent(bytes, s.bytes) +
                       " of bytes)",
                   name, c.verdict(v, name));
    };
    verdict_row(Verdict::cold, s.cold_contexts, s.cold_bytes);
    verdict_row(Verdict::not_cold, s.not_cold_contexts, s.not_cold_bytes);
    if (t.use_hot_hints) verdict_row(Verdict::hot, s.hot_contexts, s.hot_bytes);
  }

  const auto ranked = sorted_contexts(p, o.sort);
  const size_t shown = o.top == 0 ? ranked.size() : std::min(o.top, ranked.size());
  line("");
  line(c.bold("Top " + std::to_string(shown) + " of " + grouped(ranked.size()) +
              " contexts by " + std::string(sort_key_name(o.sort))));
  for (size_t i = 0; i < shown; ++i) {
    const HeapContext& ctx = *ranked[i];
    const auto& m = ctx.mib;
    line("");
    std::string head = "#" + std::to_string(i + 1) + " " +
                       human_bytes(static_cast<double>(m.TotalSize)) + " in " +
                       plural(m.AllocCount, "allocation");
    const std::string verdict(measured ? verdict_name(ctx.verdict) : "");
    const std::string id = hex_id(ctx.id);
    const size_t used = head.size() + verdict.size() + id.size() + (verdict.empty() ? 1 : 2);
    if (used <= static_cast<size_t>(width)) {
      const std::string pad(static_cast<size_t>(width) - used + 1, ' ');
      line(c.bold(head) + pad + c.dim(id) +
           (verdict.empty() ? std::string() : " " + c.verdict(ctx.verdict, verdict)));
    } else {  // narrow: the id goes (it is in --json), the verdict stays
      colored_line(head + " " + verdict, verdict, c.verdict(ctx.verdict, verdict));
    }
    std::vector<std::string> pieces = {
        "size avg " + human_bytes(ctx.avg_size()) + " (" + human_bytes(m.MinSize) + ".." +
            human_bytes(m.MaxSize) + ")",
        "accesses " + grouped(m.TotalAccessCount),
        "lifetime avg " + lifetime_text(ctx.avg_lifetime_ms()),
        "density " + short_number(ctx.lifetime_access_density())};
    if (!measured) pieces = {pieces[0], pieces[2]};
    if (o.sort == SortKey::live || o.sort == SortKey::peak) {
      pieces.push_back("live " + human_bytes(static_cast<double>(ctx.live_bytes)) + " in " +
                       plural(ctx.live_blocks, "block"));
      pieces.push_back("at peak " + human_bytes(static_cast<double>(ctx.peak_bytes)));
    }
    std::string metrics = "  ";
    for (const std::string& piece : pieces) {
      if (metrics.size() > 2 && metrics.size() + 2 + piece.size() > static_cast<size_t>(width)) {
        while (metrics.back() == ' ') metrics.pop_back();
        line(metrics);
        metrics = "  ";
      }
      metrics += " " + piece + " ";
    }
    while (metrics.back() == ' ') metrics.pop_back();
    line(fit(metrics, static_cast<size_t>(width)));
    if (measured) line(fit("   why: " + ctx.why, static_cast<size_t>(width)));
    out += chain_lines(ctx.frames, o.frames, width, "     ");
  }
  return out;
}

void render_report_json(const HeapProfile& p, const ViewOptions& o,
                        const std::function<void(std::string_view)>& emit) {
  nlohmann::ordered_json j;
  j["profile"] = p.path;
  j["kind"] = p.kind;
  const auto& t = o.thresholds;
  // Thresholds are floats in clang; print the decimal the user wrote, not its float expansion.
  const auto decimal = [](float v) { return std::stod(short_number(v)); };
  j["thresholds"] = {{"lifetime_access_density_cold", decimal(t.lifetime_access_density_cold_threshold)},
                     {"ave_lifetime_cold_s", t.ave_lifetime_cold_threshold_s},
                     {"min_ave_lifetime_access_density_hot",
                      t.min_ave_lifetime_access_density_hot_threshold},
                     {"use_hot_hints", t.use_hot_hints}};
  const HeapSummary& s = p.summary;
  const bool measured = has_access_counts(p);
  // Without access counts there are no verdicts to count: null, not zeros that look measured.
  auto verdicts = [measured](uint64_t v) { return measured ? nlohmann::ordered_json(v) : nullptr; };
  j["summary"] = {{"contexts", s.contexts},
                  {"allocations", s.allocations},
                  {"bytes", s.bytes},
                  {"accesses", s.accesses},
                  {"access_counts", measured},
                  {"cold_contexts", verdicts(s.cold_contexts)},
                  {"cold_bytes", verdicts(s.cold_bytes)},
                  {"not_cold_contexts", verdicts(s.not_cold_contexts)},
                  {"not_cold_bytes", verdicts(s.not_cold_bytes)},
                  {"hot_contexts", verdicts(s.hot_contexts)},
                  {"hot_bytes", verdicts(s.hot_bytes)},
                  {"dropped_contexts", p.dropped_contexts},
                  {"dropped_allocations", p.dropped_allocations}};
  j["absent_fields"] = p.absent_fields;
  j["view"] = o.view == HeapViewKind::leaks ? "leaks" : o.view == HeapViewKind::peak ? "peak" : "contexts";
  j["sort"] = o.view == HeapViewKind::leaks  ? "live"
              : o.view == HeapViewKind::peak ? "peak"
                                             : sort_key_name(o.sort);
  const LivePeakSummary& lp = p.live_peak;
  if (lp.present)
    j["live_peak"] = {{"at_exit", lp.at_exit},         {"dump_time_ms", lp.dump_time_ms},
                      {"live_bytes", lp.live_bytes},   {"live_blocks", lp.live_blocks},
                      {"peak_time_ms", lp.peak_time_ms}, {"peak_bytes", lp.peak_bytes},
                      {"peak_blocks", lp.peak_blocks}};
  // The contexts, the last member, are written one by one after the rest: as dump(2) would
  // write them, each line indented by the array's four spaces.
  j["contexts"] = nlohmann::ordered_json::array();
  const std::string head = j.dump(2);
  const auto ranked = view_contexts(p, o);
  const size_t shown = o.top == 0 ? ranked.size() : std::min(o.top, ranked.size());
  if (shown == 0) {
    emit(head);
    emit("\n");
    return;
  }
  emit(std::string_view(head).substr(0, head.rfind("[]") + 1));
  std::string piece;
  for (size_t i = 0; i < shown; ++i) {
    const HeapContext& ctx = *ranked[i];
    nlohmann::ordered_json c;
    c["rank"] = i + 1;
    c["id"] = hex_id(ctx.id);
    if (measured) {
      c["verdict"] = verdict_name(ctx.verdict);
      c["why"] = ctx.why;
    } else {
      c["verdict"] = nullptr;
      c["why"] = kNoAccessCounts;
    }
    c["avg_size"] = ctx.avg_size();
    c["avg_lifetime_s"] = ctx.avg_lifetime_s();
    c["avg_accesses"] = ctx.avg_accesses();
    c["lifetime_access_density"] = ctx.lifetime_access_density();
    if (lp.present) {
      c["live_blocks"] = ctx.live_blocks;
      c["live_bytes"] = ctx.live_bytes;
      c["peak_blocks"] = ctx.peak_blocks;
      c["peak_bytes"] = ctx.peak_bytes;
    }
    nlohmann::ordered_json mib;
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First, Merge) mib[#Name] = ctx.mib.Name;
#include "format/memprof/mib_fields.def"
    c["mib"] = mib;
    if (!ctx.histogram.empty()) c["histogram"] = ctx.histogram;
    nlohmann::ordered_json frames = nlohmann::ordered_json::array();
    for (const HeapFrame& f : ctx.frames) frames.push_back(frame_json(f, o.frames));
    c["frames"] = frames;
    piece.assign(i == 0 ? "\n    " : ",\n    ");
    for (const char ch : c.dump(2)) {  // JSON strings hold no raw newline
      piece.push_back(ch);
      if (ch == '\n') piece.append("    ");
    }
    emit(piece);
  }
  emit("\n  ]\n}\n");
}

std::string render_report_json(const HeapProfile& p, const ViewOptions& o) {
  std::string out;
  render_report_json(p, o, [&out](std::string_view s) { out.append(s); });
  return out;
}

}  // namespace profkit::report
