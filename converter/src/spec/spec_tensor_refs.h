// How a spec names the constants a layer takes: a checkpoint tensor by name, a block of
// one ("name[r0:r1, c0:c1]": rows then columns of a 2-D tensor, "name[a:b]" of a 1-D
// one, ":" for all, ends exclusive; a concatenated Linear([s; h]) split into its parts),
// or a tensor the spec fills itself ({"fill": 0, "shape": [1, 20]}).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "focal/status.h"
#include "presets/weights.h"

namespace focal {
namespace convert {
namespace spec {

struct TensorRef {
  std::string name;
  std::vector<std::pair<int64_t, int64_t>> ranges;  // per dim [begin, end); end -1: to the end
};

// "name" (no ranges), or "name[...]" when `name` ends with a bracketed range list.
Result<TensorRef> parse_tensor_ref(const std::string& text);
// The block of `m` that `ref` selects, or an error naming the reference.
Result<Matrix> tensor_block(const Matrix& m, const TensorRef& ref, const std::string& text);
// {"fill": value, "shape": [...]}: every element `value` (at most 2^24 of them).
Result<Matrix> filled_tensor(const nlohmann::json& fill);

}  // namespace spec
}  // namespace convert
}  // namespace focal
