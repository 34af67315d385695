// focal convert (--preset NAME) --weights FILE [--weights FILE ...] [--config FILE.json]
//               [--dtype f32|f16|bf16|int8] [--embedding-dtype f32|f16|int8]
//               [--max-seq N] [--max-batch N] [--strict]
//               [--self-test DIR | --no-self-test] [--self-test-tolerance T] -o MODEL.focal
// Host builds only: the checkpoint readers need libzip and the checkpoints live there.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "cli/command_line.h"
#include "cli/commands.h"

#if FOCAL_HAVE_CONVERT
#include "convert.h"
#include "presets/preset.h"
#endif

namespace focal {
namespace cli {
namespace {

const char* kUsage =
    "usage: focal convert (--preset NAME | --spec FILE.json) --weights FILE [--weights FILE ...]\n"
    "                     [--config FILE.json] [--dtype f32|f16|bf16|int8] [--embedding-dtype f32|f16|int8]\n"
    "                     [--max-seq N] [--max-batch N] [--strict]\n"
    "                     [--self-test DIR | --no-self-test] [--self-test-tolerance T]\n"
    "                     [--tokenizer SPEC] [--target-tokenizer SPEC] -o MODEL.focal\n"
    "       focal convert --list-presets\n"
    "Reads checkpoints (.safetensors, torch.save .pt/.pth/.bin, .npz, .npy), maps them onto\n"
    "the preset's architecture (or the layers of a declarative spec, converter/README.md)\n"
    "and writes a verified .focal file. --dtype sets the storage\n"
    "of dense weights (int8: per-output-channel scales; norms and biases stay f32);\n"
    "--embedding-dtype that of token embedding tables (f16 halves them, int8 with one\n"
    "scale per row quarters them).\n"
    "--max-seq and --max-batch size the memory plan (and a decoder's KV cache).\n"
    "Every model stores a self-test that the converter runs on the written model and\n"
    "`focal verify` reruns on the device (|got - want| <= T + T |want|, T = 1e-4 by default):\n"
    "by default on generated inputs (batch 1, 8 positions) with expected outputs computed\n"
    "in double precision from the stored weights; --self-test DIR takes DIR/inputs/<input>.npy\n"
    "and DIR/expected/<output>.npy (computed in double when absent); --no-self-test: none.\n"
    "--tokenizer stores the tokenizer (a seq2seq model's source side; --target-tokenizer its\n"
    "output side): bpe:VOCAB.json:MERGES.txt (GPT-2) or chars:TOKENS.json[:KEY].\n";

#if FOCAL_HAVE_CONVERT
bool parse(int argc, char** argv, convert::ConvertOptions* o, std::string* out, bool* list) {
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--dtype" && has_value && !convert::parse_weight_dtype(argv[i + 1], &o->dtype)) {
      std::fprintf(stderr, "focal convert: unsupported --dtype '%s' (f32, f16, bf16 or int8)\n", argv[i + 1]);
      return false;
    }
    DType table_dtype = DType::kF32;
    if (arg == "--embedding-dtype" && has_value &&
        (!convert::parse_weight_dtype(argv[i + 1], &table_dtype) || table_dtype == DType::kBF16)) {
      std::fprintf(stderr, "focal convert: unsupported --embedding-dtype '%s' (f32, f16 or int8)\n", argv[i + 1]);
      return false;
    }
    if (arg == "--list-presets") {
      *list = true;
    } else if (arg == "--preset" && has_value) {
      o->preset = argv[++i];
    } else if (arg == "--spec" && has_value) {
      o->spec = argv[++i];
    } else if (arg == "--weights" && has_value) {
      o->weights.push_back(argv[++i]);
    } else if (arg == "--config" && has_value) {
      o->config = argv[++i];
    } else if (arg == "--dtype" && has_value) {
      if (!convert::parse_weight_dtype(argv[++i], &o->dtype)) return false;
    } else if (arg == "--embedding-dtype" && has_value) {
      convert::parse_weight_dtype(argv[++i], &o->embedding_dtype);  // checked above
    } else if (arg == "--max-seq" && has_value) {
      o->max_seq = std::atoll(argv[++i]);
    } else if (arg == "--max-batch" && has_value) {
      o->max_batch = std::atoll(argv[++i]);
    } else if (arg == "--self-test" && has_value) {
      o->self_test_dir = argv[++i];
    } else if (arg == "--no-self-test") {
      o->self_test = false;
    } else if (arg == "--self-test-tolerance" && has_value) {
      o->self_test_atol = o->self_test_rtol = static_cast<float>(std::atof(argv[++i]));
    } else if (arg == "--tokenizer" && has_value) {
      o->tokenizer = argv[++i];
    } else if (arg == "--target-tokenizer" && has_value) {
      o->target_tokenizer = argv[++i];
    } else if (arg == "--strict") {
      o->strict = true;
    } else if (arg == "-o" && has_value) {
      *out = argv[++i];
    } else {
      return false;
    }
  }
  return *list || ((!o->preset.empty() || !o->spec.empty()) && !out->empty());
}

void list_presets() {
  size_t count = 0;
  const convert::Preset* all = convert::presets(&count);
  for (size_t i = 0; i < count; ++i) std::printf("%-18s %s\n", all[i].name, all[i].description);
}
#endif

}  // namespace

int convert_command(int argc, char** argv) {
  if (printed_help(argc, argv, kUsage)) return 0;
#if FOCAL_HAVE_CONVERT
  convert::ConvertOptions options;
  std::string out;
  bool list = false;
  if (!parse(argc, argv, &options, &out, &list)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (list) {
    list_presets();
    return 0;
  }
  options.progress = [](const std::string& line) { std::fprintf(stderr, "focal convert: %s\n", line.c_str()); };
  auto converted = convert::convert_checkpoint(options);
  if (!converted.ok()) {
    std::fprintf(stderr, "focal convert: %s\n", converted.status().message());
    return 1;
  }
  for (const std::string& warning : converted->warnings) {
    std::fprintf(stderr, "focal convert: warning: %s\n", warning.c_str());
  }
  std::ofstream file(out, std::ios::binary);
  file.write(reinterpret_cast<const char*>(converted->bytes.data()),
             static_cast<std::streamsize>(converted->bytes.size()));
  if (!file.flush()) {
    std::fprintf(stderr, "focal convert: cannot write '%s'\n", out.c_str());
    return 1;
  }
  std::printf("wrote %s (%zu bytes)", out.c_str(), converted->bytes.size());
  if (converted->self_tests > 0) {
    std::printf(", self-test PASS (worst error %.2f of its tolerance)",
                static_cast<double>(converted->self_test_worst_ratio));
  }
  std::printf("\n");
  return 0;
#else
  (void)argc;
  std::fputs("focal convert: not part of this build (cross builds run models; convert on the host)\n",
             stderr);
  return 1;
#endif
}

}  // namespace cli
}  // namespace focal
