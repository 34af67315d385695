// Heatmaps: a known matrix rendered to PNG and read back with libpng (every cell's centre
// has the colour of its weight, the colour bar runs from 0 to 1), and the SVG holds one
// labelled cell per weight.
#include <doctest/doctest.h>
#include <png.h>

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

TEST_CASE("a known matrix round-trips through PNG: each cell has its weight's colour") {
  Heatmap map;
  map.rows = 3;
  map.cols = 4;
  map.values = {0.0f, 0.25f, 0.5f, 1.0f, 0.9f, 0.1f, 0.0f, 0.0f, 0.33f, 0.33f, 0.34f, 0.0f};
  const int cell = 10;
  auto png = heatmap_png(map, cell);
  REQUIRE(png.ok());
  const Image image = read_png(png.value());
  CHECK(image.width == 4 * cell);
  CHECK(image.height == 3 * cell + 4 + 12);
  for (size_t r = 0; r < map.rows; ++r) {
    for (size_t c = 0; c < map.cols; ++c) {
      uint8_t want[3];
      heatmap_colour(map.values[r * map.cols + c], want);
      const uint8_t* got = pixel(image, png_uint_32(c * cell + cell / 2), png_uint_32(r * cell + cell / 2));
      CHECK(std::memcmp(got, want, 3) == 0);
    }
  }
  uint8_t low[3], high[3];
  heatmap_colour(0.0f, low);
  heatmap_colour(1.0f, high);
  const png_uint_32 bar_y = image.height - 6;
  CHECK(std::memcmp(pixel(image, 0, bar_y), low, 3) == 0);
  CHECK(std::memcmp(pixel(image, image.width - 1, bar_y), high, 3) == 0);
  CHECK(std::memcmp(low, high, 3) != 0);
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
