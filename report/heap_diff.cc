// Context-by-context comparison of two heap profiles and its terminal/JSON views.
#include "report/heap_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace profkit::report {
namespace {

int64_t delta(uint64_t now, uint64_t base) {
  return static_cast<int64_t>(now) - static_cast<int64_t>(base);
}

std::string signed_bytes(int64_t v) {
  return (v > 0 ? "+" : "") + human_bytes(static_cast<double>(v));
}
std::string signed_count(int64_t v) {
  const std::string g = grouped(static_cast<uint64_t>(v < 0 ? -v : v));
  return (v > 0 ? "+" : v < 0 ? "-" : "") + g;
}
nlohmann::ordered_json side_json(const HeapContext* c, bool verdicts) {
  if (c == nullptr) return nullptr;
  return {{"AllocCount", c->mib.AllocCount},
          {"TotalSize", c->mib.TotalSize},
          {"TotalAccessCount", c->mib.TotalAccessCount},
          {"avg_lifetime_s", c->avg_lifetime_s()},
          {"lifetime_access_density", c->lifetime_access_density()},
          {"verdict", verdicts ? nlohmann::ordered_json(verdict_name(c->verdict)) : nullptr},
          {"why", verdicts ? c->why : std::string(kNoAccessCounts)}};
}

// Verdicts are compared only when both profiles count accesses (has_access_counts): an
// allocation-only profile's verdict would only restate the lifetime test.
bool both_measured(const HeapProfile& base, const HeapProfile& now) {
  return has_access_counts(base) && has_access_counts(now);
}

}  // namespace

std::string_view change_kind_name(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::added: return "new";
    case ChangeKind::vanished: return "vanished";
    case ChangeKind::changed: break;
  }
  return "changed";
}

HeapDiff diff_heap_profiles(const HeapProfile& base, const HeapProfile& now) {
  HeapDiff diff;
  std::unordered_map<uint64_t, const HeapContext*> base_by_id;
  for (const HeapContext& c : base.contexts) base_by_id.emplace(c.id, &c);
  std::unordered_map<uint64_t, bool> matched;
  const bool verdicts = both_measured(base, now);
  for (const HeapContext& c : now.contexts) {
    ContextChange ch;
    ch.id = c.id;
    ch.now = &c;
    auto it = base_by_id.find(c.id);
    if (it == base_by_id.end()) {
      ch.kind = ChangeKind::added;
      ch.bytes_delta = delta(c.mib.TotalSize, 0);
      ch.count_delta = delta(c.mib.AllocCount, 0);
      ch.accesses_delta = delta(c.mib.TotalAccessCount, 0);
      ch.lifetime_delta_ms = c.avg_lifetime_ms();
      ++diff.added;
      diff.changes.push_back(ch);
      continue;
    }
    matched.emplace(c.id, true);
    const HeapContext& b = *it->second;
    ch.base = &b;
    ch.bytes_delta = delta(c.mib.TotalSize, b.mib.TotalSize);
    ch.count_delta = delta(c.mib.AllocCount, b.mib.AllocCount);
    ch.accesses_delta = delta(c.mib.TotalAccessCount, b.mib.TotalAccessCount);
    ch.lifetime_delta_ms = c.avg_lifetime_ms() - b.avg_lifetime_ms();
    ch.verdict_flipped = verdicts && c.verdict != b.verdict;
    const double lifetime_base = std::max(b.avg_lifetime_ms(), c.avg_lifetime_ms());
    const bool lifetime_moved = std::fabs(ch.lifetime_delta_ms) > 1 &&
                                std::fabs(ch.lifetime_delta_ms) > 0.1 * lifetime_base;
    if (ch.bytes_delta == 0 && ch.count_delta == 0 && ch.accesses_delta == 0 &&
        !ch.verdict_flipped && !lifetime_moved)
      continue;
    ++diff.changed;
    if (ch.verdict_flipped) ++diff.flipped;
    diff.changes.push_back(ch);
  }
  for (const HeapContext& b : base.contexts) {
    if (matched.count(b.id) != 0) continue;
    ContextChange ch;
    ch.kind = ChangeKind::vanished;
    ch.id = b.id;
    ch.base = &b;
    ch.bytes_delta = -static_cast<int64_t>(b.mib.TotalSize);
    ch.count_delta = -static_cast<int64_t>(b.mib.AllocCount);
    ch.accesses_delta = -static_cast<int64_t>(b.mib.TotalAccessCount);
    ch.lifetime_delta_ms = -b.avg_lifetime_ms();
    ++diff.vanished;
    diff.changes.push_back(ch);
  }
  std::sort(diff.changes.begin(), diff.changes.end(),
            [](const ContextChange& x, const ContextChange& y) {
              auto key = [](const ContextChange& c) {
                return std::make_tuple(std::llabs(c.bytes_delta), std::llabs(c.count_delta),
                                       std::llabs(c.accesses_delta), c.verdict_flipped,
                                       std::fabs(c.lifetime_delta_ms));
              };
              const auto kx = key(x), ky = key(y);
              if (kx != ky) return kx > ky;
              return x.id < y.id;
            });
  return diff;
}

std::string render_diff_text(const HeapProfile& base, const HeapProfile& now,
                             const HeapDiff& diff, const ViewOptions& o) {
  const int width = std::max(o.width, 40);
  auto color = [&](std::string_view code, const std::string& text) {
    return o.color ? "\033[" + std::string(code) + "m" + text + "\033[0m" : text;
  };
  std::string out;
  // Lines are cut to the width; coloured ones are short (a rank, a kind and an id).
  auto line = [&](const std::string& text) {
    if (text.find('\033') == std::string::npos && text.size() > static_cast<size_t>(width))
      out += text.substr(0, static_cast<size_t>(width) - 3) + "...\n";
    else
      out += text + "\n";
  };
  const HeapSummary& b = base.summary;
  const HeapSummary& n = now.summary;
  line(color("1", "base " + base.path + " (" + base.kind + ")"));
  line(color("1", "new  " + now.path + " (" + now.kind + ")"));
  line("  contexts " + grouped(b.contexts) + " -> " + grouped(n.contexts) + ", allocations " +
       grouped(b.allocations) + " -> " + grouped(n.allocations) + " (" +
       signed_count(delta(n.allocations, b.allocations)) + ")");
  line("  bytes " + human_bytes(static_cast<double>(b.bytes)) + " -> " +
       human_bytes(static_cast<double>(n.bytes)) + " (" + signed_bytes(delta(n.bytes, b.bytes)) +
       "), accesses " + grouped(b.accesses) + " -> " + grouped(n.accesses));
  const bool verdicts = both_measured(base, now);
  if (verdicts)
    line("  cold " + grouped(b.cold_contexts) + " -> " + grouped(n.cold_contexts) +
         " contexts (" + human_bytes(static_cast<double>(b.cold_bytes)) + " -> " +
         human_bytes(static_cast<double>(n.cold_bytes)) + ")");
  else
    line("  No access counts in " +
         std::string(!has_access_counts(base) && !has_access_counts(now) ? "either profile"
                     : !has_access_counts(base)                          ? "the base profile"
                                                                         : "the new profile") +
         " (allocations only): no hot/cold hints compared.");
  if (diff.changes.empty()) {
    line("");
    line("No allocation context changed.");
    return out;
  }
  line("  " + grouped(diff.changed) + " changed" +
       (verdicts ? " (" + grouped(diff.flipped) + " verdict flips)" : std::string()) + ", " +
       grouped(diff.added) + " new, " + grouped(diff.vanished) + " vanished");
  const size_t shown = o.top == 0 ? diff.changes.size() : std::min(o.top, diff.changes.size());
  for (size_t i = 0; i < shown; ++i) {
    const ContextChange& ch = diff.changes[i];
    line("");
    std::string kind(change_kind_name(ch.kind));
    const char* code = ch.kind == ChangeKind::added ? "32" : ch.kind == ChangeKind::vanished ? "31" : "33";
    line("#" + std::to_string(i + 1) + " " + color(code, kind) + " " + hex_id(ch.id));
    std::string m = "   bytes " + signed_bytes(ch.bytes_delta) + ", allocations " +
                    signed_count(ch.count_delta) + ", accesses " +
                    signed_count(ch.accesses_delta);
    line(m);
    if (ch.base != nullptr && ch.now != nullptr) {
      std::string v = "   lifetime avg " + lifetime_text(ch.base->avg_lifetime_ms()) + " -> " +
                      lifetime_text(ch.now->avg_lifetime_ms());
      if (verdicts) v += ", verdict " + std::string(verdict_name(ch.base->verdict));
      if (ch.verdict_flipped)
        v += " -> " + color("1", std::string(verdict_name(ch.now->verdict)));
      line(v);
      if (ch.verdict_flipped) line("   why now: " + ch.now->why);
    } else if (verdicts) {
      line("   verdict " + std::string(verdict_name(ch.any().verdict)) + ": " + ch.any().why);
    } else {
      line("   lifetime avg " + lifetime_text(ch.any().avg_lifetime_ms()));
    }
    out += chain_lines(ch.any().frames, o.frames, width, "     ");
  }
  return out;
}

std::string render_diff_json(const HeapProfile& base, const HeapProfile& now,
                             const HeapDiff& diff, const ViewOptions& o) {
  nlohmann::ordered_json j;
  j["base"] = base.path;
  j["new"] = now.path;
  const bool verdicts = both_measured(base, now);
  auto summary = [](const HeapProfile& p) {
    const HeapSummary& s = p.summary;
    const bool measured = has_access_counts(p);
    auto v = [measured](uint64_t n) { return measured ? nlohmann::ordered_json(n) : nullptr; };
    return nlohmann::ordered_json{{"contexts", s.contexts},         {"allocations", s.allocations},
                                  {"bytes", s.bytes},               {"accesses", s.accesses},
                                  {"access_counts", measured},
                                  {"cold_contexts", v(s.cold_contexts)}, {"cold_bytes", v(s.cold_bytes)}};
  };
  j["base_summary"] = summary(base);
  j["new_summary"] = summary(now);
  j["counts"] = {{"changed", diff.changed},
                 {"new", diff.added},
                 {"vanished", diff.vanished},
                 {"verdict_flips", diff.flipped}};
  nlohmann::ordered_json changes = nlohmann::ordered_json::array();
  const size_t shown = o.top == 0 ? diff.changes.size() : std::min(o.top, diff.changes.size());
  for (size_t i = 0; i < shown; ++i) {
    const ContextChange& ch = diff.changes[i];
    nlohmann::ordered_json c;
    c["rank"] = i + 1;
    c["kind"] = change_kind_name(ch.kind);
    c["id"] = hex_id(ch.id);
    c["bytes_delta"] = ch.bytes_delta;
    c["count_delta"] = ch.count_delta;
    c["accesses_delta"] = ch.accesses_delta;
    c["lifetime_delta_s"] = ch.lifetime_delta_ms / 1000;
    c["verdict_flipped"] = ch.verdict_flipped;
    c["base"] = side_json(ch.base, verdicts);
    c["new"] = side_json(ch.now, verdicts);
    nlohmann::ordered_json frames = nlohmann::ordered_json::array();
    for (const HeapFrame& f : ch.any().frames)
      frames.push_back({{"function", f.function},
                        {"file", f.file},
                        {"line", f.line},
                        {"column", f.column},
                        {"inlined", f.inlined}});
    c["frames"] = frames;
    changes.push_back(c);
  }
  j["changes"] = changes;
  return j.dump(2) + "\n";
}

}  // namespace profkit::report
