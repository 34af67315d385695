#include "cli/bench_plot.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "atomic_file.h"
#include "heatmap.h"

namespace focal {
namespace cli {
namespace {

// Layout in SVG user units (pixels): the label column, the bar area, one row per kind.
constexpr int kLabelWidth = 180, kBarWidth = 420, kRowHeight = 22, kTop = 48, kRightMargin = 150;

std::string number(double v, const char* format) {
  char text[64];
  std::snprintf(text, sizeof(text), format, v);
  return text;
}

// A round axis step: 1, 2 or 5 times a power of ten, giving about five ticks up to `max`.
double axis_step(double max) {
  double step = 1e-6;
  while (max / step > 5.0) {
    for (double factor : {2.0, 2.5, 2.0}) {
      step *= factor;
      if (max / step <= 5.0) break;
    }
  }
  return step;
}

}  // namespace

std::string op_time_plot_svg(const std::string& model, const std::map<std::string, double>& ms_by_kind,
                             double total_ms) {
  std::vector<std::pair<std::string, double>> rows(ms_by_kind.begin(), ms_by_kind.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  const double longest = rows.empty() ? 0.0 : std::max(rows.front().second, 1e-9);
  const int height = kTop + int(rows.size()) * kRowHeight + 40;
  const int width = kLabelWidth + kBarWidth + kRightMargin;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" +
                    std::to_string(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"10\" y=\"20\" font-size=\"14\">focal bench: time per op kind, " + escape_xml(model) + "</text>\n";
  svg += "<text x=\"10\" y=\"38\" fill=\"#555\">total " + number(total_ms, "%.3f") + " ms over the timed runs</text>\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const int y = kTop + int(i) * kRowHeight;
    const int bar = std::max(1, int(double(kBarWidth) * rows[i].second / longest));
    const double share = total_ms > 0 ? 100.0 * rows[i].second / total_ms : 0.0;
    svg += "<text x=\"" + std::to_string(kLabelWidth - 8) + "\" y=\"" + std::to_string(y + 15) +
           "\" text-anchor=\"end\">" + escape_xml(rows[i].first) + "</text>\n";
    svg += "<rect x=\"" + std::to_string(kLabelWidth) + "\" y=\"" + std::to_string(y + 3) + "\" width=\"" +
           std::to_string(bar) + "\" height=\"" + std::to_string(kRowHeight - 6) + "\" fill=\"#3b7dd8\"/>\n";
    svg += "<text x=\"" + std::to_string(kLabelWidth + bar + 6) + "\" y=\"" + std::to_string(y + 15) + "\">" +
           number(rows[i].second, "%.3f") + " ms (" + number(share, "%.1f") + "%)</text>\n";
  }
  // The millisecond axis under the bars, with round ticks.
  const int axis_y = kTop + int(rows.size()) * kRowHeight + 4;
  svg += "<line x1=\"" + std::to_string(kLabelWidth) + "\" y1=\"" + std::to_string(axis_y) + "\" x2=\"" +
         std::to_string(kLabelWidth + kBarWidth) + "\" y2=\"" + std::to_string(axis_y) + "\" stroke=\"black\"/>\n";
  const double step = axis_step(longest);
  for (double t = 0; t <= longest * 1.0001; t += step) {
    const int x = kLabelWidth + int(double(kBarWidth) * t / longest);
    svg += "<text x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(axis_y + 16) +
           "\" text-anchor=\"middle\" fill=\"#555\">" + number(t, "%g") + "</text>\n";
  }
  svg += "<text x=\"" + std::to_string(kLabelWidth + kBarWidth + 8) + "\" y=\"" + std::to_string(axis_y + 16) +
         "\" fill=\"#555\">ms</text>\n</svg>\n";
  return svg;
}

Status write_op_time_plot(const std::string& path, const std::string& model,
                          const std::map<std::string, double>& ms_by_kind, double total_ms) {
  const std::string svg = op_time_plot_svg(model, ms_by_kind, total_ms);
  return write_file_atomically(path, svg.data(), svg.size());
}

}  // namespace cli
}  // namespace focal
