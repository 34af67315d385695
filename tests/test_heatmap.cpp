// Heatmaps: a known matrix rendered to PNG and read back with libpng (every cell's centre
// has the colour of its weight, the colour bar runs from 0 to 1, the title and labels are
// drawn where the layout puts them), and the SVG holds one labelled cell per weight.
#include <doctest/doctest.h>
#include <png.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "heatmap.h"

using namespace focal;

namespace {

struct Image {
  png_uint_32 width = 0, height = 0;
  std::vector<uint8_t> rgb;
};

struct Reader {
  const std::vector<uint8_t>* bytes;
  size_t at;
};

void read_from_vector(png_structp png, png_bytep out, png_size_t length) {
  auto* r = static_cast<Reader*>(png_get_io_ptr(png));
  if (r->at + length > r->bytes->size()) png_error(png, "short PNG");
  std::memcpy(out, r->bytes->data() + r->at, length);
  r->at += length;
}

Image read_png(const std::vector<uint8_t>& bytes) {
  Image image;
  REQUIRE(png_sig_cmp(bytes.data(), 0, 8) == 0);
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  Reader reader{&bytes, 0};
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    FAIL("libpng could not read the heatmap");
  }
  png_set_read_fn(png, &reader, read_from_vector);
  png_read_info(png, info);
  image.width = png_get_image_width(png, info);
  image.height = png_get_image_height(png, info);
  REQUIRE(png_get_color_type(png, info) == PNG_COLOR_TYPE_RGB);
  REQUIRE(png_get_bit_depth(png, info) == 8);
  image.rgb.resize(size_t(image.width) * image.height * 3);
  for (png_uint_32 y = 0; y < image.height; ++y) png_read_row(png, &image.rgb[size_t(y) * image.width * 3], nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return image;
}

const uint8_t* pixel(const Image& image, png_uint_32 x, png_uint_32 y) {
  return &image.rgb[(size_t(y) * image.width + x) * 3];
}

}  // namespace

// Dark pixels (text) in the rectangle [x0, x1) x [y0, y1).
int ink_pixels(const Image& image, int x0, int y0, int x1, int y1) {
  int ink = 0;
  for (int y = std::max(0, y0); y < std::min(int(image.height), y1); ++y) {
    for (int x = std::max(0, x0); x < std::min(int(image.width), x1); ++x) {
      const uint8_t* p = pixel(image, png_uint_32(x), png_uint_32(y));
      ink += p[0] < 128 && p[1] < 128 && p[2] < 128 ? 1 : 0;
    }
  }
  return ink;
}

TEST_CASE("a known matrix round-trips through PNG: each cell has its weight's colour, the text is drawn") {
  Heatmap map;
  map.rows = 3;
  map.cols = 4;
  map.values = {0.0f, 0.25f, 0.5f, 1.0f, 0.9f, 0.1f, 0.0f, 0.0f, 0.33f, 0.33f, 0.34f, 0.0f};
  map.row_labels = {"<s>", "Hello", "world"};
  map.col_labels = {"a", "bb", "ccc", "dddd"};
  map.title = "Attention, layer 0";
  const int cell = 10;
  auto png = render_heatmap_png(map, cell);
  REQUIRE(png.ok());
  const HeatmapPngLayout& l = png->layout;
  const Image image = read_png(png->bytes);
  CHECK(int(image.width) == l.width);
  CHECK(int(image.height) == l.height);
  for (size_t r = 0; r < map.rows; ++r) {
    for (size_t c = 0; c < map.cols; ++c) {
      uint8_t want[3];
      heatmap_colour(map.values[r * map.cols + c], want);
      const uint8_t* got = pixel(image, png_uint_32(l.grid_x + int(c) * cell + cell / 2),
                                 png_uint_32(l.grid_y + int(r) * cell + cell / 2));
      CHECK(std::memcmp(got, want, 3) == 0);
    }
  }
  uint8_t low[3], high[3];
  heatmap_colour(0.0f, low);
  heatmap_colour(1.0f, high);
  const png_uint_32 bar_y = png_uint_32(l.bar_y + l.bar_height / 2);
  CHECK(std::memcmp(pixel(image, png_uint_32(l.bar_x), bar_y), low, 3) == 0);
  CHECK(std::memcmp(pixel(image, png_uint_32(l.bar_x + l.bar_width - 1), bar_y), high, 3) == 0);
  CHECK(std::memcmp(low, high, 3) != 0);
  // Text where each piece belongs: the title band, the row labels left of the grid, the
  // column labels above it, the scale's 0 and 1 under the bar.
  CHECK(ink_pixels(image, 0, 0, l.width, l.title_bottom) > 20);
  CHECK(ink_pixels(image, 0, l.grid_y, l.grid_x, l.grid_y + 3 * cell) > 20);
  CHECK(ink_pixels(image, l.grid_x, l.title_bottom, l.grid_x + 4 * cell, l.grid_y) > 10);
  CHECK(ink_pixels(image, l.bar_x, l.bar_y + l.bar_height, l.bar_x + 12, l.height) > 3);
  // Longer labels take more room: the grid moves right.
  Heatmap longer = map;
  longer.row_labels[1] = "a much longer row label";
  auto wider = render_heatmap_png(longer, cell);
  REQUIRE(wider.ok());
  CHECK(wider->layout.grid_x > l.grid_x);
}

TEST_CASE("a PNG without its font is an error that names the font, not an unlabelled picture") {
  Heatmap map;
  map.rows = map.cols = 1;
  map.values = {0.5f};
  auto png = render_heatmap_png(map, 8, "/nonexistent/NoSuchFont.ttf");
  REQUIRE_FALSE(png.ok());
  CHECK(std::string(png.status().message()).find("/nonexistent/NoSuchFont.ttf") != std::string::npos);
  Heatmap bad = map;
  bad.values.clear();
  CHECK_FALSE(render_heatmap_png(bad, 8).ok());
}

TEST_CASE("the SVG heatmap has one cell per weight and the labels, escaped") {
  Heatmap map;
  map.rows = 2;
  map.cols = 3;
  map.values = {0.1f, 0.2f, 0.7f, 1.0f, 0.0f, 0.0f};
  map.row_labels = {"<s>", "b"};
  map.col_labels = {"x", "y&z", "w"};
  const std::string svg = heatmap_svg(map);
  size_t cells = 0;
  for (size_t at = 0; (at = svg.find("class=\"cell\"", at)) != std::string::npos; ++at) ++cells;
  CHECK(cells == 6);
  CHECK(svg.find("&lt;s&gt;") != std::string::npos);
  CHECK(svg.find("y&amp;z") != std::string::npos);
  const std::string preview = heatmap_terminal(map);
  CHECK(preview.find("<s> |") != std::string::npos);
}
