// Constants several kernel families share, in one place so that one translation unit can
// hold every family (dispatch/kernel_set_instance.cpp).
#pragma once

namespace focal {
namespace kernels {

constexpr float kLog2e = 1.44269504088896341f;  // log2(e): exp(x) = exp2(x * log2(e))

}  // namespace kernels
}  // namespace focal
