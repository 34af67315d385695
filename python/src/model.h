// A verified model and the bytes it reads, kept together: a file mapped read-only (zero
// copy), a read-only 64-byte aligned Python buffer used in place, or an aligned copy of
// any other buffer. Sessions hold it by shared_ptr, so the bytes outlive every session.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "focal/model.h"
#include "mapped_file.h"
#include "owned_session.h"

namespace focal {
namespace python {

class ModelFile {
 public:
  static std::shared_ptr<ModelFile> open(const std::string& path);
  static std::shared_ptr<ModelFile> from_buffer(const pybind11::buffer& buffer);

  const Model& model() const { return *model_; }
  const std::string& path() const { return path_; }  // empty when loaded from bytes
  bool zero_copy() const { return copy_.data() == nullptr; }

 private:
  ModelFile() = default;
  void verify(const uint8_t* bytes, size_t size);  // raises focal.Error

  std::string path_;
  std::optional<MappedFile> file_;
  pybind11::object owner_;  // the Python buffer the bytes belong to (used in place)
  AlignedBlock copy_;
  std::optional<Model> model_;
};

// A str as UTF-8; a lone surrogate (which UTF-8 cannot hold) is a ValueError naming `argument`.
std::string utf8_text(const pybind11::handle& text, const char* argument);

// Token ids of `text` through the model's tokenizer (the target side's with `target`),
// with the template's special tokens when add_special_tokens; special tokens written in the
// text recognized when parse_special.
std::vector<int32_t> tokenize(const Model& model, const std::string& text, bool target,
                              bool add_special_tokens = false, bool parse_special = true);

}  // namespace python
}  // namespace focal
