#include "raster_text.h"

#include <ft2build.h>
#include FT_FREETYPE_H

#include <utility>

namespace focal {

struct TextPainter::Face {
  FT_Library library = nullptr;
  FT_Face face = nullptr;
  ~Face() {
    if (face != nullptr) FT_Done_Face(face);
    if (library != nullptr) FT_Done_FreeType(library);
  }
};

namespace {

// The next code point of `text` at `*at` (advanced past it); U+FFFD for bytes that do
// not start a valid UTF-8 sequence (one byte is consumed).
uint32_t next_code_point(const std::string& text, size_t* at) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  const uint8_t lead = byte(*at);
  int length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || *at + size_t(length) > text.size()) {
    ++*at;
    return 0xFFFD;
  }
  uint32_t cp = length == 1 ? lead : lead & (0x7F >> length);
  for (int k = 1; k < length; ++k) {
    const uint8_t b = byte(*at + size_t(k));
    if ((b & 0xC0) != 0x80) {
      ++*at;
      return 0xFFFD;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  *at += size_t(length);
  return cp;
}

// Blends one glyph's 8-bit coverage bitmap into the image at (left, top), clipped.
void blend(RgbImage* image, const FT_Bitmap& bitmap, int left, int top, const uint8_t rgb[3]) {
  for (unsigned row = 0; row < bitmap.rows; ++row) {
    const int y = top + int(row);
    if (y < 0 || y >= image->height) continue;
    for (unsigned col = 0; col < bitmap.width; ++col) {
      const int x = left + int(col);
      if (x < 0 || x >= image->width) continue;
      const unsigned coverage = bitmap.buffer[long(row) * bitmap.pitch + long(col)];
      uint8_t* p = image->at(x, y);
      for (int c = 0; c < 3; ++c) p[c] = uint8_t((p[c] * (255 - coverage) + rgb[c] * coverage + 127) / 255);
    }
  }
}

}  // namespace

TextPainter::TextPainter(std::unique_ptr<Face> face) : face_(std::move(face)) {}
TextPainter::~TextPainter() = default;

Result<std::unique_ptr<TextPainter>> TextPainter::open(const std::string& font_path, int pixel_size) {
  auto face = std::make_unique<Face>();
  if (FT_Init_FreeType(&face->library) != 0) {
    return Status::error(StatusCode::kResourceExhausted, "FreeType could not start");
  }
  if (FT_New_Face(face->library, font_path.c_str(), 0, &face->face) != 0) {
    return Status::error(StatusCode::kIoError,
                         "no usable font at %s for the PNG's labels (Debian: fonts-dejavu-core); --svg needs none",
                         font_path.c_str());
  }
  if (FT_Set_Pixel_Sizes(face->face, 0, FT_UInt(pixel_size)) != 0) {
    return Status::error(StatusCode::kInvalidArgument, "the font at %s has no %d-pixel size", font_path.c_str(),
                         pixel_size);
  }
  return std::unique_ptr<TextPainter>(new TextPainter(std::move(face)));
}

int TextPainter::ascent() const { return int(face_->face->size->metrics.ascender >> 6); }

int TextPainter::width(const std::string& utf8) {
  FT_Set_Transform(face_->face, nullptr, nullptr);
  long advance = 0;  // 26.6 fixed point
  for (size_t at = 0; at < utf8.size();) {
    if (FT_Load_Char(face_->face, next_code_point(utf8, &at), FT_LOAD_DEFAULT) == 0) {
      advance += face_->face->glyph->advance.x;
    }
  }
  return int(advance >> 6);
}

void TextPainter::draw(RgbImage* image, int x, int y, const std::string& utf8, const uint8_t rgb[3], bool upward) {
  // A quarter turn anticlockwise in FreeType's y-up space: (x, y) -> (-y, x), 16.16 fixed point.
  FT_Matrix turn{0, -0x10000, 0x10000, 0};
  FT_Set_Transform(face_->face, upward ? &turn : nullptr, nullptr);
  long pen_x = long(x) << 6, pen_y = long(y) << 6;  // 26.6, image space (y down)
  for (size_t at = 0; at < utf8.size();) {
    if (FT_Load_Char(face_->face, next_code_point(utf8, &at), FT_LOAD_RENDER) != 0) continue;
    const FT_GlyphSlot glyph = face_->face->glyph;
    blend(image, glyph->bitmap, int(pen_x >> 6) + glyph->bitmap_left, int(pen_y >> 6) - glyph->bitmap_top, rgb);
    pen_x += glyph->advance.x;
    pen_y -= glyph->advance.y;  // FreeType's y points up
  }
  FT_Set_Transform(face_->face, nullptr, nullptr);
}

}  // namespace focal
