// Pointwise kernels: masked mean and CLS pooling, on every instruction set this CPU has, against
// their reference twins and double-precision computations (tolerances: see
// support/pointwise_testing.h).
#include "support/pointwise_testing.h"

using namespace focal;
using namespace focal::kernels;
using namespace focal::pointwise_testing;

namespace {

// ---------------------------------------------------------------------------------
// Pooling

TEST_CASE("pointwise: masked mean pooling and CLS pooling") {
  CaseReport report("mean_pool");
  uint32_t seed = 800;
  const size_t batch = 4, seq = 7;
  const int32_t lengths[batch] = {7, 0, 3, 1};
  for (const auto& k : kernel_sets()) {
    CAPTURE(std::string(k.isa));
    for (size_t dim : kWidths) {
      for (float range : {1.0f, 1e4f}) {
        for (bool masked : {true, false}) {
          CAPTURE(dim);
          CAPTURE(range);
          CAPTURE(masked);
          std::vector<float> xv = uniform(batch * seq * dim, ++seed, -range, range);
          if (masked) {  // positions past a row's length hold NaN: never read
            for (size_t b = 0; b < batch; ++b) {
              std::fill(xv.begin() + std::ptrdiff_t((b * seq + size_t(lengths[b])) * dim),
                        xv.begin() + std::ptrdiff_t((b + 1) * seq * dim), NAN);
            }
          }
          Floats x(xv, seed % 2), out(batch * dim, (seed + 1) % 2), ref(batch * dim);
          PoolParams p;
          p.batch = batch;
          p.seq = seq;
          p.dim = dim;
          p.x = x.data();
          p.lengths = masked ? lengths : nullptr;
          p.out = out.data();
          REQUIRE(mean_pool(p, k).ok());
          p.out = ref.data();
          mean_pool_reference(p);
          Worst w;
          std::string mismatch;
          for (size_t b = 0; b < batch; ++b) {
            const size_t length = masked ? size_t(lengths[b]) : seq;
            for (size_t i = 0; i < dim; ++i) {
              double sum = 0, magnitude = 0;
              for (size_t s = 0; s < length; ++s) {
                sum += xv[(b * seq + s) * dim + i];
                magnitude += std::fabs(xv[(b * seq + s) * dim + i]);
              }
              const double want = length != 0 ? sum / double(length) : 0.0;
              const double tol =
                  4 * kU * (double(length) + 1) * (length != 0 ? magnitude / double(length) : 0.0) +
                  1e-30;
              w.add(b * dim + i, out[b * dim + i], want, tol);
              if (mismatch.empty() && !same_bits(out[b * dim + i], ref[b * dim + i])) {
                mismatch = "[" + std::to_string(b) + ", " + std::to_string(i) + "]: kernel " +
                           std::to_string(out[b * dim + i]) + ", reference " +
                           std::to_string(ref[b * dim + i]);
              }
            }
          }
          CHECK_MESSAGE(w.ratio <= 1.0, w.str());
          CHECK_MESSAGE(mismatch.empty(), "not bitwise the reference's at " << mismatch);
          CHECK(out.guards_intact());
          report.take(w);

          Floats cls(batch * dim, 1);
          p.out = cls.data();
          cls_pool(p, k);
          bool exact = true;
          for (size_t b = 0; b < batch; ++b) {
            for (size_t i = 0; i < dim; ++i)
              exact = exact && same_bits(cls[b * dim + i], xv[b * seq * dim + i]);
          }
          CHECK(exact);
          CHECK(cls.guards_intact());
        }
      }
    }
  }
}

TEST_CASE("pointwise: mean pooling refuses lengths outside 0..seq") {
  const std::vector<float> x(2 * 3 * 4, 1.0f);
  Floats out(2 * 4);
  PoolParams p;
  p.batch = 2;
  p.seq = 3;
  p.dim = 4;
  p.x = x.data();
  p.out = out.data();
  const int32_t too_long[] = {3, 4}, negative[] = {-1, 2}, good[] = {3, 0};
  p.lengths = too_long;
  Status status = mean_pool(p);
  CHECK(status.code() == StatusCode::kOutOfRange);
  CHECK(std::string(status.message()) == "mean_pool: lengths[1] = 4 outside 0..seq (3)");
  p.lengths = negative;
  status = mean_pool(p);
  CHECK(std::string(status.message()) == "mean_pool: lengths[0] = -1 outside 0..seq (3)");
  bool untouched = true;
  for (size_t i = 0; i < out.size(); ++i) untouched = untouched && same_bits(out[i], kSentinel);
  CHECK(untouched);
  p.lengths = good;
  CHECK(mean_pool(p).ok());
  CHECK(out[0] == 1.0f);
  CHECK(same_bits(out[4], 0.0f));
}

}  // namespace
