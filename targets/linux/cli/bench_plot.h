// `focal bench --plot FILE.svg`: the time per op kind as a labelled horizontal bar chart,
// for readers who would rather look than read the table.
#pragma once

#include <map>
#include <string>

#include "focal/status.h"

namespace focal {
namespace cli {

// The SVG text: a title naming the model, one bar per op kind (longest first) with its
// milliseconds and share of `total_ms`, and a labelled millisecond axis.
std::string op_time_plot_svg(const std::string& model, const std::map<std::string, double>& ms_by_kind,
                             double total_ms);

// Writes op_time_plot_svg to `path` atomically (a failed write leaves nothing behind).
Status write_op_time_plot(const std::string& path, const std::string& model,
                          const std::map<std::string, double>& ms_by_kind, double total_ms);

}  // namespace cli
}  // namespace focal
