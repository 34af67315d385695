// The AMX int8 GEMM variant (Intel AMX-TILE + AMX-INT8, Sapphire Rapids and later):
// tdpbusd multiplies a tile of 16 rows x 64 unsigned activation bytes by a tile of 16 x 4
// k x 16 outputs of signed weight bytes into 16 x 16 int32 sums, 16384 multiply-adds per
// instruction where vpdpbusd does 64. Rows are stored as q + 128 (u8), as for VNNI (the
// driver subtracts 128 * column sum); the sums are exact (|sum| <= 2^16 * 255 * 128 < 2^31).
//
// The packed panel (8 k of each of 32 outputs per 256-byte group) is not the weight
// tile's layout (4 k of 16 outputs per 64-byte row), so each task repacks a panel once,
// a chunk of K at a time, into a stack buffer (two permutes per 64 bytes), and every
// 32-row tile of the task reads it from L1. K not a multiple of 64 and the rows past the
// last full 16 run on the AVX-512 VNNI variant (the CPU has it: dispatch/qgemm_dispatch.cpp).
#include <immintrin.h>

#include <cstring>

#include "qgemm/qgemm_avx512_store.hpp"
#include "qgemm/qgemm_driver.hpp"

namespace focal {
namespace kernels {

const QGemmKernelTable* qgemm_avx512vnni_kernels();

namespace {

constexpr size_t kAmxRows = 16;            // rows of an activation tile
constexpr size_t kAmxBlockGroups = 8;      // 64 k: one tdpbusd's depth
constexpr size_t kAmxRowBytes = 64;        // bytes of a tile row
constexpr size_t kAmxChunkGroups = 128;    // K repacked at a time: 1024 k, 32 KiB of weights
constexpr size_t kAmxChunkQuads = 2 * kAmxChunkGroups;  // weight-tile rows (4 k each) per half
// Rows of a task the accumulators hold: the dispatch's row block (tile_rows * 8 tiles).
constexpr size_t kAmxTaskRows = kAmxRows * 8;

// Tiles: 0..3 the sums (rows 0-15 x outputs 0-15, rows 0-15 x 16-31, rows 16-31 x 0-15,
// rows 16-31 x 16-31), 4 and 5 the two activation tiles, 6 and 7 the panel's two halves;
// all 16 rows of 64 bytes. The layout of LDTILECFG's 64-byte operand (palette 1).
struct TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t bytes_per_row[16] = {};
  uint8_t rows[16] = {};
};

void configure_tiles() {
  TileConfig config;
  for (int t = 0; t < 8; ++t) {
    config.bytes_per_row[t] = kAmxRowBytes;
    config.rows[t] = kAmxRows;
  }
  _tile_loadconfig(&config);
}

// Groups [g0, g0 + count) of a panel as the weight tiles read them: half h (outputs
// 16h..16h+15) at b + h * kAmxChunkQuads * 64, one 64-byte row per 4 k (row 2g: k 8g..8g+3
// of the 16 outputs, row 2g + 1: k 8g+4..8g+7), groups counted from g0. A panel group's
// zmm v holds outputs 8v..8v+7 as (k 0..3, k 4..7) dword pairs: the even dwords of two
// of them are one row, the odd dwords the next.
void repack_panel(const int8_t* panel, size_t g0, size_t count, int8_t* b) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  int8_t* half1 = b + kAmxChunkQuads * kAmxRowBytes;
  for (size_t g = 0; g < count; ++g) {
    const int8_t* wg = panel + (g0 + g) * kQGemmPanelGroupBytes;
    const __m512i w0 = _mm512_loadu_si512(wg), w1 = _mm512_loadu_si512(wg + 64);
    const __m512i w2 = _mm512_loadu_si512(wg + 128), w3 = _mm512_loadu_si512(wg + 192);
    int8_t* row0 = b + 2 * g * kAmxRowBytes;
    int8_t* row1 = half1 + 2 * g * kAmxRowBytes;
    _mm512_store_si512(row0, _mm512_permutex2var_epi32(w0, even, w1));
    _mm512_store_si512(row0 + kAmxRowBytes, _mm512_permutex2var_epi32(w0, odd, w1));
    _mm512_store_si512(row1, _mm512_permutex2var_epi32(w2, even, w3));
    _mm512_store_si512(row1 + kAmxRowBytes, _mm512_permutex2var_epi32(w2, odd, w3));
  }
}

// The sums of kTiles (1 or 2) x 16 rows against a repacked chunk of `count` groups (a
// multiple of 8), added to sum tiles 0..(2 kTiles - 1) (the caller zeroes or loads them).
// a: the first row at the chunk's first k; s: its row stride in bytes.
template <int kTiles>
void accumulate_chunk(const uint8_t* a, size_t s, const int8_t* b, size_t count) {
  const int8_t* half1 = b + kAmxChunkQuads * kAmxRowBytes;
  for (size_t g = 0; g < count; g += kAmxBlockGroups) {
    const size_t at = g * kQGemmGroup;      // k within the chunk
    const size_t row = 2 * g * kAmxRowBytes; // weight-tile row of that k
    _tile_loadd(4, a + at, s);
    _tile_loadd(6, b + row, kAmxRowBytes);
    _tile_loadd(7, half1 + row, kAmxRowBytes);
    _tile_dpbusd(0, 4, 6);
    _tile_dpbusd(1, 4, 7);
    if constexpr (kTiles == 2) {
      _tile_loadd(5, a + 16 * s + at, s);
      _tile_dpbusd(2, 5, 6);
      _tile_dpbusd(3, 5, 7);
    }
  }
}

// Sum tiles to or from c [rows][32] (128 bytes a row).
constexpr size_t kSumStride = kGemmPanel * sizeof(int32_t);

template <int kTiles>
void zero_sums() {
  _tile_zero(0);
  _tile_zero(1);
  if constexpr (kTiles == 2) {
    _tile_zero(2);
    _tile_zero(3);
  }
}

template <int kTiles>
void load_sums(const int32_t* c) {
  _tile_loadd(0, c, kSumStride);
  _tile_loadd(1, c + 16, kSumStride);
  if constexpr (kTiles == 2) {
    _tile_loadd(2, c + 16 * kGemmPanel, kSumStride);
    _tile_loadd(3, c + 16 * kGemmPanel + 16, kSumStride);
  }
}

template <int kTiles>
void store_sums(int32_t* c) {
  _tile_stored(0, c, kSumStride);
  _tile_stored(1, c + 16, kSumStride);
  if constexpr (kTiles == 2) {
    _tile_stored(2, c + 16 * kGemmPanel, kSumStride);
    _tile_stored(3, c + 16 * kGemmPanel + 16, kSumStride);
  }
}

// A repacked chunk's sums for rows [0, rows) of a task (rows a multiple of 16), into c
// [rows][32]: the first chunk starts them, later ones add to them.
void chunk_sums(const uint8_t* a, size_t s, size_t rows, const int8_t* b, size_t g0, size_t count,
                int32_t* c) {
  const uint8_t* a_chunk = a + g0 * kQGemmGroup;
  size_t r = 0;
  for (; r + 2 * kAmxRows <= rows; r += 2 * kAmxRows) {
    int32_t* cr = c + r * kGemmPanel;
    if (g0 == 0) zero_sums<2>(); else load_sums<2>(cr);
    accumulate_chunk<2>(a_chunk + r * s, s, b, count);
    store_sums<2>(cr);
  }
  if (r < rows) {
    int32_t* cr = c + r * kGemmPanel;
    if (g0 == 0) zero_sums<1>(); else load_sums<1>(cr);
    accumulate_chunk<1>(a_chunk + r * s, s, b, count);
    store_sums<1>(cr);
  }
}

// A panel's sums for `rows` (a multiple of 16) rows into c [rows][32], chunk by chunk.
void panel_sums(const uint8_t* a, size_t s, size_t rows, const int8_t* panel, size_t groups,
                int32_t* c) {
  alignas(64) int8_t b[2 * kAmxChunkQuads * kAmxRowBytes];
  for (size_t g0 = 0; g0 < groups; g0 += kAmxChunkGroups) {
    const size_t count = groups - g0 < kAmxChunkGroups ? groups - g0 : kAmxChunkGroups;
    repack_panel(panel, g0, count, b);
    chunk_sums(a, s, rows, b, g0, count, c);
  }
}

bool amx_fits(size_t groups) { return groups % kAmxBlockGroups == 0; }

struct AmxMicro {
  static constexpr size_t kTileRows = kAmxRows;
  static constexpr uint8_t kOffset = 128;  // as the VNNI variant, whose rows and tiles serve here

  // The variant's tile for the tests: 16 rows on AMX where K allows; else VNNI's tile,
  // its own height at a time.
  static void tile(const uint8_t* a, size_t a_stride, size_t rows, const int8_t* panel, size_t groups,
                   int32_t* c) {
    if (rows == kAmxRows && amx_fits(groups)) {
      configure_tiles();
      panel_sums(a, a_stride, rows, panel, groups, c);
      _tile_release();
      return;
    }
    const QGemmKernelTable& vnni = *qgemm_avx512vnni_kernels();
    for (size_t r = 0; r < rows; r += vnni.tile_rows) {
      const size_t n = rows - r < vnni.tile_rows ? rows - r : vnni.tile_rows;
      vnni.tile(a + r * a_stride, a_stride, n, panel, groups, c + r * kGemmPanel);
    }
  }

  static void store_output_row(const int32_t* c, const int32_t* sums, int32_t offset, float scale, float* y,
                        size_t cols) {
    store_row_avx512(c, sums, offset, scale, y, cols);
  }

  static void quantize_rows(const QGemmProblem& p, size_t row_begin, size_t row_end) {
    qgemm_avx512vnni_kernels()->quantize(p, row_begin, row_end);
  }

  // A task: each panel repacked once for all its rows' AMX tiles; the rows past the last
  // full 16 on VNNI's tile. Tasks taller than kAmxTaskRows (not made by the dispatch)
  // and K not a multiple of 64 run wholly on VNNI.
  static void run_task(const QGemmProblem& p, const GemmTask& t, const GemmKernelTable& epilogue) {
    const QGemmKernelTable& vnni = *qgemm_avx512vnni_kernels();
    const size_t rows = t.row_end - t.row_begin;
    const size_t amx_rows = rows / kAmxRows * kAmxRows;
    if (amx_rows == 0 || rows > kAmxTaskRows || !amx_fits(p.groups)) {
      vnni.run_task(p, t, epilogue);
      return;
    }
    alignas(64) int32_t c[kAmxTaskRows * kGemmPanel];
    const uint8_t* a = p.a + t.row_begin * p.a_stride;
    configure_tiles();
    for (size_t panel = t.panel_begin; panel < t.panel_end; ++panel) {
      const int8_t* w = p.weights + panel * p.groups * kQGemmPanelGroupBytes;
      panel_sums(a, p.a_stride, amx_rows, w, p.groups, c);
      for (size_t r = amx_rows; r < rows; r += vnni.tile_rows) {
        const size_t n = rows - r < vnni.tile_rows ? rows - r : vnni.tile_rows;
        vnni.tile(a + r * p.a_stride, p.a_stride, n, w, p.groups, c + r * kGemmPanel);
      }
      QGemmDriver<AmxMicro>::store_tile(p, c, t.row_begin, rows, panel);
    }
    _tile_release();
    const size_t n1 = t.panel_end * kGemmPanel < p.gemm.n ? t.panel_end * kGemmPanel : p.gemm.n;
    epilogue.epilogue(p.gemm, t.row_begin, t.row_end, t.panel_begin * kGemmPanel, n1);
  }
};

constexpr QGemmKernelTable kAmxQGemm{"amx", AmxMicro::kOffset, AmxMicro::kTileRows, AmxMicro::tile,
                                     AmxMicro::quantize_rows, AmxMicro::run_task};

}  // namespace

const QGemmKernelTable* qgemm_amx_kernels() { return &kAmxQGemm; }

}  // namespace kernels
}  // namespace focal
