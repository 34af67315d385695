#include "presets/weights.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace focal {
namespace convert {
std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return text + "]";
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
    }
  }
  return row[b.size()];
}

Matrix transposed(const Matrix& m) {
  const int64_t rows = m.shape[0], cols = m.shape[1];
  Matrix t{{cols, rows}, std::vector<float>(m.values.size())};
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) t.values[static_cast<size_t>(j * rows + i)] = m.values[static_cast<size_t>(i * cols + j)];
  }
  return t;
}

Matrix row_slice(const Matrix& m, int64_t begin, int64_t count) {
  const int64_t width = m.shape.size() == 2 ? m.shape[1] : 1;
  Matrix s;
  s.shape = m.shape;
  s.shape[0] = count;
  s.values.assign(m.values.begin() + begin * width, m.values.begin() + (begin + count) * width);
  return s;
}

Matrix stacked(const Matrix& a, const Matrix& b) {
  Matrix s{a.shape, a.values};
  s.shape[0] += b.shape[0];
  s.values.insert(s.values.end(), b.values.begin(), b.values.end());
  return s;
}

WeightSource::WeightSource(std::vector<Checkpoint> checkpoints)
    : checkpoints_(std::move(checkpoints)) {
  for (const Checkpoint& c : checkpoints_) used_.emplace_back(c.tensors.size(), false);
}

WeightSource WeightSource::random(uint32_t seed) {
  WeightSource source({});
  source.random_ = true;
  source.seed_ = seed;
  return source;
}

// A NaN or Inf weight makes every output it reaches NaN (as it would in PyTorch); no
// model means that, so it is refused here rather than converted with a passing self-test
// whose inputs happen not to reach it.
static Status check_finite(const CheckpointTensor& t, const std::vector<float>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      return Status::error(StatusCode::kInvalidArgument, "tensor '%s' holds %s at element %zu: weights must be finite",
                           t.name.c_str(), std::isnan(values[i]) ? "NaN" : "an infinity", i);
    }
  }
  return Status();
}

const CheckpointTensor* WeightSource::find(const std::string& name) const {
  for (const std::string& candidate : {prefix_ + name, name}) {
    for (const Checkpoint& c : checkpoints_) {
      if (const CheckpointTensor* t = c.find(candidate)) return t;
    }
  }
  return nullptr;
}

bool WeightSource::has(const std::string& name) const { return find(name) != nullptr; }

std::string WeightSource::nearest_names(const std::string& name) const {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const Checkpoint& c : checkpoints_) {
    for (const CheckpointTensor& t : c.tensors) {
      scored.emplace_back(std::min(edit_distance(prefix_ + name, t.name), edit_distance(name, t.name)),
                          t.name);
    }
  }
  std::sort(scored.begin(), scored.end());
  std::string text;
  for (size_t i = 0; i < scored.size() && i < 3; ++i) text += (i ? ", " : "") + scored[i].second;
  return text.empty() ? "(the checkpoint is empty)" : text;
}

Matrix WeightSource::random_matrix(const std::vector<int64_t>& shape) {
  Matrix m{shape, {}};
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  std::mt19937 rng(seed_++);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  m.values.resize(static_cast<size_t>(count));
  for (float& v : m.values) v = normal(rng);
  return m;
}

void WeightSource::mark_taken(const CheckpointTensor* t) {
  size_t total = 0;
  for (size_t c = 0; c < checkpoints_.size(); ++c) {
    const auto& tensors = checkpoints_[c].tensors;
    total += tensors.size();
    for (size_t i = 0; i < tensors.size(); ++i) {
      if (&tensors[i] == t && !used_[c][i]) {
        used_[c][i] = true;
        ++taken_;
      }
    }
  }
  if (progress_) progress_(taken_, total);
}

Status WeightSource::missing(const std::string& name, const std::vector<int64_t>& shape) const {
  return Status::error(StatusCode::kInvalidArgument,
                       "the architecture needs tensor '%s%s'%s, which the checkpoint lacks; nearest names: %s",
                       prefix_.c_str(), name.c_str(), shape.empty() ? "" : (" " + shape_text(shape)).c_str(),
                       nearest_names(name).c_str());
}

std::string WeightSource::stored_name(const std::string& name) const {
  const CheckpointTensor* t = find(name);
  return t != nullptr ? t->name : name;
}

const std::vector<int64_t>* WeightSource::shape_of(const std::string& name) const {
  const CheckpointTensor* t = find(name);
  return t != nullptr ? &t->shape : nullptr;
}

Result<Matrix> WeightSource::get(const std::string& name, const std::vector<int64_t>& shape) {
  if (random_) return random_matrix(shape);
  const CheckpointTensor* t = find(name);
  if (t == nullptr) return missing(name, shape);
  if (t->shape != shape) {
    return Status::error(StatusCode::kInvalidArgument, "tensor '%s' has shape %s, expected %s",
                         t->name.c_str(), shape_text(t->shape).c_str(), shape_text(shape).c_str());
  }
  mark_taken(t);
  Matrix m{t->shape, t->to_f32()};
  t->release_pages();  // a mapped checkpoint stays resident only while a tensor is converted
  FOCAL_RETURN_IF_ERROR(check_finite(*t, m.values));
  return m;
}

Result<Matrix> WeightSource::get_any(const std::string& name) {
  const CheckpointTensor* t = random_ ? nullptr : find(name);
  if (t == nullptr) return get(name, {});  // the missing-tensor message, with nearest names
  return get(name, t->shape);
}

std::vector<std::string> WeightSource::unused() const {
  std::vector<std::string> names;
  for (size_t c = 0; c < checkpoints_.size(); ++c) {
    for (size_t i = 0; i < checkpoints_[c].tensors.size(); ++i) {
      if (!used_[c][i]) names.push_back(checkpoints_[c].tensors[i].name);
    }
  }
  return names;
}

std::vector<std::string> WeightSource::names() const {
  std::vector<std::string> all;
  for (const Checkpoint& c : checkpoints_) {
    for (const CheckpointTensor& t : c.tensors) all.push_back(t.name);
  }
  return all;
}

std::string WeightSource::describe_sources() const {
  std::string text;
  for (const Checkpoint& c : checkpoints_) {
    const size_t slash = c.path.find_last_of('/');
    text += (text.empty() ? "" : ", ") + (slash == std::string::npos ? c.path : c.path.substr(slash + 1));
  }
  return text;
}

}  // namespace convert
}  // namespace focal
