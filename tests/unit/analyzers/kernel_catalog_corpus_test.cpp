// Every real kernel name in tests/data/kernel_names/corpus.tsv is classified as the file says:
// family, functor, streamed operand count, input and output types. The names come from public
// profiler output (SOURCES.md says where each came from).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "flopspy/analyzers/demangle.h"
#include "flopspy/analyzers/kernel_catalog.h"

namespace flopspy::analyzers {
namespace {

struct CorpusEntry {
  int line = 0;
  std::string family, functor, operands, inputs, output, source, name;
};

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, '\t')) fields.push_back(field);
  return fields;
}

std::vector<CorpusEntry> LoadCorpus() {
  std::ifstream in(std::string(FLOPSPY_TEST_DATA_DIR) + "/kernel_names/corpus.tsv");
  std::vector<CorpusEntry> entries;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = SplitTabs(line);
    EXPECT_EQ(f.size(), 7u) << "corpus line " << number;
    if (f.size() != 7) continue;
    entries.push_back({number, f[0], f[1], f[2], f[3], f[4], f[5], f[6]});
  }
  return entries;
}

std::string JoinTypes(const std::vector<DataType>& types) {
  if (types.empty()) return "-";
  std::string out;
  for (DataType t : types) {
    if (!out.empty()) out += ',';
    out += DataTypeName(t);
  }
  return out;
}

TEST(KernelCatalogCorpus, IsLargeAndVaried) {
  const std::vector<CorpusEntry> corpus = LoadCorpus();
  ASSERT_GE(corpus.size(), 80u);
  std::set<std::string> families, names;
  int mangled = 0;
  for (const CorpusEntry& e : corpus) {
    families.insert(e.family);
    EXPECT_TRUE(names.insert(e.name).second) << "duplicate name on line " << e.line;
    if (IsMangledName(e.name)) ++mangled;
  }
  EXPECT_GE(mangled, 10);
  // Every family the catalog reports appears at least once.
  for (int i = 0; i < kKernelFamilyCount; ++i) {
    EXPECT_TRUE(families.count(std::string(KernelFamilyName(static_cast<KernelFamily>(i)))))
        << KernelFamilyName(static_cast<KernelFamily>(i));
  }
}

TEST(KernelCatalogCorpus, EverySourceIsDocumented) {
  std::ifstream in(std::string(FLOPSPY_TEST_DATA_DIR) + "/kernel_names/SOURCES.md");
  ASSERT_TRUE(in.good());
  const std::string sources((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const CorpusEntry& e : LoadCorpus()) {
    EXPECT_NE(sources.find("| " + e.source + " |"), std::string::npos)
        << e.source << " (line " << e.line << ") has no row in SOURCES.md";
  }
}

TEST(KernelCatalogCorpus, MangledNamesDemangle) {
  for (const CorpusEntry& e : LoadCorpus()) {
    if (!IsMangledName(e.name)) continue;
    const std::string demangled = Demangle(e.name);
    EXPECT_NE(demangled, e.name) << "line " << e.line;
    EXPECT_TRUE(demangled.starts_with("void ")) << demangled;
  }
}

TEST(KernelCatalogCorpus, EveryNameIsClassifiedAsExpected) {
  for (const CorpusEntry& e : LoadCorpus()) {
    SCOPED_TRACE("corpus line " + std::to_string(e.line) + ": " + e.name.substr(0, 120));
    const KernelClass kc = ClassifyKernel(e.name);
    EXPECT_EQ(KernelFamilyName(kc.family), e.family);
    EXPECT_EQ(kc.functor, e.functor);
    EXPECT_EQ(std::to_string(kc.operands), e.operands);
    EXPECT_EQ(JoinTypes(kc.input_types), e.inputs);
    EXPECT_EQ(DataTypeName(kc.output_type), e.output);
    EXPECT_FALSE(kc.reason.empty()) << "every classification says why";
  }
}

TEST(KernelCatalogCorpus, NothingIsModelledWithoutParameterBytes) {
  // No captured bytes: whatever the family, no figure may claim to come from the catalog.
  for (const CorpusEntry& e : LoadCorpus()) {
    SCOPED_TRACE(e.name.substr(0, 120));
    const KernelEstimate est = EstimateKernel(e.name, LaunchFacts{});
    EXPECT_EQ(est.source, trace::FigureSource::kUnknown);
    EXPECT_EQ(est.bytes_source, trace::FigureSource::kUnknown);
    EXPECT_EQ(est.flops, 0);
    EXPECT_EQ(est.bytes, 0);
    EXPECT_FALSE(est.elements.has_value());
    EXPECT_EQ(KernelFamilyName(est.family), e.family);
  }
}

TEST(KernelCatalogCorpus, ElementCountDecodedFromParameterBytes) {
  // Every modelled elementwise, copy, fill and demo kernel reads N from parameter 0 (an int32)
  // and moves N x (the corpus's input and output element sizes) bytes. The sizes come from the
  // corpus columns, written by hand, not from the catalog.
  int checked = 0;
  for (const CorpusEntry& e : LoadCorpus()) {
    const bool elementwise = e.family.starts_with("elementwise") || e.family == "copy" ||
                             e.family == "fill" || e.family == "demo";
    if (!elementwise || e.output == "unknown") continue;
    const KernelClass kc = ClassifyKernel(e.name);
    if (kc.model != KernelModel::kElementwise || !kc.bytes_known) continue;
    SCOPED_TRACE("corpus line " + std::to_string(e.line) + ": " + e.name.substr(0, 120));
    double element_bytes = DataTypeSize(*DataTypeFromName(e.output));
    if (e.inputs != "-") {
      std::stringstream in(e.inputs);
      std::string type;
      while (std::getline(in, type, ',')) element_bytes += DataTypeSize(*DataTypeFromName(type));
    }
    for (int32_t n : {1, 4097, 67108864, 2147483647}) {
      std::vector<uint8_t> bytes(20, 0xAB);  // what follows N must not matter
      std::memcpy(bytes.data(), &n, 4);
      LaunchFacts launch;
      launch.params = bytes;
      const KernelEstimate est = EstimateKernel(kc, launch);
      ASSERT_TRUE(est.elements.has_value()) << est.reason;
      EXPECT_EQ(*est.elements, n);
      EXPECT_EQ(est.bytes_source, trace::FigureSource::kCatalog);
      EXPECT_DOUBLE_EQ(est.bytes, static_cast<double>(n) * element_bytes);
      EXPECT_EQ(est.shape_key, "n=" + std::to_string(n));
      if (est.source == trace::FigureSource::kCatalog) {
        EXPECT_DOUBLE_EQ(est.flops, static_cast<double>(n) * kc.flops_per_element);
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 60);
}

TEST(KernelCatalogCorpus, ModelsReadExactlyTheBytesTheyAskFor) {
  // ParamBytesWanted is what the interposer captures for a kernel. For every corpus name and a
  // few byte patterns: the estimate from the first ParamBytesWanted bytes equals the one from
  // 255 bytes (the model reads nothing further), and with one byte fewer nothing is modelled
  // (it needs them all).
  std::vector<std::vector<uint8_t>> patterns;
  patterns.emplace_back(255, 0);
  std::vector<uint8_t> small(255, 0);
  for (size_t i = 0; i < small.size(); i += 4) small[i] = static_cast<uint8_t>(1 + (i / 4) % 7);
  patterns.push_back(small);
  std::vector<uint8_t> noise(255);
  uint32_t state = 99;
  for (uint8_t& b : noise) {
    state = state * 1664525u + 1013904223u;
    b = static_cast<uint8_t>(state >> 24);
  }
  patterns.push_back(noise);
  int modelled = 0;
  for (const CorpusEntry& e : LoadCorpus()) {
    SCOPED_TRACE(e.name.substr(0, 120));
    const KernelClass kc = ClassifyKernel(e.name);
    const int wanted = ParamBytesWanted(kc);
    EXPECT_GE(wanted, 0);
    EXPECT_LE(wanted, 255);
    if (kc.model == KernelModel::kNone) {
      EXPECT_EQ(wanted, 0);
    }
    // One more pattern that each model accepts, so that a ParamBytesWanted too small shows: small
    // counts everywhere (and non-null pointers), a ReduceConfig that passes its size check, a
    // two-dimensional TensorInfo.
    std::vector<uint8_t> plausible = small;
    const auto put = [&plausible](size_t at, int32_t v) { std::memcpy(&plausible[at], &v, 4); };
    if (kc.model == KernelModel::kReduce && kc.reduce_config_offset >= 0) {
      const auto at = static_cast<size_t>(kc.reduce_config_offset);
      put(at, kc.reduce_arg_bytes);
      put(at + 4, 64);
      put(at + 8, 16);
    }
    if (kc.model == KernelModel::kIndexSelect || kc.model == KernelModel::kFusedDropout) {
      put(8, 16);
      put(12, 32);
      put(208, 2);
    }
    auto all = patterns;
    all.push_back(plausible);
    for (const auto& pattern : all) {
      LaunchFacts full;
      full.params = pattern;
      full.grid = {64, 1, 1};
      LaunchFacts prefix = full;
      prefix.params = std::span<const uint8_t>(pattern).first(static_cast<size_t>(wanted));
      const KernelEstimate a = EstimateKernel(kc, full);
      const KernelEstimate b = EstimateKernel(kc, prefix);
      EXPECT_EQ(a.source, b.source) << a.reason << " / " << b.reason;
      EXPECT_EQ(a.bytes_source, b.bytes_source);
      EXPECT_EQ(a.flops, b.flops);
      EXPECT_EQ(a.bytes, b.bytes);
      EXPECT_EQ(a.elements, b.elements);
      if (wanted > 0) {
        LaunchFacts shorter = full;
        shorter.params = std::span<const uint8_t>(pattern).first(static_cast<size_t>(wanted - 1));
        const KernelEstimate c = EstimateKernel(kc, shorter);
        EXPECT_EQ(c.source, trace::FigureSource::kUnknown);
        EXPECT_EQ(c.bytes_source, trace::FigureSource::kUnknown);
      }
    }
    if (EstimateKernel(kc, LaunchFacts{plausible, {}, {64, 1, 1}, {}}).bytes_source ==
        trace::FigureSource::kCatalog) {
      ++modelled;
    }
  }
  // The plausible pattern is modelled for most corpus names, so the checks above have teeth.
  EXPECT_GE(modelled, 120);
}

TEST(KernelCatalogCorpus, UnknownAndTritonNamesStayUnknownWithParameters) {
  // Plenty of plausible bytes must not make an unknown kernel modelled.
  std::vector<uint8_t> bytes(255, 0);
  bytes[0] = 0x00;
  bytes[1] = 0x10;  // 4096 if read as parameter 0
  LaunchFacts launch;
  launch.params = bytes;
  launch.grid = {128, 1, 1};
  for (const CorpusEntry& e : LoadCorpus()) {
    if (e.family != "unknown" && e.family != "triton" && e.family != "cat" &&
        e.family != "multi_tensor_apply") {
      continue;
    }
    SCOPED_TRACE(e.name.substr(0, 120));
    const KernelEstimate est = EstimateKernel(e.name, launch);
    EXPECT_EQ(est.source, trace::FigureSource::kUnknown);
    EXPECT_EQ(est.bytes_source, trace::FigureSource::kUnknown);
    EXPECT_EQ(est.confidence, Confidence::kNone);
    EXPECT_TRUE(est.shape_key.empty());
  }
}

TEST(KernelCatalogCorpus, TruncatedNamesAndNoisyBytesAreHandled) {
  // Names cut anywhere (string tables truncate them) and arbitrary parameter bytes must neither
  // crash nor produce a figure without its source.
  std::vector<uint8_t> bytes(255);
  uint32_t state = 12345;
  for (uint8_t& b : bytes) {
    state = state * 1664525u + 1013904223u;
    b = static_cast<uint8_t>(state >> 24);
  }
  LaunchFacts launch;
  launch.params = bytes;
  launch.grid = {7, 1, 1};
  for (const CorpusEntry& e : LoadCorpus()) {
    for (size_t cut = 0; cut <= e.name.size(); cut += 13) {
      const std::string name = e.name.substr(0, cut);
      const KernelEstimate est = EstimateKernel(name, launch);
      if (est.source != trace::FigureSource::kCatalog) {
        EXPECT_EQ(est.flops, 0) << name;
        EXPECT_EQ(est.special_ops, 0) << name;
      }
      if (est.bytes_source != trace::FigureSource::kCatalog) {
        EXPECT_EQ(est.bytes, 0) << name;
      }
      EXPECT_GE(est.flops, est.special_ops) << name;
    }
  }
}

}  // namespace
}  // namespace flopspy::analyzers
