// focal convert (--preset NAME|auto | --spec FILE.json) --weights FILE [--weights FILE ...]
//               | --hf DIR [--preset NAME]
//               [--config FILE.json] [--set NAME=VALUE ...] [--rename FROM=TO ...]
//               [--dtype f32|f16|bf16|int8|int4] [--group-size G] [--embedding-dtype f32|f16|int8]
//               [--kv-dtype f32|f16|int8]
//               [--max-seq N] [--max-batch N] [--logits last|all] [--strict]
//               [--self-test DIR | --no-self-test] [--self-test-tolerance T]
//               [--activations f32|int8] [--keep-f32 auto|NAMES] [--keep-f32-threshold R]
//               [--calibration DIR] [--quantize static] [--fit ram=N,flash=N[,...]]
//               [--json] -o MODEL.focal
// Host builds only: the checkpoint readers need libzip and the checkpoints live there.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/commands.h"

#if FOCAL_HAVE_CONVERT
#include "atomic_file.h"
#endif

#if FOCAL_HAVE_CONVERT
#include <nlohmann/json.hpp>

#include "cli/convert_arguments.h"
#include "convert.h"
#include "presets/preset.h"
#endif

namespace focal {
namespace cli {
namespace {

const char* kUsage =
    "usage: focal convert (--preset NAME|auto | --spec FILE.json) --weights FILE [--weights FILE ...]\n"
    "                     [--config FILE.json] [--set NAME=VALUE ...] [--rename FROM=TO ...]\n"
    "                     [--dtype f32|f16|bf16|int8|int4] [--group-size G]\n"
    "                     [--embedding-dtype f32|f16|int8] [--kv-dtype f32|f16|int8]\n"
    "                     [--max-seq N] [--max-batch N] [--logits last|all] [--strict]\n"
    "                     [--self-test DIR | --no-self-test] [--self-test-tolerance T]\n"
    "                     [--tokenizer SPEC] [--target-tokenizer SPEC]\n"
    "                     [--activations f32|int8] [--keep-f32 auto|NAMES] [--keep-f32-threshold R]\n"
    "                     [--calibration DIR] [--quantize static] [--fit ram=N,flash=N[,...]]\n"
    "                     [--json] -o MODEL.focal\n"
    "       focal convert --hf DIR [--preset NAME] [options as above] -o MODEL.focal\n"
    "       focal convert --list-presets\n"
    "Reads checkpoints (.safetensors, torch.save .pt/.pth/.bin, .npz, .npy, Keras .h5 and\n"
    "Keras 3 .keras), maps them onto the preset's architecture (or the layers of a\n"
    "declarative spec, converter/README.md) and writes a verified .focal file.\n"
    "--preset auto picks the preset from config.json\n"
    "(model_type, architectures) or the tensor names. --set NAME=VALUE gives a config value\n"
    "(over --config; a number, true, false or null, else a string; a spec's symbols with\n"
    "--spec). --rename FROM=TO rewrites tensor names by a regular expression (ECMAScript,\n"
    "$1 for groups; the first matching rule wins). --logits all gives a decoder's logits at\n"
    "every position [batch, seq, vocab] (default last: [batch, vocab]). --dtype sets the storage\n"
    "of dense weights (int8: per-output-channel scales; int4: one f16 scale per output and\n"
    "group of G = 32, 64 or 128 inputs (--group-size, default 32), input rows quantized to\n"
    "int8 at run time; norms and biases stay f32);\n"
    "--embedding-dtype that of token embedding tables (f16 halves them, int8 with one\n"
    "scale per row quarters them); --kv-dtype that of a decoder's KV caches (f16 halves\n"
    "them; int8, one scale per token and kv head, quarters them, plus the scales).\n"
    "--activations int8 (with --dtype int8) quantizes each dense layer's input rows to int8\n"
    "at run time and multiplies on the integer dot-product instructions. Each layer's output\n"
    "error against f32 activations is measured first on --calibration DIR (one .json per\n"
    "case: {\"INPUT\": [ids...], ...}) or the generated self-test inputs and printed as a\n"
    "table (--json: one JSON object); --keep-f32 keeps layers in weight-only int8 (f32\n"
    "activations): auto, those whose relative RMS error exceeds R (--keep-f32-threshold,\n"
    "default 0.02), and/or a comma list of weight names.\n"
    "--quantize static (microcontrollers; Embedding -> LSTM -> AttentionPool -> Dense\n"
    "classifiers): int8 weights and int8 activations with scales and zero points calibrated\n"
    "in double precision on --calibration DIR (or the self-test inputs), fixed-point\n"
    "requantization, no float until the logits; its self-test checks its own outputs bit\n"
    "for bit.\n"
    "--fit ram=64K,flash=256K (microcontrollers) converts in each choice (f32, int8 weights,\n"
    "int8 weights and table, int4 weights with an int8 table, static int8), measures\n"
    "each one's error on the self-test and --calibration cases, and keeps the most accurate\n"
    "whose RAM (arena + stack + data) and flash (model + engine + app) fit the part, then\n"
    "puts dense layers of quantized weights back in f32 while the part has room and the\n"
    "error goes down; it prints the table, or names the nearest miss. Reserves, K = KiB:\n"
    "stack=8K data=1K engine=64K app=16K, int4=no (yes when the firmware's engine has\n"
    "FOCAL_INT4_WEIGHTS).\n"
    "--max-seq and --max-batch size the memory plan (and a decoder's KV cache).\n"
    "Every model stores a self-test that the converter runs on the written model and\n"
    "`focal verify` reruns on the device (|got - want| <= T + T |want|, T = 1e-4 by default):\n"
    "by default on generated inputs (batch 1, 8 positions) with expected outputs computed\n"
    "in double precision from the stored weights; --self-test DIR takes DIR/inputs/<input>.npy\n"
    "and DIR/expected/<output>.npy (computed in double when absent); --no-self-test: none.\n"
    "--tokenizer stores the tokenizer (a seq2seq model's source side; --target-tokenizer its\n"
    "output side): bpe:VOCAB.json:MERGES.txt (GPT-2), unigram:SPM.vocab[:VOCAB.json]\n"
    "(SentencePiece; with Marian's joint vocab.json) or chars:TOKENS.json[:KEY].\n"
    "--hf DIR reads a Hugging Face folder as downloaded: config.json (the preset from its\n"
    "model_type or architectures), model.safetensors, its sharded index or pytorch_model.bin,\n"
    "the tokenizer files, generation_config.json (the ids focal generate then defaults to)\n"
    "and a sentence-transformers pipeline (modules.json: output sentence_embedding).\n";

#if FOCAL_HAVE_CONVERT
constexpr int64_t kMaxBatch = 1 << 16;  // --max-batch

struct Options {
  convert::ConvertOptions convert;
  std::string output;
  bool list = false;
  bool json = false;  // the result (and the accuracy table) as one JSON object on stdout
};

Status unsupported_value(const char* option, const char* value, const char* allowed) {
  return Status::error(StatusCode::kInvalidArgument, "unsupported %s '%s' (%s)", option, printable(value).c_str(),
                       allowed);
}

// `option` f32|f16|int8 into *dtype; false when the current argument is not `option`.
bool parse_storage_dtype(Arguments& args, const char* option, DType* dtype) {
  const char* value = nullptr;
  if (!args.text(option, &value)) return false;
  DType parsed = DType::kF32;
  if (value != nullptr &&
      (!convert::parse_weight_dtype(value, &parsed) || parsed == DType::kBF16 || parsed == DType::kI4)) {
    args.fail(unsupported_value(option, value, "f32, f16 or int8"));
  }
  *dtype = parsed;
  return true;
}

// --dtype, --embedding-dtype, --kv-dtype and --group-size (bf16 and int4 are for dense
// weights only); false when the current argument is none of them.
bool parse_dtypes(Arguments& args, convert::ConvertOptions* o) {
  const char* value = nullptr;
  if (args.text("--dtype", &value)) {
    if (value != nullptr && !convert::parse_weight_dtype(value, &o->dtype)) {
      args.fail(unsupported_value("--dtype", value, "f32, f16, bf16, int8 or int4"));
    }
    return true;
  }
  return parse_storage_dtype(args, "--embedding-dtype", &o->embedding_dtype) ||
         parse_storage_dtype(args, "--kv-dtype", &o->kv_dtype) ||
         args.integer("--group-size", 1, 1 << 16, &o->group_size);
}

// --activations, --keep-f32, --keep-f32-threshold, --calibration and --fit; false when the
// current argument is none of them.
bool parse_int8_options(Arguments& args, convert::ConvertOptions* o) {
  std::string value;
  if (args.text("--quantize", &value)) {
    if (args.status().ok() && value != "static") args.fail(unsupported_value("--quantize", value.c_str(), "static"));
    o->quantize_static = value == "static";
    return true;
  }
  if (args.text("--activations", &value)) {
    if (args.status().ok() && value != "f32" && value != "int8") {
      args.fail(unsupported_value("--activations", value.c_str(), "f32 or int8"));
    }
    o->int8_activations = value == "int8";
    return true;
  }
  return args.text("--keep-f32", &o->keep_f32) || args.text("--calibration", &o->calibration_dir) ||
         args.text("--fit", &o->fit) ||
         args.real("--keep-f32-threshold", 0.0, 1e6, &o->keep_threshold, LowerBound::kExclusive);
}

// Every option but -o, which only the command needs (focal.convert returns the bytes).
Status parse_options(int argc, char** argv, Options* options) {
  convert::ConvertOptions* o = &options->convert;
  Arguments args(argc, argv);
  while (args.more()) {
    std::string weights;  // the value of --weights, --set, --rename or --logits
    float tolerance = 0.0f;
    if (args.flag("--list-presets")) {
      options->list = true;
    } else if (args.text("--preset", &o->preset) || args.text("--spec", &o->spec) ||
               args.text("--config", &o->config) || args.text("--self-test", &o->self_test_dir) ||
               args.text("--hf", &o->hf_dir) ||
               args.text("--tokenizer", &o->tokenizer) || args.text("--target-tokenizer", &o->target_tokenizer) ||
               args.text("-o", &options->output)) {
    } else if (args.text("--weights", &weights)) {
      if (!weights.empty()) o->weights.push_back(weights);
    } else if (args.text("--set", &weights)) {
      o->overrides.push_back(weights);
    } else if (args.text("--rename", &weights)) {
      o->renames.push_back(weights);
    } else if (args.text("--logits", &weights)) {
      if (args.status().ok() && weights != "last" && weights != "all") args.fail(unsupported_value("--logits", weights.c_str(), "last or all"));
      o->logits_all = weights == "all";
    } else if (args.integer("--max-seq", 1, kMaxTokens, &o->max_seq) ||
               args.integer("--max-batch", 1, kMaxBatch, &o->max_batch)) {
    } else if (args.real("--self-test-tolerance", 0.0, 1.0, &tolerance, LowerBound::kExclusive)) {
      o->self_test_atol = o->self_test_rtol = tolerance;
    } else if (args.flag("--no-self-test")) {
      o->self_test = false;
    } else if (args.flag("--strict")) {
      o->strict = true;
    } else if (args.flag("--json")) {
      options->json = true;
    } else if (!parse_dtypes(args, o) && !parse_int8_options(args, o)) {
      args.refuse_current();
    }
  }
  if (!args.status().ok()) return args.status();
  if (options->list) return Status();
  if (o->preset.empty() && o->spec.empty() && o->hf_dir.empty()) return missing_argument("--preset, --spec or --hf");
  return Status();
}

Status parse(int argc, char** argv, Options* options) {
  FOCAL_RETURN_IF_ERROR(parse_options(argc, argv, options));
  if (!options->list && options->output.empty()) return missing_argument("-o MODEL.focal");
  return Status();
}

// Every file the conversion reads: checkpoints, config, spec, and each part of a
// tokenizer spec ("bpe:vocab.json:merges.txt") that names a file.
std::vector<std::string> input_files(const convert::ConvertOptions& o) {
  std::vector<std::string> files = o.weights;
  for (const std::string* path : {&o.config, &o.spec}) {
    if (!path->empty()) files.push_back(*path);
  }
  for (const std::string* tokenizer : {&o.tokenizer, &o.target_tokenizer}) {
    std::stringstream parts(*tokenizer);
    std::string part;
    while (std::getline(parts, part, ':')) files.push_back(part);
  }
  return files;
}

// The accuracy table (int8 activations), the fit table (--fit), then "wrote FILE (N
// bytes), self-test PASS ...".
void print_summary(const std::string& out, const convert::Converted& converted) {
  if (!converted.accuracy.layers.empty()) std::fputs(terminal_text(convert::accuracy_table(converted.accuracy)).c_str(), stdout);
  if (!converted.fit.choices.empty()) std::fputs(terminal_text(convert::fit_table(converted.fit)).c_str(), stdout);
  std::printf("wrote %s (%zu bytes)", out.c_str(), converted.bytes.size());
  if (converted.self_tests > 0) {
    std::printf(", self-test PASS (worst error %.2f of its tolerance)",
                static_cast<double>(converted.self_test_worst_ratio));
  }
  std::printf("\n");
}

// {"output", "bytes", "self_tests", "self_test_worst_ratio", "int8_activations": the
// accuracy report or null, "fit": the fit report or null}.
void print_json(const std::string& out, const convert::Converted& converted) {
  nlohmann::json json = {{"output", out},
                         {"bytes", converted.bytes.size()},
                         {"self_tests", converted.self_tests},
                         {"self_test_worst_ratio", converted.self_test_worst_ratio}};
  json["int8_activations"] = converted.accuracy.layers.empty() ? nlohmann::json() : accuracy_json(converted.accuracy);
  json["fit"] = converted.fit.choices.empty() ? nlohmann::json() : fit_json(converted.fit);
  std::printf("%s\n", json.dump(2, ' ', /*ensure_ascii=*/true, nlohmann::json::error_handler_t::replace).c_str());
}

void list_presets() {
  size_t count = 0;
  const convert::Preset* all = convert::presets(&count);
  int width = 0;  // the longest name, so the descriptions line up
  for (size_t i = 0; i < count; ++i) width = std::max(width, static_cast<int>(std::strlen(all[i].name)));
  for (size_t i = 0; i < count; ++i) std::printf("%-*s  %s\n", width, all[i].name, all[i].description);
}
#endif

}  // namespace

#if FOCAL_HAVE_CONVERT
Status parse_convert_arguments(int argc, char** argv, convert::ConvertOptions* options, std::string* output) {
  Options parsed;
  FOCAL_RETURN_IF_ERROR(parse_options(argc, argv, &parsed));
  if (parsed.list || parsed.json) {
    return Status::error(StatusCode::kInvalidArgument, "--list-presets and --json belong to the command line");
  }
  *options = std::move(parsed.convert);
  *output = std::move(parsed.output);
  return Status();
}

Result<convert::Converted> convert_and_write(const convert::ConvertOptions& options, const std::string& output) {
  // -o naming an input (by device and inode: another spelling or a hard link too) would
  // replace it with the model: refused before converting.
  if (!output.empty()) FOCAL_RETURN_IF_ERROR(check_output_is_not_an_input(output, input_files(options)));
  auto converted = convert::convert_checkpoint(options);
  if (!converted.ok() || output.empty()) return converted;
  FOCAL_RETURN_IF_ERROR(write_file_atomically(output, converted->bytes.data(), converted->bytes.size()));
  return converted;
}
#endif

int convert_command(int argc, char** argv) {
#if FOCAL_HAVE_CONVERT
  Options parsed;
  if (const int exit_code = parse_command_line("convert", argc, argv, kUsage, parse, &parsed); exit_code >= 0) {
    return exit_code;
  }
  if (parsed.list) {
    list_presets();
    return 0;
  }
  convert::ConvertOptions& options = parsed.convert;
  const std::string& out = parsed.output;
  options.progress = [](const std::string& line) {
    std::fprintf(stderr, "focal convert: %s\n", terminal_text(line).c_str());
  };
  auto converted = convert_and_write(options, out);
  if (!converted.ok()) return report_failure("convert", converted.status());
  for (const std::string& warning : converted->warnings) {
    std::fprintf(stderr, "focal convert: warning: %s\n", terminal_text(warning).c_str());
  }
  if (parsed.json) {
    print_json(out, converted.value());
  } else {
    print_summary(out, converted.value());
  }
  return 0;
#else
  if (printed_help(argc, argv, kUsage)) return 0;
  std::fputs("focal convert: not part of this build (cross builds run models; convert on the host)\n",
             stderr);
  return 1;
#endif
}

}  // namespace cli
}  // namespace focal
