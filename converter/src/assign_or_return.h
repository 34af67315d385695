// FOCAL_ASSIGN_OR_RETURN(lhs, expr): evaluates `expr`, a Result<T>; on error returns its
// Status from the enclosing function (which returns a Status or any Result), else
// assigns (moves) the value to `lhs`, which may be a declaration (`const int64_t n`).
// It expands to several statements: brace it under an `if`.
// The converter's counterpart of FOCAL_RETURN_IF_ERROR for calls that yield values.
#pragma once

#include <utility>

#include "focal/status.h"

// `lhs` may be a declaration and `result` is a name: neither can be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define FOCAL_RESULT_CONCAT_INNER(a, b) a##b
#define FOCAL_RESULT_CONCAT(a, b) FOCAL_RESULT_CONCAT_INNER(a, b)
#define FOCAL_ASSIGN_OR_RETURN(lhs, expr) \
  FOCAL_ASSIGN_OR_RETURN_IMPL(FOCAL_RESULT_CONCAT(focal_result_, __LINE__), lhs, expr)
#define FOCAL_ASSIGN_OR_RETURN_IMPL(result, lhs, expr) \
  auto result = (expr);                                \
  if (!result.ok()) return result.status();            \
  lhs = std::move(result.value())
// NOLINTEND(bugprone-macro-parentheses)
