// A small Expected<T> with std::expected's member names. libstdc++ 12 has no <expected>
// in C++20 mode, so we carry our own until both compilers we support ship it.
#pragma once

#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

#include "format/bytes/error.h"

namespace profkit {

struct Unexpected {
  Error error;
};

inline Unexpected unexpected(Error error) { return Unexpected{std::move(error)}; }
inline Unexpected make_error(ErrorCode code, uint64_t offset, std::string message) {
  return Unexpected{Error{code, offset, std::move(message)}};
}

template <class T>
class [[nodiscard]] Expected {
 public:
  using value_type = T;

  Expected(const T& value) : storage_(std::in_place_index<0>, value) {}
  Expected(T&& value) : storage_(std::in_place_index<0>, std::move(value)) {}
  template <class U>
    requires(std::is_constructible_v<T, U &&> && !std::is_same_v<std::remove_cvref_t<U>, T> &&
             !std::is_same_v<std::remove_cvref_t<U>, Unexpected> &&
             !std::is_same_v<std::remove_cvref_t<U>, Expected>)
  Expected(U&& value) : storage_(std::in_place_index<0>, std::forward<U>(value)) {}
  Expected(Unexpected u) : storage_(std::in_place_index<1>, std::move(u.error)) {}

  bool has_value() const { return storage_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { assert(has_value()); return *std::get_if<0>(&storage_); }
  const T& value() const& { assert(has_value()); return *std::get_if<0>(&storage_); }
  T&& value() && { assert(has_value()); return std::move(*std::get_if<0>(&storage_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& { assert(!has_value()); return *std::get_if<1>(&storage_); }
  Error&& error() && { assert(!has_value()); return std::move(*std::get_if<1>(&storage_)); }

 private:
  std::variant<T, Error> storage_;
};

template <>
class [[nodiscard]] Expected<void> {
 public:
  Expected() = default;
  Expected(Unexpected u) : error_(std::move(u.error)), ok_(false) {}

  bool has_value() const { return ok_; }
  explicit operator bool() const { return ok_; }
  void value() const { assert(ok_); }
  const Error& error() const& { assert(!ok_); return error_; }
  Error&& error() && { assert(!ok_); return std::move(error_); }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace profkit

#define PROFKIT_CONCAT_INNER(a, b) a##b
#define PROFKIT_CONCAT(a, b) PROFKIT_CONCAT_INNER(a, b)

// PROFKIT_TRY(expr): evaluate an Expected<void> (or any Expected) and return its error.
#define PROFKIT_TRY(expr)                                                    \
  do {                                                                       \
    auto&& profkit_try_result_ = (expr);                                     \
    if (!profkit_try_result_) [[unlikely]]                                   \
      return ::profkit::Unexpected{std::move(profkit_try_result_).error()};  \
  } while (0)

// PROFKIT_TRY_ASSIGN(lhs, expr): `lhs = *expr`, or return expr's error. lhs may declare.
#define PROFKIT_TRY_ASSIGN(lhs, expr) \
  PROFKIT_TRY_ASSIGN_IMPL(PROFKIT_CONCAT(profkit_try_tmp_, __LINE__), lhs, expr)
#define PROFKIT_TRY_ASSIGN_IMPL(tmp, lhs, expr)               \
  auto tmp = (expr);                                          \
  if (!tmp) [[unlikely]]                                      \
    return ::profkit::Unexpected{std::move(tmp).error()};     \
  lhs = std::move(tmp).value()
