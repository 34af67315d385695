// Attention heatmaps: a [rows, cols] matrix of weights in [0, 1] drawn as SVG (labelled
// axes, a colour bar), as PNG (libpng; one square of `cell` pixels per weight, the colour
// bar below, no text), and as a terminal preview (shade characters).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "focal/status.h"

namespace focal {

struct Heatmap {
  size_t rows = 0, cols = 0;
  std::vector<float> values;            // [rows][cols], clamped to [0, 1] when drawn
  std::vector<std::string> row_labels;  // one per row (the queries / output tokens), or empty
  std::vector<std::string> col_labels;  // one per column (the keys / source tokens), or empty
  std::string title;
};

// The colour of a weight: a perceptually ordered ramp from dark blue (0) through teal and
// green to yellow (1), as 8-bit RGB.
void heatmap_colour(float value, uint8_t rgb[3]);

// Text for SVG/XML character data and attribute values (<, >, &, " escaped; a newline as \n).
std::string escape_xml(const std::string& text);

std::string heatmap_svg(const Heatmap& map);
// PNG bytes: cells of `cell` pixels, then a colour bar 12 pixels high under the grid.
Result<std::vector<uint8_t>> heatmap_png(const Heatmap& map, int cell = 16);
std::string heatmap_terminal(const Heatmap& map);

}  // namespace focal
