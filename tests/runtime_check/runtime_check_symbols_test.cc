// libpteshare_runtime_check.a goes into an ExecuTorch app, which carries its
// own (newer) FlatBuffers: a FlatBuffers template instantiated in our
// library would be a second definition of the same symbol, an ODR hazard.
// `nm -C --defined-only` on the built library: every symbol it defines is
// pteshare's own or the standard library's (std::, __gnu_cxx::), or one the
// compiler makes (local labels, switch tables, personality references, the
// module constructors a sanitizer build adds: _sub_I_00099_1, and what
// clang adds for ASan and libFuzzer's coverage in the sanitizer build).
#include <gtest/gtest.h>

#include <cstdio>
#include <regex>
#include <string>
#include <vector>

namespace pteshare {
namespace {

// The namespace a demangled symbol belongs to: the first component of its
// qualified name, past a return type and before its parameters; "" for a
// symbol the compiler makes.
std::string OwnerOf(std::string symbol) {
  // GCC's, then clang's (its string literals, landing-pad tables, switch
  // tables and terminate helper; what ASan and libFuzzer's coverage add).
  for (const char* generated :
       {".L", "CSWTCH.", "DW.ref.", "_GLOBAL__", "__odr_asan", "_sub_I_", "_sub_D_", ".str",
        "GCC_except_table", "switch.table.", "__clang_call_terminate", "__unnamed_", "asan.module_",
        "sancov.module_", "__sancov_gen_"}) {
    if (symbol.rfind(generated, 0) == 0) return "";
  }
  for (const char* prefix :
       {"typeinfo name for ", "typeinfo for ", "vtable for ", "VTT for ",
        "construction vtable for ", "guard variable for ", "non-virtual thunk to ",
        "virtual thunk to ", "covariant return thunk to ", "transaction clone for "}) {
    if (symbol.rfind(prefix, 0) == 0) symbol.erase(0, std::string(prefix).size());
  }
  symbol = std::regex_replace(symbol, std::regex(R"( \[clone [^\]]*\])"), "");
  symbol = std::regex_replace(symbol, std::regex(R"(\(anonymous namespace\))"), "{anonymous}");
  // Operator names hold brackets and spaces of their own.
  symbol = std::regex_replace(
      symbol,
      std::regex(R"(operator(\(\)|\[\]|\s+(new|delete)(\[\])?|\s+[\w:]+|<=>|<<=|>>=|->\*|)"
                 R"(<<|>>|->|&&|\|\||\+\+|--|[-+*/%^&|~!=<>,]=?))"),
      "operator_");
  // The last top-level word before the top-level parameter list.
  int depth = 0;
  size_t word = 0;
  size_t end = symbol.size();
  for (size_t i = 0; i < symbol.size(); ++i) {
    const char c = symbol[i];
    if (depth == 0 && c == '(') {
      end = i;
      break;
    }
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    if (c == '>' || c == ')' || c == ']' || c == '}') --depth;
    if (depth == 0 && c == ' ') word = i + 1;
  }
  const std::string name = symbol.substr(word, end - word);
  const size_t stop = name.find_first_of(":<");
  return name.substr(0, stop);
}

bool Allowed(const std::string& owner) {
  return owner.empty() || owner == "pteshare" || owner == "std" || owner == "__gnu_cxx";
}

TEST(RuntimeCheckSymbols, TheClassifierTellsOwnFromForeign) {
  EXPECT_EQ(OwnerOf("flatbuffers::Verifier::VerifyVectorOrString(unsigned char const*, unsigned "
                    "long, unsigned long*) const"),
            "flatbuffers");
  EXPECT_EQ(OwnerOf("bool flatbuffers::Table::VerifyField<unsigned int>(flatbuffers::Verifier "
                    "const&, unsigned short, unsigned long) const"),
            "flatbuffers");
  EXPECT_EQ(OwnerOf("boost::container::vector<int>::priv_insert(int)"), "boost");
  EXPECT_EQ(OwnerOf("operator new(unsigned long)"), "operator_");
  EXPECT_EQ(OwnerOf("void std::vector<int, std::allocator<int> >::_M_realloc_insert<int>("
                    "__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, "
                    "int&&)"),
            "std");
  EXPECT_EQ(OwnerOf("__gnu_cxx::__normal_iterator<unsigned int const*, std::vector<unsigned int> > "
                    "std::__find_if<x>(y)"),
            "std");
  EXPECT_EQ(OwnerOf("pteshare::runtime_check::internal::(anonymous namespace)::UseReader::Read("
                    "pteshare::runtime_check::internal::InstructionTable const&)"),
            "pteshare");
  EXPECT_EQ(OwnerOf("pteshare::flat::Reader::operator()(int) const"), "pteshare");
  EXPECT_EQ(OwnerOf("std::string std::operator+<char, std::char_traits<char> >(char const*, "
                    "std::string const&)"),
            "std");
  EXPECT_EQ(OwnerOf("bool pteshare::operator<(pteshare::A const&, pteshare::A const&)"),
            "pteshare");
  EXPECT_EQ(OwnerOf("typeinfo for flatbuffers::Allocator"), "flatbuffers");
  EXPECT_EQ(OwnerOf(".LC12"), "");
  // What -fsanitize=address adds to every object file.
  EXPECT_EQ(OwnerOf("_sub_I_00099_1"), "");
  EXPECT_EQ(OwnerOf("_sub_D_00099_0"), "");
  // What clang makes, and adds for ASan and coverage (the sanitizer build).
  EXPECT_EQ(OwnerOf(".str.17"), "");
  EXPECT_EQ(OwnerOf("GCC_except_table13"), "");
  EXPECT_EQ(OwnerOf("asan.module_ctor"), "");
  EXPECT_EQ(OwnerOf("sancov.module_ctor_8bit_counters"), "");
  EXPECT_EQ(OwnerOf("__sancov_gen_cov_switch_values.3"), "");
}

TEST(RuntimeCheckSymbols, TheLibraryDefinesNoForeignSymbol) {
  const std::string library = PTESHARE_RUNTIME_CHECK_LIBRARY;
  const std::string command = "nm -C --defined-only '" + library + "' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = pclose(pipe);
  if (status != 0 && output.find("not found") != std::string::npos) {
    GTEST_SKIP() << "nm is not on PATH: " << output;
  }
  ASSERT_EQ(status, 0) << output;

  size_t defined = 0;
  size_t own = 0;
  std::vector<std::string> foreign;
  size_t begin = 0;
  while (begin < output.size()) {
    size_t end = output.find('\n', begin);
    if (end == std::string::npos) end = output.size();
    const std::string line = output.substr(begin, end - begin);
    begin = end + 1;
    // "<address> <type> <name>"; object headers ("x.o:") and blank lines
    // have no type letter.
    const size_t type_at = line.find(' ');
    if (type_at == std::string::npos || type_at + 3 > line.size() || line[type_at + 2] != ' ') {
      continue;
    }
    ++defined;
    const std::string symbol = line.substr(type_at + 3);
    const std::string owner = OwnerOf(symbol);
    if (owner == "pteshare") ++own;
    if (!Allowed(owner)) foreign.push_back(symbol);
  }
  EXPECT_GT(own, 50u) << "nm listed too few of our own symbols to be the library:\n" << output;
  EXPECT_GT(defined, own);
  std::string listed;
  for (const std::string& s : foreign) listed += "  " + s + "\n";
  EXPECT_TRUE(foreign.empty()) << foreign.size() << " foreign symbols defined in " << library
                               << ":\n"
                               << listed;
}

}  // namespace
}  // namespace pteshare
