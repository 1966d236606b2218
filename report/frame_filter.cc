#include "report/frame_filter.h"

namespace profkit::report {

const char* const kDefaultHiddenFrames =
    "^(operator (new|delete)|__gnu_cxx::(new_allocator|__alloc_traits)<|std::(__new_allocator|"
    "allocator|allocator_traits|_Vector_base|__allocated_ptr|_Hashtable_alloc|__shared_count|"
    "_Sp_counted|__allocate_shared|__make_shared|make_shared|allocate_shared|make_unique|"
    "_Construct|__uninitialized|__do_uninit)|std::(__cxx11::)?basic_string<.*>::(_M_|_S_|"
    "reserve|append|assign|push_back|operator\\+=|basic_string)|std::vector<.*>::(_M_|_S_|"
    "push_back|emplace_back|reserve|resize|insert|vector)|std::(_Hashtable|_Rb_tree|"
    "_Deque_base|__detail::_Hashtable_alloc)|std::(deque|unordered_map|unordered_set|map|set|"
    "list|__cxx11::list)<.*>::(_M_|operator\\[\\]|emplace|insert|push_back|push_front)|"
    "(malloc|calloc|realloc|aligned_alloc|posix_memalign|memalign|valloc|strdup|strndup)$|"
    "__libc_|_IO_)";

Expected<FrameFilter> FrameFilter::hiding(const std::string& regex) {
  FrameFilter f;
  try {
    f.regex_ = std::make_shared<const std::regex>(regex, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    return Unexpected{Error{ErrorCode::invalid_argument, kNoOffset,
                            "--hide-frames: '" + regex + "' is not a valid regex (" + e.what() + ")"}};
  }
  return f;
}

FrameFilter FrameFilter::defaults() {
  static const FrameFilter f = *hiding(kDefaultHiddenFrames);
  return f;
}

bool FrameFilter::folds(const HeapFrame& frame) const {
  if (regex_ == nullptr || frame.function.empty()) return false;
  const std::string_view name = qualified_name(frame.function);
  return std::regex_search(name.begin(), name.end(), *regex_);
}

std::vector<FrameFilter::Item> FrameFilter::fold(const std::vector<HeapFrame>& frames) const {
  std::vector<Item> items;
  if (site_index(frames) == 0 && !frames.empty() && folds(frames[0])) {
    for (const HeapFrame& f : frames) items.push_back({&f, 0});  // all folded: show whole
    return items;
  }
  for (const HeapFrame& f : frames) {
    if (!folds(f)) {
      items.push_back({&f, 0});
    } else if (!items.empty() && items.back().frame == nullptr) {
      ++items.back().folded;
    } else {
      items.push_back({nullptr, 1});
    }
  }
  return items;
}

size_t FrameFilter::site_index(const std::vector<HeapFrame>& frames) const {
  for (size_t i = 0; i < frames.size(); ++i)
    if (!folds(frames[i])) return i;
  return 0;
}

std::string_view qualified_name(std::string_view name) {
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const std::string_view before = name.substr(0, i);
    const char c = name[i];
    if (c == '(' && depth == 0 && name.substr(i).starts_with("(anonymous namespace)")) {
      i += std::string_view("(anonymous namespace)").size() - 1;
      continue;
    }
    if (before.ends_with("operator")) {
      // operator(), operator<, operator<<, operator>, operator new ...: part of the name.
      if (name.substr(i).starts_with("()")) ++i;
      else if (c == '<' || c == '>') while (i + 1 < name.size() && name[i + 1] == c) ++i;
      continue;
    }
    if (c == '<') {
      ++depth;
    } else if (c == '>' && depth > 0) {
      --depth;
    } else if (c == '(') {
      if (depth == 0) return name.substr(start, i - start);  // the parameter list
      ++depth;
    } else if (c == ')' && depth > 0) {
      --depth;
    } else if (c == ' ' && depth == 0 && i > 0 && name[i - 1] != ',') {
      start = i + 1;  // what came before was a return type
    }
  }
  return name.substr(start);
}

std::string short_function_name(std::string_view name) {
  name = qualified_name(name);
  std::string out;
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (name.substr(0, i).ends_with("operator") && (c == '<' || c == '>')) {
      out.push_back(c);  // operator<, operator<<, operator>...
      while (i + 1 < name.size() && name[i + 1] == c) out.push_back(name[++i]);
      continue;
    }
    if (c == '<') {
      if (depth++ == 0) out += "<...>";
      continue;
    }
    if (c == '>' && depth > 0) {
      --depth;
      continue;
    }
    if (depth == 0) out.push_back(c);
  }
  return out;
}

}  // namespace profkit::report
