#include "spec/spec_tensor_refs.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "json/json_integer.h"

namespace focal {
namespace convert {
namespace spec {
namespace {

Status ref_error(const std::string& text, const std::string& what) {
  return Status::error(StatusCode::kInvalidArgument, "tensor reference '%s': %s", text.c_str(), what.c_str());
}

// A non-negative decimal integer, all of `text`; -1 when it is empty (an open end).
bool parse_bound(const std::string& text, int64_t* value) {
  if (text.empty()) {
    *value = -1;
    return true;
  }
  if (text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos) return false;
  *value = std::strtoll(text.c_str(), nullptr, 10);
  return true;
}

std::string trimmed(const std::string& s) {
  const size_t begin = s.find_first_not_of(' '), end = s.find_last_not_of(' ');
  return begin == std::string::npos ? "" : s.substr(begin, end - begin + 1);
}

}  // namespace

Result<TensorRef> parse_tensor_ref(const std::string& text) {
  const size_t open = text.rfind('[');
  if (text.empty() || text.back() != ']' || open == std::string::npos || open == 0) return TensorRef{text, {}};
  TensorRef ref{text.substr(0, open), {}};
  const std::string list = text.substr(open + 1, text.size() - open - 2);
  for (size_t at = 0; at <= list.size();) {
    const size_t comma = std::min(list.find(',', at), list.size());
    const std::string range = trimmed(list.substr(at, comma - at));
    const size_t colon = range.find(':');
    int64_t begin = 0, end = -1;
    if (colon == std::string::npos || !parse_bound(trimmed(range.substr(0, colon)), &begin) ||
        !parse_bound(trimmed(range.substr(colon + 1)), &end)) {
      return ref_error(text, "each range is begin:end (either may be left out), e.g. name[:, 20:60]");
    }
    ref.ranges.emplace_back(begin < 0 ? 0 : begin, end);
    at = comma + 1;
  }
  if (ref.ranges.size() > 2) return ref_error(text, "ranges select rows, or rows and columns");
  return ref;
}

Result<Matrix> tensor_block(const Matrix& m, const TensorRef& ref, const std::string& text) {
  if (ref.ranges.empty()) return m;
  if (ref.ranges.size() != m.shape.size()) return ref_error(text, "give one range per dim of the tensor");
  std::vector<std::pair<int64_t, int64_t>> r = ref.ranges;
  for (size_t d = 0; d < r.size(); ++d) {
    if (r[d].second < 0) r[d].second = m.shape[d];
    if (r[d].first >= r[d].second || r[d].second > m.shape[d]) {
      return ref_error(text, "range " + std::to_string(r[d].first) + ":" + std::to_string(r[d].second) +
                                 " is empty or beyond the tensor's " + std::to_string(m.shape[d]));
    }
  }
  const int64_t rows = r[0].second - r[0].first;
  if (m.shape.size() == 1) return row_slice(m, r[0].first, rows);
  const int64_t width = m.shape[1], columns = r[1].second - r[1].first;
  Matrix block{{rows, columns}, {}};
  for (int64_t row = r[0].first; row < r[0].second; ++row) {
    const auto start = m.values.begin() + row * width + r[1].first;
    block.values.insert(block.values.end(), start, start + columns);
  }
  return block;
}

Result<Matrix> filled_tensor(const nlohmann::json& fill) {
  Matrix m;
  int64_t count = 1;
  for (const nlohmann::json& d : fill.at("shape")) {
    m.shape.push_back(json_integer(d, "fill shape", 1, int64_t(1) << 24));
    count *= m.shape.back();
    if (count > (int64_t(1) << 24)) return ref_error("fill", "more than 2^24 elements");
  }
  if (m.shape.empty() || m.shape.size() > 2) return ref_error("fill", "\"shape\" needs 1 or 2 dims");
  const double value = fill.at("fill").get<double>();
  if (!(std::fabs(value) <= double(std::numeric_limits<float>::max()))) return ref_error("fill", "value beyond f32");
  m.values.assign(static_cast<size_t>(count), static_cast<float>(value));
  return m;
}

}  // namespace spec
}  // namespace convert
}  // namespace focal
