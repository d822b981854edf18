// Encoder::KernelSignatureByName: a kernel CUPTI knows by name gets the signature its launches
// get, whichever the flusher sees first; unknown names get signatures of their own.
#include <gtest/gtest.h>

#include <map>

#include "encoder.h"
#include "flopspy/trace/reader.h"
#include "flopspy/trace/writer.h"
#include "function_table.h"
#include "raw_events.h"

namespace flopspy::testing {
namespace {

using interpose::Encoder;

uint32_t AddFunction(uint64_t handle, const std::string& name) {
  auto* info = new interpose::FunctionInfo;
  info->handle = handle;
  info->mangled_name = name;
  return interpose::Functions().Insert(info)->id;
}

class SignatureByName : public ::testing::Test {
 protected:
  SignatureByName() : encoder_([](trace::ChunkBuilder&) { FAIL() << "chunk full"; }) {
    chunk_.Reset(trace::ChunkSource::kGpuActivity, 0);
  }

  uint32_t ByName(const std::string& name, uint32_t grid_x, uint32_t cluster_x = 0,
                  uint32_t smem = 0) {
    const uint32_t grid[3] = {grid_x, 1, 1};
    const uint32_t block[3] = {256, 1, 1};
    const uint32_t cluster[3] = {cluster_x, cluster_x != 0 ? 1u : 0u, cluster_x != 0 ? 1u : 0u};
    return encoder_.KernelSignatureByName(name, grid, block, cluster, smem, chunk_);
  }
  uint32_t Launch(uint32_t function, uint32_t grid_x) {
    interpose::RawLaunch raw{};
    raw.function = function;
    raw.grid[0] = grid_x;
    raw.grid[1] = raw.grid[2] = 1;
    raw.block[0] = 256;
    raw.block[1] = raw.block[2] = 1;
    raw.Seal();
    encoder_.Encode(reinterpret_cast<const uint8_t*>(&raw), raw.h.size(), chunk_);
    return LastLaunchSignature();
  }
  // The records in the chunk so far.
  template <class F>
  void ForEach(F&& visit) {
    std::vector<uint8_t> bytes;
    trace::TraceWriter writer([&](std::span<const uint8_t> b) {
      bytes.insert(bytes.end(), b.begin(), b.end());
      return true;
    });
    trace::FileIdentity id;
    writer.WriteHeader(trace::MakeFileHeader(id));
    trace::ChunkBuilder copy = chunk_;
    writer.WriteChunk(copy);
    trace::TraceReader reader(trace::MemorySource(bytes));
    reader.ForEachRecord([&](const trace::RecordView& r) { visit(r, reader); });
  }
  uint32_t LastLaunchSignature() {
    uint32_t signature = 0;
    ForEach([&](const trace::RecordView& r, trace::TraceReader&) {
      if (r.type == trace::RecordType::kKernelLaunch) {
        signature = r.As<trace::KernelLaunchRecord>().signature;
      }
    });
    return signature;
  }
  std::map<uint32_t, trace::KernelSignatureDef> Signatures() {
    std::map<uint32_t, trace::KernelSignatureDef> defs;
    ForEach([&](const trace::RecordView& r, trace::TraceReader&) {
      if (r.type == trace::RecordType::kKernelSignature) {
        const auto def = r.As<trace::KernelSignatureDef>();
        defs[def.id] = def;
      }
    });
    return defs;
  }
  std::string Name(uint32_t string_id) {
    std::string text;
    ForEach([&](const trace::RecordView&, trace::TraceReader& reader) {
      text = std::string(reader.String(string_id));
    });
    return text;
  }

  Encoder encoder_;
  trace::ChunkBuilder chunk_;
};

TEST_F(SignatureByName, SameIdAsTheLaunchWhenTheLaunchCameFirst) {
  const uint32_t f = AddFunction(0x1000, "_Z7launchedv");
  const uint32_t launched = Launch(f, 64);
  ASSERT_NE(launched, 0u);
  EXPECT_EQ(ByName("_Z7launchedv", 64), launched);
  EXPECT_NE(ByName("_Z7launchedv", 65), launched);  // another shape, another signature
}

TEST_F(SignatureByName, SameIdAsTheLaunchWhenTheGpuRecordCameFirst) {
  const uint32_t f = AddFunction(0x2000, "_Z5earlyv");
  const uint32_t by_name = ByName("_Z5earlyv", 8);
  EXPECT_EQ(Launch(f, 8), by_name);
  const auto defs = Signatures();
  ASSERT_TRUE(defs.contains(by_name));
  EXPECT_EQ(defs.at(by_name).function, f);
  EXPECT_EQ(Name(defs.at(by_name).name), "_Z5earlyv");
}

TEST_F(SignatureByName, UnknownNamesGetTheirOwnSignatureWithFunctionZero) {
  const uint32_t a = ByName("_Z8in_graphv", 4, /*cluster_x=*/2, /*smem=*/1024);
  EXPECT_EQ(ByName("_Z8in_graphv", 4, 2, 1024), a);
  const uint32_t b = ByName("_Z5otherv", 4, 2, 1024);
  EXPECT_NE(a, b);
  const auto defs = Signatures();
  ASSERT_TRUE(defs.contains(a));
  EXPECT_EQ(defs.at(a).function, 0u);
  EXPECT_EQ(Name(defs.at(a).name), "_Z8in_graphv");
  EXPECT_EQ(defs.at(a).cluster[0], 2u);
  EXPECT_EQ(defs.at(a).dynamic_smem, 1024u);
  // Ids are one sequence with the launches' signatures.
  const uint32_t f = AddFunction(0x3000, "_Z4nextv");
  EXPECT_EQ(Launch(f, 1), b + 1);
}

TEST_F(SignatureByName, PrefersTheHandleWhoseLaunchHasThatShape) {
  const uint32_t stub = AddFunction(0x4000, "_Z6sharedv");    // runtime host stub
  const uint32_t driver = AddFunction(0x4001, "_Z6sharedv");  // its CUfunction
  const uint32_t launched = Launch(driver, 32);
  EXPECT_EQ(ByName("_Z6sharedv", 32), launched);
  EXPECT_EQ(Signatures().at(launched).function, driver);
  EXPECT_NE(stub, driver);
}

TEST_F(SignatureByName, EmptyName) {
  const uint32_t a = ByName("", 2);
  EXPECT_EQ(ByName("", 2), a);
  EXPECT_EQ(Signatures().at(a).name, 0u);
}

}  // namespace
}  // namespace flopspy::testing
