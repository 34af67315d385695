#include "heatmap.h"

#include <algorithm>
#include <cstdio>

namespace focal {
namespace {

float clamp01(float v) { return v != v ? 0.0f : std::min(1.0f, std::max(0.0f, v)); }

std::string rgb_text(float value) {
  uint8_t rgb[3];
  heatmap_colour(value, rgb);
  char text[8];
  std::snprintf(text, sizeof(text), "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return text;
}

}  // namespace

std::string heatmap_label(const std::vector<std::string>& labels, size_t i) {
  return i < labels.size() ? labels[i] : std::to_string(i);
}

std::string escape_xml(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
  return out;
}

void heatmap_colour(float value, uint8_t rgb[3]) {
  // Five stops of a viridis-like ramp, linearly interpolated.
  static const float kStops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  const float x = clamp01(value) * 4.0f;
  const int i = std::min(3, static_cast<int>(x));
  const float t = x - static_cast<float>(i);
  for (int c = 0; c < 3; ++c) {
    rgb[c] = static_cast<uint8_t>(kStops[i][c] + t * (kStops[i + 1][c] - kStops[i][c]) + 0.5f);
  }
}

std::string heatmap_svg(const Heatmap& map) {
  const int cell = 22, left = 120, top = 110 + (map.title.empty() ? 0 : 20);
  const int width = left + int(map.cols) * cell + 90, height = top + int(map.rows) * cell + 20;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" +
                    std::to_string(height) + "\" font-family=\"monospace\" font-size=\"12\">\n";
  if (!map.title.empty()) svg += "<text x=\"10\" y=\"20\" font-size=\"14\">" + escape_xml(map.title) + "</text>\n";
  for (size_t c = 0; c < map.cols; ++c) {  // column labels, rotated above the grid
    const int x = left + int(c) * cell + cell / 2 + 4, y = top - 6;
    svg += "<text x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" transform=\"rotate(-60 " +
           std::to_string(x) + " " + std::to_string(y) + ")\">" + escape_xml(heatmap_label(map.col_labels, c)) + "</text>\n";
  }
  for (size_t r = 0; r < map.rows; ++r) {
    const int y = top + int(r) * cell;
    svg += "<text x=\"" + std::to_string(left - 6) + "\" y=\"" + std::to_string(y + cell / 2 + 4) +
           "\" text-anchor=\"end\">" + escape_xml(heatmap_label(map.row_labels, r)) + "</text>\n";
    for (size_t c = 0; c < map.cols; ++c) {
      const float v = map.values[r * map.cols + c];
      svg += "<rect class=\"cell\" x=\"" + std::to_string(left + int(c) * cell) + "\" y=\"" + std::to_string(y) +
             "\" width=\"" + std::to_string(cell) + "\" height=\"" + std::to_string(cell) + "\" fill=\"" +
             rgb_text(v) + "\"><title>" + std::to_string(v) + "</title></rect>\n";
    }
  }
  const int bar_x = left + int(map.cols) * cell + 20;  // the colour scale, 1 at the top
  for (int i = 0; i < 100; ++i) {
    const float v = 1.0f - float(i) / 99.0f;
    svg += "<rect x=\"" + std::to_string(bar_x) + "\" y=\"" + std::to_string(top + i * 2) +
           "\" width=\"16\" height=\"2\" fill=\"" + rgb_text(v) + "\"/>\n";
  }
  svg += "<text x=\"" + std::to_string(bar_x + 20) + "\" y=\"" + std::to_string(top + 8) + "\">1</text>\n";
  svg += "<text x=\"" + std::to_string(bar_x + 20) + "\" y=\"" + std::to_string(top + 200) + "\">0</text>\n";
  return svg + "</svg>\n";
}

std::string heatmap_terminal(const Heatmap& map) {
  static const char* kShades[] = {" ", "\u2591", "\u2592", "\u2593", "\u2588"};
  size_t width = 0;
  for (size_t r = 0; r < map.rows; ++r) width = std::max(width, heatmap_label(map.row_labels, r).size());
  width = std::min<size_t>(width, 16);
  std::string text;
  for (size_t r = 0; r < map.rows; ++r) {
    std::string name = heatmap_label(map.row_labels, r).substr(0, width);
    for (char& ch : name) ch = ch == '\n' ? ' ' : ch;
    text += std::string(width - name.size(), ' ') + name + " |";
    for (size_t c = 0; c < map.cols; ++c) {
      const float v = clamp01(map.values[r * map.cols + c]);
      text += kShades[std::min(4, static_cast<int>(v * 5.0f))];
    }
    text += "|\n";
  }
  return text;
}

}  // namespace focal
