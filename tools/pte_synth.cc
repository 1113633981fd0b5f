// pte-synth: writes realistic synthetic ExecuTorch programs (.pte) for tests
// and benchmarks, laid out the way the exporter lays them out.
//
//   pte-synth llm [--layers N --heads H --head-dim D --max-seq S ...] -o x.pte
//   pte-synth cnn [--layers N --channels C --size HxW ...] -o y.pte
//
// Exit status: 0 written; 2 bad usage or a setting that cannot be built;
// 1 the file could not be written.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <string>

#include "tools/synth/program_builder.h"
#include "tools/synth/synth_cnn.h"
#include "tools/synth/synth_llm.h"

namespace {

using pteshare::Result;
using pteshare::synth::ProgramSpec;

constexpr int kExitWriteFailed = 1;
constexpr int kExitUsage = 2;

/// Parses "HxW" (e.g. 32x48) into the two sizes.
Result<std::pair<int32_t, int32_t>> ParseSize(const std::string& text) {
  size_t x = text.find('x');
  try {
    if (x != std::string::npos) {
      size_t used_h = 0, used_w = 0;
      int h = std::stoi(text.substr(0, x), &used_h);
      int w = std::stoi(text.substr(x + 1), &used_w);
      if (used_h == x && used_w == text.size() - x - 1) return std::make_pair(h, w);
    }
  } catch (const std::exception&) {
  }
  return pteshare::Error{"--size '" + text + "' is not HxW (e.g. 32x32)"};
}

int Fail(int status, const std::string& message) {
  std::cerr << "pte-synth: " << message << "\n";
  return status;
}

int Write(const Result<ProgramSpec>& spec, pteshare::synth::BuildOptions options,
          const std::string& out) {
  if (!spec.ok()) return Fail(kExitUsage, spec.error().message);
  auto layout = pteshare::synth::WritePteFile(*spec, options, out);
  if (!layout.ok()) {
    std::remove(out.c_str());  // never leave a half-written file behind
    return Fail(kExitWriteFailed, layout.error().message);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "pte-synth: write synthetic ExecuTorch programs (.pte) shaped like real exports.\n"
      "Same options and --seed give the same bytes. Examples:\n"
      "  pte-synth llm -o llm.pte                      2-layer decoder, prefill + decode\n"
      "  pte-synth llm --layers 32 --device-arena -o big.pte\n"
      "  pte-synth cnn --layers 8 --size 64x64 -o cnn.pte",
      "pte-synth"};
  app.set_version_flag("--version", std::string("pte-synth ") + PTESHARE_VERSION);
  app.require_subcommand(1);
  std::string out;
  // The exporter's layout by default: padding after the program only up to
  // the next multiple of 128 (0 to 127 bytes).
  pteshare::synth::BuildOptions build;

  pteshare::synth::LlmConfig llm;
  CLI::App* llm_cmd = app.add_subcommand(
      "llm",
      "Decoder with methods `prefill` and `decode` sharing per-layer KV caches\n"
      "(mutable buffers layers.{i}.attention.kv_cache.{k,v}_cache, zeros), then the\n"
      "constant metadata methods LLM exporters emit. Written as ExecuTorch's exporter writes\n"
      "it: aten operators with portable kernels (inputs: tokens and input_pos, int64 [T]),\n"
      "and the exporter-like planner places the caches at different offsets in the two\n"
      "methods.");
  llm_cmd->add_option("--layers", llm.layers, "Decoder layers")->capture_default_str();
  llm_cmd->add_option("--heads", llm.heads, "Attention heads")->capture_default_str();
  llm_cmd->add_option("--head-dim", llm.head_dim, "Size of one head")->capture_default_str();
  llm_cmd->add_option("--max-seq", llm.max_seq, "Cache rows (max sequence length)")
      ->capture_default_str();
  llm_cmd->add_option("--prefill-len", llm.prefill_len, "Tokens prefill takes (0: max-seq / 2)")
      ->capture_default_str();
  llm_cmd->add_option("--vocab", llm.vocab, "Vocabulary size")->capture_default_str();
  llm_cmd->add_flag("--device-arena", llm.device_arena,
                    "Plan caches (and attention scratch) into arena 2, on CUDA");
  bool no_const_methods = false;
  llm_cmd->add_flag("--no-const-methods", no_const_methods,
                    "Leave out the constant metadata methods LLM exporters emit after the model's "
                    "(get_max_seq_len, get_vocab_size, use_kv_cache, ...: no instruction, nothing "
                    "planned); they are written by default");
  llm_cmd->add_flag("--legacy-shared", llm.legacy_shared,
                    "Old exporter sharing: all caches in an extra arena 2 at identical offsets");
  // Unnamed by default, as the exporter writes state unless asked to emit
  // mutable buffer names; --unnamed stays accepted for old scripts.
  bool named = false, unnamed = false;
  llm_cmd->add_flag("--named", named,
                    "Write the caches' fully_qualified_name (the exporter's "
                    "emit_mutable_buffer_names); by default they are unnamed, as exported");
  llm_cmd->add_flag("--unnamed", unnamed, "The default: leave the caches unnamed");
  llm_cmd->get_option("--named")->excludes("--unnamed");

  pteshare::synth::CnnConfig cnn;
  std::string size = "32x32";
  CLI::App* cnn_cmd =
      app.add_subcommand("cnn", "Single-method residual conv net (method `forward`), no state.");
  cnn_cmd->add_option("--layers", cnn.layers, "Residual conv layers")->capture_default_str();
  cnn_cmd->add_option("--channels", cnn.channels, "Channels per layer")->capture_default_str();
  cnn_cmd->add_option("--size", size, "Image size HxW")->capture_default_str();
  cnn_cmd->add_option("--classes", cnn.classes, "Output classes")->capture_default_str();

  for (CLI::App* cmd : {llm_cmd, cnn_cmd}) {
    cmd->add_option("--seed", cmd == llm_cmd ? llm.seed : cnn.seed, "Seed of the weights")
        ->capture_default_str();
    cmd->add_option("--extra-segment", build.trailing_segment_bytes,
                    "Append an unreferenced segment of this many zero bytes (sparse)")
        ->capture_default_str();
    cmd->add_option("--segment-alignment", build.segment_alignment,
                    "Align the segment base and every segment to this power of two (the\n"
                    "exporter's 128 leaves 0-127 bytes of padding after the program; more\n"
                    "leaves more room for appended tables)")
        ->capture_default_str();
    cmd->add_option("-o,--output", out, "File to write")->required();
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return Fail(kExitUsage, std::string(e.what()) + " (see pte-synth --help)");
  }

  const uint64_t a = build.segment_alignment;
  if (a == 0 || (a & (a - 1)) != 0) {
    return Fail(kExitUsage, "--segment-alignment " + std::to_string(a) + " is not a power of two");
  }
  if (llm_cmd->parsed()) {
    llm.named = named;
    llm.const_methods = !no_const_methods;
    return Write(pteshare::synth::SynthesizeLlm(llm), build, out);
  }
  auto parsed_size = ParseSize(size);
  if (!parsed_size.ok()) return Fail(kExitUsage, parsed_size.error().message);
  cnn.height = parsed_size->first;
  cnn.width = parsed_size->second;
  return Write(pteshare::synth::SynthesizeCnn(cnn), build, out);
}
