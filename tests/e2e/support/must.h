// A library call the test needs to succeed: the value, or the test stops
// with the call's one-line error.
#pragma once

#include <doctest/doctest.h>

#include <utility>

#include "base/result.h"

namespace e2e {

template <class T>
T must(base::Result<T> r, const char* what) {
  REQUIRE_MESSAGE(r.ok(), what << ": " << (r.ok() ? "" : r.error().one_line()));
  return std::move(r).value();
}

inline void must(const base::Status& s, const char* what) {
  REQUIRE_MESSAGE(s.ok(), what << ": " << (s.ok() ? "" : s.error().one_line()));
}

}  // namespace e2e
