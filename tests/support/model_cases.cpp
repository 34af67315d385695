// readdir on 32-bit ARM needs 64-bit inode numbers when the files live on a 64-bit
// host file system (qemu-user): without this, listing fails with EOVERFLOW.
#define _FILE_OFFSET_BITS 64

#include "support/model_cases.h"

#include <dirent.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "readers/npy.h"

namespace focal {
namespace testing {

std::string ModelCase::name() const { return dir.substr(dir.find_last_of('/') + 1); }

convert::CheckpointTensor ModelCase::array(const std::string& relative) const {
  auto file = convert::read_npy(dir + "/" + relative + ".npy");
  if (!file.ok()) throw std::runtime_error(file.status().message());
  return file->tensors[0];
}

std::vector<ModelCase> model_cases(const std::string& root, const std::string& family) {
  std::vector<ModelCase> cases;
  DIR* d = opendir(root.c_str());
  if (d == nullptr) return cases;
  while (dirent* entry = readdir(d)) {
    if (entry->d_name[0] == '.') continue;
    ModelCase c;
    c.dir = root + "/" + entry->d_name;
    std::ifstream in(c.dir + "/case.json");
    if (!in) continue;
    c.spec = nlohmann::json::parse(in);
    if (c.spec.at("family").get<std::string>() == family) cases.push_back(std::move(c));
  }
  closedir(d);
  std::sort(cases.begin(), cases.end(), [](const ModelCase& a, const ModelCase& b) { return a.dir < b.dir; });
  return cases;
}

std::unique_ptr<LoadedCase> load_model_bytes(const std::vector<uint8_t>& bytes) {
  auto loaded = std::make_unique<LoadedCase>();
  loaded->file = std::make_unique<AlignedBuffer>(bytes);
  auto model = Model::from_bytes(loaded->file->data(), loaded->file->size());
  if (!model.ok()) throw std::runtime_error(model.status().message());
  loaded->model = std::make_unique<Model>(model.value());
  const auto arena_bytes = Session::required_arena_bytes(*loaded->model, SessionOptions());
  loaded->arena = std::make_unique<AlignedBuffer>(arena_bytes.value());
  auto session = Session::create(*loaded->model, SessionOptions(), loaded->arena->data(), arena_bytes.value());
  if (!session.ok()) throw std::runtime_error(session.status().message());
  loaded->session = std::make_unique<Session>(session.value());
  return loaded;
}

std::unique_ptr<LoadedCase> load_golden(const ModelCase& c) {
  std::ifstream in(c.dir + "/model.focal", std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + c.dir + "/model.focal");
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return load_model_bytes(bytes);
}

void set_input(Session& session, const std::string& name, const convert::CheckpointTensor& array) {
  const int index = session.find_input(name.c_str());
  if (index < 0) throw std::runtime_error("no input " + name);
  Shape shape;
  shape.rank = static_cast<int>(array.shape.size());
  for (int d = 0; d < shape.rank; ++d) shape.dims[d] = array.shape[static_cast<size_t>(d)];
  const std::vector<float> values = array.to_f32();
  std::vector<uint8_t> bytes(values.size() * 4);
  const bool integral = array.type == convert::ElementType::kI32 || array.type == convert::ElementType::kI64;
  for (size_t i = 0; i < values.size(); ++i) {
    if (integral) {
      const int32_t v = static_cast<int32_t>(values[i]);
      std::memcpy(bytes.data() + i * 4, &v, 4);
    } else {
      std::memcpy(bytes.data() + i * 4, &values[i], 4);
    }
  }
  const Status status = session.set_input(index, shape, bytes.data(), bytes.size());
  if (!status.ok()) throw std::runtime_error(status.message());
}

double max_error(const float* got, const std::vector<float>& want, const std::vector<int64_t>& shape,
                 const std::vector<float>* mask) {
  size_t per_position = 1;
  for (size_t d = 2; d < shape.size(); ++d) per_position *= static_cast<size_t>(shape[d]);
  double worst = 0.0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (mask != nullptr && (*mask)[i / per_position] == 0.0f) continue;
    const double error = std::fabs(double(got[i]) - double(want[i])) / (std::fabs(double(want[i])) + 1.0);
    worst = std::max(worst, std::isnan(error) ? INFINITY : error);
  }
  return worst;
}

}  // namespace testing
}  // namespace focal
