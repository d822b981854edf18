// Native symbolisation (symbols/symbolizer.h) of return addresses taken in a library built with
// known functions (testlib/symbols_testlib.cpp) and in this program, in the forms a user's
// modules come in: with debug info, stripped of it, stripped of everything, with a separate debug
// file, and with no symbol at all.
#include "flopspy/symbols/symbolizer.h"

#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "test_library.h"

namespace flopspy::symbols {
namespace {

using testing::BaseName;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::LineOf;
using testing::LoadedModule;

constexpr const char* kLibrary = FLOPSPY_SYMBOLS_TESTLIB;
constexpr const char* kLibrarySource = FLOPSPY_SYMBOLS_TESTLIB_SOURCE;

using Probe = uintptr_t (*)();

// The test library, loaded once; its functions return an address on their marked line.
class LoadedLibrary : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    handle_ = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
    module_ = LoadedModule(kLibrary, kLibrary);
  }

  // The return address `name` (one of the library's probes) captured on its marked line.
  static uint64_t AddressFrom(const char* name) {
    auto probe = reinterpret_cast<Probe>(dlsym(handle_, name));
    EXPECT_NE(probe, nullptr) << name;
    return probe != nullptr ? probe() : 0;
  }

  // The library as the trace recorded it, but read from another file (a stripped copy).
  static Module As(const std::string& path) {
    Module module = module_;
    module.path = path;
    return module;
  }

  static inline void* handle_ = nullptr;
  static inline Module module_;
};

TEST_F(LoadedLibrary, TheRecordedModuleHasABiasAndABuildId) {
  EXPECT_NE(module_.bias, 0u);
  EXPECT_EQ(module_.build_id.size(), 40u);  // --build-id=sha1
}

TEST_F(LoadedLibrary, CFunctionHasItsNameFileAndMarkedLine) {
  Symbolizer symbolizer;
  Symbol symbol = symbolizer.Resolve(module_, AddressFrom("flopspy_symbols_c_function"));
  EXPECT_EQ(symbol.function, "flopspy_symbols_c_function");
  EXPECT_EQ(BaseName(symbol.file), "symbols_testlib.cpp");
  EXPECT_EQ(symbol.line, LineOf(kLibrarySource, "MARKER_C"));
  EXPECT_NE(symbol.line, 0);
  EXPECT_THAT(symbolizer.ModulesWithoutSymbols(), IsEmpty());
  EXPECT_THAT(symbolizer.ModulesWithoutDebugInfo(), IsEmpty());
}

TEST_F(LoadedLibrary, CppNamesAreDemangledWithNamespacesAndTemplateArguments) {
  Symbolizer symbolizer;
  Symbol in_template =
      symbolizer.Resolve(module_, AddressFrom("flopspy_symbols_template_function"));
  EXPECT_EQ(in_template.function, "flopspy_test::inner::Box<int>::Where(int)");
  EXPECT_EQ(in_template.line, LineOf(kLibrarySource, "MARKER_TEMPLATE"));
  Symbol local = symbolizer.Resolve(module_, AddressFrom("flopspy_symbols_local_function"));
  EXPECT_EQ(local.function, "flopspy_test::LocalOnly()");
  EXPECT_EQ(local.line, LineOf(kLibrarySource, "MARKER_LOCAL"));
}

TEST_F(LoadedLibrary, InlinedCodeIsNamedAfterTheInlinedFunctionItsLineBelongsTo) {
  uint64_t address = AddressFrom("flopspy_symbols_inlined_function");
  Symbolizer symbolizer;
  Symbol with_debug = symbolizer.Resolve(module_, address);
  EXPECT_EQ(with_debug.function, "flopspy_test::Inlined()");
  EXPECT_EQ(with_debug.line, LineOf(kLibrarySource, "MARKER_INLINED"));
  // Without DWARF only the function it was inlined into has a symbol.
  Symbol names_only = symbolizer.Resolve(As(FLOPSPY_SYMBOLS_NODEBUG), address);
  EXPECT_EQ(names_only.function, "flopspy_symbols_inlined_function");
}

TEST_F(LoadedLibrary, TheSameAnswerComesFromTheCacheAndBuildIdCaseDoesNotMatter) {
  Symbolizer symbolizer;
  uint64_t address = AddressFrom("flopspy_symbols_c_function");
  Symbol first = symbolizer.Resolve(module_, address);
  Module upper = module_;
  for (char& c : upper.build_id) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  Symbol second = symbolizer.Resolve(upper, address);
  Symbol third = symbolizer.Resolve(module_, address);
  EXPECT_EQ(second.function, first.function);
  EXPECT_EQ(third.line, first.line);
  EXPECT_EQ(second.line, first.line);
}

TEST_F(LoadedLibrary, StrippedOfDebugInfoKeepsEveryNameButNoLines) {
  Symbolizer symbolizer;
  Module nodebug = As(FLOPSPY_SYMBOLS_NODEBUG);
  Symbol c = symbolizer.Resolve(nodebug, AddressFrom("flopspy_symbols_c_function"));
  EXPECT_EQ(c.function, "flopspy_symbols_c_function");
  EXPECT_EQ(c.file, "");
  EXPECT_EQ(c.line, 0);
  Symbol local = symbolizer.Resolve(nodebug, AddressFrom("flopspy_symbols_local_function"));
  EXPECT_EQ(local.function, "flopspy_test::LocalOnly()");
  EXPECT_THAT(symbolizer.ModulesWithoutSymbols(), IsEmpty());
  EXPECT_THAT(symbolizer.ModulesWithoutDebugInfo(), ElementsAre(FLOPSPY_SYMBOLS_NODEBUG));
}

TEST_F(LoadedLibrary, StrippedOfEverythingKeepsOnlyExportedNames) {
  Symbolizer symbolizer(std::vector<std::string>{});  // no debug folder to find it in
  Module stripped = As(FLOPSPY_SYMBOLS_STRIPPED);
  Symbol c = symbolizer.Resolve(stripped, AddressFrom("flopspy_symbols_c_function"));
  EXPECT_EQ(c.function, "flopspy_symbols_c_function");
  EXPECT_EQ(c.line, 0);
  Symbol in_template =
      symbolizer.Resolve(stripped, AddressFrom("flopspy_symbols_template_function"));
  EXPECT_EQ(in_template.function, "flopspy_test::inner::Box<int>::Where(int)");  // weak, exported
  Symbol local = symbolizer.Resolve(stripped, AddressFrom("flopspy_symbols_local_function"));
  EXPECT_EQ(local.function, "");
  EXPECT_EQ(local.file, "");
  EXPECT_THAT(symbolizer.ModulesWithoutSymbols(), IsEmpty());
  EXPECT_THAT(symbolizer.ModulesWithoutDebugInfo(), ElementsAre(FLOPSPY_SYMBOLS_STRIPPED));
}

// A folder laid out as /usr/lib/debug is: .build-id/xx/rest.debug.
class DebugFolder : public LoadedLibrary {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("flopspy_symbols_debug_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    const std::string& id = module_.build_id;
    ASSERT_GT(id.size(), 2u);
    file_ = dir_ / ".build-id" / id.substr(0, 2) / (id.substr(2) + ".debug");
    std::filesystem::create_directories(file_.parent_path());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_, file_;
};

TEST_F(DebugFolder, ASeparateDebugFileFoundByBuildIdGivesLinesAndLocalNames) {
  std::filesystem::copy_file(FLOPSPY_SYMBOLS_DEBUG_FILE, file_);
  Symbolizer symbolizer({"/nonexistent-debug-folder", dir_.string()});
  Module stripped = As(FLOPSPY_SYMBOLS_STRIPPED);
  Symbol local = symbolizer.Resolve(stripped, AddressFrom("flopspy_symbols_local_function"));
  EXPECT_EQ(local.function, "flopspy_test::LocalOnly()");
  EXPECT_EQ(BaseName(local.file), "symbols_testlib.cpp");
  EXPECT_EQ(local.line, LineOf(kLibrarySource, "MARKER_LOCAL"));
  EXPECT_THAT(symbolizer.ModulesWithoutSymbols(), IsEmpty());
  EXPECT_THAT(symbolizer.ModulesWithoutDebugInfo(), IsEmpty());
}

TEST_F(DebugFolder, ADebugFileWithAnotherBuildIdIsNotUsed) {
  // This program's own debug info, under the library's build id: a wrong file must not give
  // the library's addresses lines from another program.
  std::filesystem::copy_file("/proc/self/exe", file_);
  Symbolizer symbolizer({dir_.string()});
  Module stripped = As(FLOPSPY_SYMBOLS_STRIPPED);
  Symbol c = symbolizer.Resolve(stripped, AddressFrom("flopspy_symbols_c_function"));
  EXPECT_EQ(c.function, "flopspy_symbols_c_function");  // from .dynsym
  EXPECT_EQ(c.line, 0);
  EXPECT_THAT(symbolizer.ModulesWithoutDebugInfo(), ElementsAre(FLOPSPY_SYMBOLS_STRIPPED));
}

TEST_F(LoadedLibrary, AFileThatChangedSinceTheTraceGivesNoSymbolsAndSaysWhy) {
  Symbolizer symbolizer;
  Module changed = module_;
  changed.build_id = std::string(40, '0');
  Symbol symbol = symbolizer.Resolve(changed, AddressFrom("flopspy_symbols_c_function"));
  EXPECT_EQ(symbol.function, "");
  EXPECT_EQ(symbol.line, 0);
  EXPECT_THAT(
      symbolizer.ModulesWithoutSymbols(),
      ElementsAre(std::string(kLibrary) + ": the file changed since the trace was recorded"));
  // The same path with its right build id is a module of its own, and fine.
  EXPECT_EQ(symbolizer.Resolve(module_, AddressFrom("flopspy_symbols_c_function")).function,
            "flopspy_symbols_c_function");
  EXPECT_EQ(symbolizer.ModulesWithoutSymbols().size(), 1u);
}

TEST_F(LoadedLibrary, AnAddressBeforeTheModuleOrOutsideAnyFunctionHasNoName) {
  Symbolizer symbolizer;
  EXPECT_EQ(symbolizer.Resolve(module_, module_.bias).function, "");
  EXPECT_EQ(symbolizer.Resolve(module_, 0).function, "");
  EXPECT_EQ(symbolizer.Resolve(module_, module_.bias + (uint64_t{1} << 40)).function, "");
  EXPECT_THAT(symbolizer.ModulesWithoutSymbols(), IsEmpty());
}

// A return address in this program (a PIE with debug info, named "" by dl_iterate_phdr).
__attribute__((noinline)) uintptr_t ReturnAddressOfCaller() {
  return reinterpret_cast<uintptr_t>(__builtin_return_address(0));
}
__attribute__((noinline)) uintptr_t CallFromAKnownLine() {
  uintptr_t where = ReturnAddressOfCaller();  // SELF_MARKER
  asm volatile("" : "+r"(where));
  return where;
}

TEST(SymbolizerProgram, AFunctionOfTheProgramItselfResolves) {
  Module self = LoadedModule("", "/proc/self/exe");
  Symbolizer symbolizer;
  Symbol symbol = symbolizer.Resolve(self, CallFromAKnownLine());
  EXPECT_EQ(symbol.function, "flopspy::symbols::(anonymous namespace)::CallFromAKnownLine()");
  EXPECT_EQ(BaseName(symbol.file), "symbolizer_test.cpp");
  EXPECT_EQ(symbol.line, LineOf(FLOPSPY_SYMBOLS_TEST_SOURCE, std::string("SELF_") + "MARKER"));
}

TEST(SymbolizerModules, ALibraryWithoutAnyFunctionSymbolIsListedAsHavingNone) {
  Symbolizer symbolizer;
  Module module{FLOPSPY_SYMBOLS_NOEXPORTS, "", 0x7f0000000000};
  Symbol symbol = symbolizer.Resolve(module, 0x7f0000001100);
  EXPECT_EQ(symbol.function, "");
  EXPECT_THAT(symbolizer.ModulesWithoutSymbols(),
              ElementsAre(std::string(FLOPSPY_SYMBOLS_NOEXPORTS) + ": no symbols"));
}

}  // namespace
}  // namespace flopspy::symbols
