#include "support/format_message.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace focal {
namespace {

// Appends to a fixed buffer, cutting what does not fit and keeping room for the NUL.
class Output {
 public:
  Output(char* out, size_t size) : out_(out), size_(size) {}
  void put(char c) {
    if (length_ + 1 < size_) out_[length_++] = c;
  }
  void put(char c, size_t count) {
    for (size_t i = 0; i < count; ++i) put(c);
  }
  // The rest of the buffer, for a C library call that writes in place.
  char* tail() { return out_ + length_; }
  size_t room() const { return size_ - length_; }
  void advance(int written) {
    if (written > 0) length_ += static_cast<size_t>(written) < room() ? static_cast<size_t>(written) : room() - 1;
  }
  void finish() { out_[length_] = '\0'; }

 private:
  char* out_;
  size_t size_;
  size_t length_ = 0;
};

// One conversion: %[flags][width][.precision][length]conversion.
struct Spec {
  bool left = false, plus = false, space = false, zero = false, alternate = false;
  int width = 0;
  int precision = -1;   // -1: none given
  char length[3] = {};  // "", "hh", "h", "l", "ll", "z", "j", "t", "L"
  char conversion = 0;
};

const char* parse_spec(const char* p, va_list* args, Spec* s) {
  for (;; ++p) {
    if (*p == '-') s->left = true;
    else if (*p == '+') s->plus = true;
    else if (*p == ' ') s->space = true;
    else if (*p == '0') s->zero = true;
    else if (*p == '#') s->alternate = true;
    else break;
  }
  if (*p == '*') {
    s->width = va_arg(*args, int);
    if (s->width < 0) {
      s->left = true;
      s->width = -s->width;
    }
    ++p;
  } else {
    while (*p >= '0' && *p <= '9') s->width = s->width * 10 + (*p++ - '0');
  }
  if (*p == '.') {
    ++p;
    s->precision = 0;
    if (*p == '*') {
      s->precision = va_arg(*args, int);
      ++p;
    } else {
      while (*p >= '0' && *p <= '9') s->precision = s->precision * 10 + (*p++ - '0');
    }
  }
  size_t n = 0;
  while (n < 2 && *p != '\0' && std::strchr("hlzjtL", *p) != nullptr && (n == 0 || *p == s->length[0])) {
    s->length[n++] = *p++;
  }
  s->conversion = *p;
  return *p != '\0' ? p + 1 : p;
}

bool has_length(const Spec& s, const char* length) { return std::strcmp(s.length, length) == 0; }

// The signed argument as its length modifier says it was passed (promotions included).
intmax_t signed_argument(const Spec& s, va_list* args) {
  if (has_length(s, "ll")) return va_arg(*args, long long);
  if (has_length(s, "l")) return va_arg(*args, long);
  if (has_length(s, "z") || has_length(s, "t")) return va_arg(*args, ptrdiff_t);
  if (has_length(s, "j")) return va_arg(*args, intmax_t);
  const int value = va_arg(*args, int);
  if (has_length(s, "hh")) return static_cast<signed char>(value);
  if (has_length(s, "h")) return static_cast<short>(value);
  return value;
}

uintmax_t unsigned_argument(const Spec& s, va_list* args) {
  if (has_length(s, "ll")) return va_arg(*args, unsigned long long);
  if (has_length(s, "l")) return va_arg(*args, unsigned long);
  if (has_length(s, "z") || has_length(s, "t")) return va_arg(*args, size_t);
  if (has_length(s, "j")) return va_arg(*args, uintmax_t);
  const unsigned value = va_arg(*args, unsigned);
  if (has_length(s, "hh")) return static_cast<unsigned char>(value);
  if (has_length(s, "h")) return static_cast<unsigned short>(value);
  return value;
}

// An integer as printf would: sign, precision as minimum digits, width by spaces or zeros
// (the '#' flag's 0x and leading 0 are not written: no engine message uses them).
void put_integer(Output& out, const Spec& s, bool negative, uintmax_t magnitude) {
  const unsigned base = s.conversion == 'o' ? 8 : (s.conversion == 'x' || s.conversion == 'X') ? 16 : 10;
  const char* digit_chars = s.conversion == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
  char digits[32];  // 2^64 - 1 has 22 octal digits
  size_t count = 0;
  for (uintmax_t v = magnitude; v != 0; v /= base) digits[count++] = digit_chars[v % base];
  const size_t min_digits = s.precision >= 0 ? static_cast<size_t>(s.precision) : 1;
  const size_t zeros = count < min_digits ? min_digits - count : 0;
  const bool is_signed = s.conversion == 'd' || s.conversion == 'i';  // + and space: signed only
  const char sign = negative ? '-' : !is_signed ? '\0' : s.plus ? '+' : s.space ? ' ' : '\0';
  const size_t body = (sign != 0 ? 1 : 0) + zeros + count;
  const size_t pad = static_cast<size_t>(s.width) > body ? static_cast<size_t>(s.width) - body : 0;
  const bool zero_pad = s.zero && !s.left && s.precision < 0;
  if (!s.left && !zero_pad) out.put(' ', pad);
  if (sign != 0) out.put(sign);
  if (zero_pad) out.put('0', pad);
  out.put('0', zeros);
  while (count > 0) out.put(digits[--count]);
  if (s.left) out.put(' ', pad);
}

// The conversion rebuilt for the C library without its length modifier, width and
// precision written as numbers: "%-8.3s", "%g" (only %s %c %p %e %f %g %a and variants).
void library_format(const Spec& s, char* format, size_t size) {
  size_t n = 0;
  const auto append = [&](const char* text) {
    for (; *text != '\0' && n + 1 < size; ++text) format[n++] = *text;
  };
  append("%");
  if (s.left) append("-");
  if (s.plus) append("+");
  if (s.space) append(" ");
  if (s.zero && s.conversion != 's' && s.conversion != 'c' && s.conversion != 'p') append("0");
  if (s.alternate) append("#");
  char number[16];  // "." and an int's at most 11 characters: never truncated
  if (s.width > 0) {
    (void)snprintf(number, sizeof(number), "%d", s.width);
    append(number);
  }
  if (s.precision >= 0) {
    (void)snprintf(number, sizeof(number), ".%d", s.precision);
    append(number);
  }
  const char conversion[2] = {s.conversion, '\0'};
  append(conversion);
  format[n] = '\0';
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"  // the format is library_format's
int library_conversion(Output& out, const Spec& s, va_list* args) {
  char format[40];
  library_format(s, format, sizeof(format));
  switch (s.conversion) {
    case 's':  // NOLINT(bugprone-branch-clone): each case reads its own type with va_arg
      return snprintf(out.tail(), out.room(), format, va_arg(*args, const char*));
    case 'c':
      return snprintf(out.tail(), out.room(), format, va_arg(*args, int));
    case 'p':
      return snprintf(out.tail(), out.room(), format, va_arg(*args, void*));
    default:
      if (has_length(s, "L")) {
        return snprintf(out.tail(), out.room(), format, static_cast<double>(va_arg(*args, long double)));
      }
      return snprintf(out.tail(), out.room(), format, va_arg(*args, double));
  }
}
#pragma GCC diagnostic pop

}  // namespace

void format_message(char* out, size_t size, const char* format, va_list args) {
  if (size == 0) return;
  Output output(out, size);
  va_list rest;
  va_copy(rest, args);
  for (const char* p = format; *p != '\0';) {
    if (*p != '%') {
      output.put(*p++);
      continue;
    }
    Spec s;
    p = parse_spec(p + 1, &rest, &s);
    const char c = s.conversion;
    if (c == '%') {
      output.put('%');
    } else if (c == 'd' || c == 'i') {
      const intmax_t v = signed_argument(s, &rest);
      put_integer(output, s, v < 0, v < 0 ? uintmax_t(0) - static_cast<uintmax_t>(v) : static_cast<uintmax_t>(v));
    } else if (c == 'u' || c == 'x' || c == 'X' || c == 'o') {
      put_integer(output, s, false, unsigned_argument(s, &rest));
    } else if (c != 0 && std::strchr("scpeEfFgGaA", c) != nullptr) {
      output.advance(library_conversion(output, s, &rest));
    } else {
      break;  // unknown conversion (or a lone % at the end): the arguments' types are unknown
    }
  }
  va_end(rest);
  output.finish();
}

}  // namespace focal
