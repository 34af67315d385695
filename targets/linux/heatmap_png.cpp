// The PNG heatmap: pixels laid out and coloured here, text drawn by FreeType
// (raster_text.h), the image encoded by libpng.
#include "heatmap.h"

#if FOCAL_HAVE_PNG
#include <png.h>

#include <algorithm>
#include <csetjmp>

#include "raster_text.h"
#endif

namespace focal {

#if FOCAL_HAVE_PNG
namespace {

// Pixels: text size, the margin round the picture, the space between a label and what it names.
constexpr int kFontPixels = 11, kTitlePixels = 14, kMargin = 8, kLabelGap = 5;
constexpr int kLabelMax = 240;  // a longer label is clipped at the picture's edge
constexpr int kBarHeight = 12, kBarMinWidth = 64;
constexpr uint8_t kInk[3] = {32, 32, 32};

void write_to_vector(png_structp png, png_bytep data, png_size_t length) {
  auto* out = static_cast<std::vector<uint8_t>*>(png_get_io_ptr(png));
  out->insert(out->end(), data, data + length);
}

int widest_label(TextPainter& text, const std::vector<std::string>& labels, size_t count) {
  int widest = 0;
  for (size_t i = 0; i < count; ++i) widest = std::max(widest, text.width(heatmap_label(labels, i)));
  return std::min(widest, kLabelMax);
}

HeatmapPngLayout lay_out(const Heatmap& map, int cell, TextPainter& text, TextPainter& title) {
  HeatmapPngLayout l;
  const int line = text.ascent() + 4;
  const int title_width = map.title.empty() ? 0 : title.width(map.title);
  l.title_bottom = map.title.empty() ? 0 : kMargin + title.ascent() + 6;
  l.grid_x = kMargin + widest_label(text, map.row_labels, map.rows) + kLabelGap;
  l.grid_y = std::max(l.title_bottom, kMargin) + widest_label(text, map.col_labels, map.cols) + kLabelGap;
  const int grid_width = int(map.cols) * cell, grid_height = int(map.rows) * cell;
  l.bar_x = l.grid_x;
  l.bar_y = l.grid_y + grid_height + kLabelGap + 1;
  l.bar_width = std::max(grid_width, kBarMinWidth);
  l.bar_height = kBarHeight;
  l.width = std::max(l.grid_x + l.bar_width + kMargin, 2 * kMargin + title_width);
  l.height = l.bar_y + kBarHeight + line + kMargin;
  return l;
}

void paint_cells(const Heatmap& map, int cell, const HeatmapPngLayout& l, RgbImage* image) {
  for (size_t r = 0; r < map.rows; ++r) {
    for (size_t c = 0; c < map.cols; ++c) {
      uint8_t rgb[3];
      heatmap_colour(map.values[r * map.cols + c], rgb);
      for (int y = 0; y < cell; ++y) {
        for (int x = 0; x < cell; ++x) {
          std::copy_n(rgb, 3, image->at(l.grid_x + int(c) * cell + x, l.grid_y + int(r) * cell + y));
        }
      }
    }
  }
  for (int x = 0; x < l.bar_width; ++x) {  // the scale, 0 at the left
    uint8_t rgb[3];
    heatmap_colour(l.bar_width > 1 ? float(x) / float(l.bar_width - 1) : 0.0f, rgb);
    for (int y = 0; y < l.bar_height; ++y) std::copy_n(rgb, 3, image->at(l.bar_x + x, l.bar_y + y));
  }
}

void paint_text(const Heatmap& map, int cell, const HeatmapPngLayout& l, TextPainter& text, TextPainter& title,
                RgbImage* image) {
  if (!map.title.empty()) title.draw(image, kMargin, kMargin + title.ascent(), map.title, kInk);
  const int half_glyph = text.ascent() / 2;
  for (size_t c = 0; c < map.cols; ++c) {  // upward, the baseline at the cell's centre line
    text.draw(image, l.grid_x + int(c) * cell + cell / 2 + half_glyph - 1, l.grid_y - kLabelGap,
              heatmap_label(map.col_labels, c), kInk, /*upward=*/true);
  }
  for (size_t r = 0; r < map.rows; ++r) {  // right-aligned against the grid
    const std::string name = heatmap_label(map.row_labels, r);
    text.draw(image, l.grid_x - kLabelGap - text.width(name), l.grid_y + int(r) * cell + cell / 2 + half_glyph - 1,
              name, kInk);
  }
  const int scale_baseline = l.bar_y + l.bar_height + text.ascent() + 2;
  text.draw(image, l.bar_x, scale_baseline, "0", kInk);
  text.draw(image, l.bar_x + l.bar_width - text.width("1"), scale_baseline, "1", kInk);
}

Result<std::vector<uint8_t>> encode_png(const RgbImage& image) {
  std::vector<uint8_t> out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png != nullptr ? png_create_info_struct(png) : nullptr;
  if (png == nullptr || info == nullptr || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return Status::error(StatusCode::kIoError, "libpng failed to encode the heatmap");
  }
  png_set_write_fn(png, &out, write_to_vector, nullptr);
  png_set_IHDR(png, info, png_uint_32(image.width), png_uint_32(image.height), 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < image.height; ++y) {
    png_write_row(png, &image.pixels[size_t(y) * size_t(image.width) * 3]);
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

}  // namespace
#endif

Result<HeatmapPng> render_heatmap_png(const Heatmap& map, int cell, const char* font_path) {
#if !FOCAL_HAVE_PNG
  (void)map;
  (void)cell;
  (void)font_path;
  return Status::error(StatusCode::kUnsupported, "this build has no PNG support (libpng); use --svg");
#else
  constexpr int kMaxCell = 256, kMaxCells = 1 << 22;  // bounds the image to a few hundred MB at most
  if (map.rows == 0 || map.cols == 0 || cell < 1 || cell > kMaxCell || map.values.size() != map.rows * map.cols ||
      map.rows * map.cols > size_t(kMaxCells) || map.rows > size_t(1 << 16) || map.cols > size_t(1 << 16)) {
    return Status::error(StatusCode::kInvalidArgument, "heatmap: empty, inconsistent or too large matrix");
  }
  const std::string font = font_path != nullptr ? font_path : FOCAL_HEATMAP_FONT;
  auto text = TextPainter::open(font, kFontPixels);
  if (!text.ok()) return text.status();
  auto title = TextPainter::open(font, kTitlePixels);
  if (!title.ok()) return title.status();
  HeatmapPng png;
  png.layout = lay_out(map, cell, **text, **title);
  RgbImage image(png.layout.width, png.layout.height);
  paint_cells(map, cell, png.layout, &image);
  paint_text(map, cell, png.layout, **text, **title, &image);
  auto bytes = encode_png(image);
  if (!bytes.ok()) return bytes.status();
  png.bytes = std::move(bytes.value());
  return png;
#endif
}

Result<std::vector<uint8_t>> heatmap_png(const Heatmap& map, int cell) {
  auto png = render_heatmap_png(map, cell);
  if (!png.ok()) return png.status();
  return std::move(png->bytes);
}

}  // namespace focal
