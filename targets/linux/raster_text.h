// Text on an RGB pixel buffer through FreeType (Debian's libfreetype) with a TrueType
// font from disk (Debian's fonts-dejavu-core by default): the labels, title and scale of
// the PNG heatmaps. Host builds only (FOCAL_HAVE_PNG).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "focal/status.h"

namespace focal {

// An 8-bit RGB image, rows top to bottom.
struct RgbImage {
  int width = 0, height = 0;
  std::vector<uint8_t> pixels;  // [height][width][3]
  RgbImage(int w, int h) : width(w), height(h), pixels(size_t(w) * size_t(h) * 3, 255) {}
  uint8_t* at(int x, int y) { return &pixels[(size_t(y) * size_t(width) + size_t(x)) * 3]; }
};

class TextPainter {
 public:
  // The font at `font_path`, glyphs `pixel_size` pixels high. A missing or unreadable
  // font is an error naming the path and the Debian package that provides the default.
  static Result<std::unique_ptr<TextPainter>> open(const std::string& font_path, int pixel_size);
  ~TextPainter();
  TextPainter(const TextPainter&) = delete;
  TextPainter& operator=(const TextPainter&) = delete;

  // The advance of `utf8` in pixels (invalid bytes count as U+FFFD).
  int width(const std::string& utf8);
  // Pixels above the baseline a line needs (the font's ascender at this size).
  int ascent() const;
  // Draws `utf8` in `rgb` with its baseline starting at (x, y), left to right; `upward`
  // turns it a quarter anticlockwise, reading bottom to top (column labels). Pixels
  // outside the image are clipped.
  void draw(RgbImage* image, int x, int y, const std::string& utf8, const uint8_t rgb[3], bool upward = false);

 private:
  struct Face;
  explicit TextPainter(std::unique_ptr<Face> face);
  std::unique_ptr<Face> face_;
};

}  // namespace focal
