#include "int8_accuracy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "presets/weights.h"
#include "reference/int8_rows.h"
#include "reference/self_test_cases.h"

namespace focal {
namespace convert {
namespace {

// Sums over every measured output element of one weight.
struct ErrorSums {
  double error = 0.0, reference = 0.0, quantized = 0.0, cross = 0.0;  // sum e^2, f^2, q^2, q f
};

class AccuracyObserver : public reference::DenseObserver {
 public:
  void observe(const char* op, const reference::Operand& w, const reference::Operand* bias, const double* x,
               size_t x_stride, size_t rows, const double* y, size_t y_stride) override {
    if (!w.packed()) return;  // row-major matrices (Luong general, concat scores) stay f32
    const size_t out = w.dim(0);
    std::vector<double> quantized(rows * out);
    reference::int8_dense_rows(w, bias, x, x_stride, rows, quantized.data(), out);
    Entry& entry = entry_for(w, op);
    entry.layer.rows += static_cast<int64_t>(rows);
    for (size_t r = 0; r < rows; ++r) {
      for (size_t n = 0; n < out; ++n) {
        const double f = y[r * y_stride + n], q = quantized[r * out + n];
        entry.sums.error += (q - f) * (q - f);
        entry.sums.reference += f * f;
        entry.sums.quantized += q * q;
        entry.sums.cross += q * f;
      }
    }
  }

  std::vector<LayerAccuracy> layers() const {
    std::vector<LayerAccuracy> result;
    for (const Entry& entry : entries_) {
      LayerAccuracy layer = entry.layer;
      const ErrorSums& s = entry.sums;
      layer.relative_rms = s.reference > 0.0 ? std::sqrt(s.error / s.reference) : (s.error > 0.0 ? INFINITY : 0.0);
      const double norms = std::sqrt(s.reference * s.quantized);
      layer.cosine = norms > 0.0 ? s.cross / norms : (s.error > 0.0 ? 0.0 : 1.0);
      result.push_back(layer);
    }
    return result;
  }

 private:
  struct Entry {
    LayerAccuracy layer;
    ErrorSums sums;
  };

  Entry& entry_for(const reference::Operand& w, const char* op) {
    const auto [at, added] = index_.emplace(w.tensor, entries_.size());
    if (added) {
      Entry entry;
      entry.layer.weight = w.tensor->name() != nullptr ? w.tensor->name()->str() : "";
      entry.layer.op = op;
      entries_.push_back(entry);
    }
    return entries_[at->second];
  }

  std::map<const fb::Tensor*, size_t> index_;
  std::vector<Entry> entries_;
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream parts(text);
  std::string item;
  while (std::getline(parts, item, ',')) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

// The error for a --keep-f32 name that is no measured weight, with the three nearest.
Status unknown_layer(const std::string& name, const std::vector<LayerAccuracy>& layers) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const LayerAccuracy& layer : layers) scored.emplace_back(edit_distance(name, layer.weight), layer.weight);
  std::sort(scored.begin(), scored.end());
  std::string nearest;
  for (size_t i = 0; i < scored.size() && i < 3; ++i) nearest += (i ? ", " : "") + scored[i].second;
  return Status::error(StatusCode::kInvalidArgument,
                       "--keep-f32: '%s' is not one of the %zu dense weights (all listed above); nearest: %s",
                       name.c_str(), layers.size(), nearest.c_str());
}

}  // namespace

int AccuracyReport::kept() const {
  int count = 0;
  for (const LayerAccuracy& layer : layers) count += layer.kept ? 1 : 0;
  return count;
}

Result<std::vector<LayerAccuracy>> measure_int8_accuracy(const Model& model,
                                                         const std::vector<std::vector<reference::Value>>& cases) {
  Result<reference::Evaluator> evaluator = reference::Evaluator::create(model);
  if (!evaluator.ok()) return evaluator.status();
  AccuracyObserver observer;
  evaluator->set_dense_observer(&observer);
  for (size_t i = 0; i < cases.size(); ++i) {
    Result<std::vector<reference::Value>> outputs = reference::evaluate_outputs(evaluator.value(), cases[i]);
    if (!outputs.ok()) {
      return Status::error(outputs.status().code(), "int8 accuracy: calibration case %zu: %s", i + 1,
                           outputs.status().message());
    }
  }
  return observer.layers();
}

Status choose_kept_layers(const std::string& names, AccuracyReport* report) {
  for (const std::string& name : split_list(names)) {
    if (name == "auto") {
      report->automatic = true;
      continue;
    }
    bool found = false;
    for (LayerAccuracy& layer : report->layers) {
      if (layer.weight != name) continue;
      found = true;
      layer.kept = true;
      layer.reason = "named";
    }
    if (!found) return unknown_layer(name, report->layers);
  }
  for (LayerAccuracy& layer : report->layers) {
    if (!report->automatic || layer.kept || !(layer.relative_rms > report->threshold)) continue;
    layer.kept = true;
    layer.reason = "error above threshold";
  }
  return Status();
}

std::string accuracy_table(const AccuracyReport& report) {
  size_t width = 6;  // "weight"
  for (const LayerAccuracy& layer : report.layers) width = std::max(width, layer.weight.size());
  std::string text = "int8 activations, each dense layer's output against f32 activations on " + report.inputs + ":\n";
  char line[512];
  (void)std::snprintf(line, sizeof(line), "  %-*s  %8s  %9s  %9s  %s\n", static_cast<int>(width), "weight", "rows",
                      "rel. RMS", "cosine", "runs as");
  text += line;
  for (const LayerAccuracy& layer : report.layers) {
    const std::string decision = layer.kept ? "weight-only int8 (" + layer.reason + ")" : "int8 x int8";
    (void)std::snprintf(line, sizeof(line), "  %-*s  %8lld  %9.5f  %9.6f  %s\n", static_cast<int>(width),
                        layer.weight.c_str(), static_cast<long long>(layer.rows), layer.relative_rms, layer.cosine,
                        decision.c_str());
    text += line;
  }
  (void)std::snprintf(line, sizeof(line), "%d of %zu layers kept in weight-only int8", report.kept(),
                      report.layers.size());
  text += line;
  if (report.automatic) {
    (void)std::snprintf(line, sizeof(line), " (auto: relative RMS error above %g)", report.threshold);
    text += line;
  }
  return text + "\n";
}

nlohmann::json accuracy_json(const AccuracyReport& report) {
  nlohmann::json layers = nlohmann::json::array();
  for (const LayerAccuracy& layer : report.layers) {
    layers.push_back({{"weight", layer.weight},
                      {"op", layer.op},
                      {"rows", layer.rows},
                      {"relative_rms_error", layer.relative_rms},
                      {"cosine", layer.cosine},
                      {"activations", layer.kept ? "f32" : "int8"},
                      {"kept_because", layer.kept ? nlohmann::json(layer.reason) : nlohmann::json()}});
  }
  nlohmann::json json = {{"inputs", report.inputs}, {"layers", layers}, {"kept", report.kept()}};
  json["threshold"] = report.automatic ? nlohmann::json(report.threshold) : nlohmann::json();
  return json;
}

}  // namespace convert
}  // namespace focal
