// Attention heatmaps: a [rows, cols] matrix of weights in [0, 1] drawn as SVG (labelled
// axes, a colour bar), as PNG (heatmap_png.cpp: libpng, with the title, labels and the
// colour bar's scale drawn by FreeType), and as a terminal preview (shade characters).
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

// Label i of an axis: its text, or its index where none is given.
std::string heatmap_label(const std::vector<std::string>& labels, size_t i);

std::string heatmap_svg(const Heatmap& map);

// Where heatmap_png draws, in pixels from the top left.
struct HeatmapPngLayout {
  int width = 0, height = 0;
  int grid_x = 0, grid_y = 0;    // the first cell's corner; cells are `cell` pixels square
  int bar_x = 0, bar_y = 0;      // the colour bar (0 at its left, 1 at its right)
  int bar_width = 0, bar_height = 0;
  int title_bottom = 0;          // the title's band ends here (0: no title)
};
struct HeatmapPng {
  std::vector<uint8_t> bytes;
  HeatmapPngLayout layout;
};
// PNG of the map: the title on top, column labels reading upward above the grid, row
// labels right-aligned at its left, and the colour bar under it with its 0 and 1.
// `font_path`: a TrueType font for the text (null: the build's FOCAL_HEATMAP_FONT,
// Debian's DejaVu Sans); a missing font is an error that names it.
Result<HeatmapPng> render_heatmap_png(const Heatmap& map, int cell = 16, const char* font_path = nullptr);
// render_heatmap_png's bytes.
Result<std::vector<uint8_t>> heatmap_png(const Heatmap& map, int cell = 16);
std::string heatmap_terminal(const Heatmap& map);

}  // namespace focal
