// `focal convert --fit ram=64K,flash=256K` (issue 36): converts the model in each storage
// and activation choice the engine offers a microcontroller, measures each one's RAM and
// flash need (fit_budget.h) and its error, and keeps the most accurate that fits the
// part; when none fits, refuses naming the nearest miss. Converted::fit holds the table.
//
// The whole-model choices, tried in this order:
//   f32                        --dtype f32
//   int8 weights               --dtype int8
//   int8 weights and table     --dtype int8 --embedding-dtype int8
//   int4 weights, int8 table   --dtype int4 --embedding-dtype int8  (only with int4=yes)
//   static int8                --quantize static (--calibration DIR when given)
// f16 and bf16 weights are not offered: bare-metal engines leave them out
// (FOCAL_HALF_WEIGHTS). --activations int8 is not offered either: it quantizes rows at
// run time and saves neither RAM nor flash.
//
// Then per layer (fit_layers.h): when the most accurate choice that fits stores dense
// weights quantized with f32 activations (int8 or int4 weights), dense weights go back to
// f32 one layer at a time while the part has room and the error goes down; the mix is one
// more row ("int8 weights, 3 layers f32"), chosen when it is more accurate. Static int8 is
// all or nothing: its ops have no f32 islands yet.
//
// The error: every choice runs in the engine on the f32 conversion's self-test inputs
// (against its expected outputs: PyTorch's when --self-test DIR gave them, else the f32
// model in double precision) and on the --calibration cases (against the f32 model in
// double precision), over the outputs the self-test checks; the largest absolute
// difference is the choice's error. Ties go to the smaller RAM need.
#pragma once

#include "convert.h"

namespace focal {
namespace convert {

// options.fit holds the part; options must not choose --dtype, --embedding-dtype,
// --activations, --keep-f32 or --quantize itself.
Result<Converted> convert_to_fit(const ConvertOptions& options);

}  // namespace convert
}  // namespace focal
