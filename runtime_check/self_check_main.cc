// pteshare-selfcheck: bind a .pte's methods to memory the way an on-device
// loader does, and check that its shared buffers really alias.
//
//   pteshare-selfcheck FILE [SHARED_NAME...]
//
// FILE may be a bundled program (.bpte): the program inside is checked.
//
// With no names, every named mutable buffer found in two or more methods
// must be shared. Exit status: 0 the sharing holds, 1 it does not, 2 the
// file cannot be read or loaded (see kUsage).
//
// An application does the same in its loader: one buffer per memory_id,
// sized for the method that needs most, handed to every method it loads
// (ExecuTorch: the spans of the HierarchicalAllocator), and CheckBindings
// before loading the methods.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "pte_header.h"
#include "runtime_check/alias_check.h"

// Set by the build from project(); an application copying this file may drop it.
#ifndef PTESHARE_VERSION
#define PTESHARE_VERSION "unknown"
#endif

namespace rc = pteshare::runtime_check;

namespace {

// The file in memory, as a loader that has it mapped would pass it. Only
// the first 64 KiB are read until the identifier says it is a program (or
// a bundle): a 2 GB file of something else is refused without reading it.
// Then the buffer is the whole file, from calloc (zero pages the kernel
// maps lazily, aligned enough for the checker), and only what the file
// stores is read into it: its holes (SEEK_HOLE) stay untouched, so a
// sparse file that claims gigabytes costs the bytes it has.
struct FileBytes {
  std::unique_ptr<uint8_t, decltype(&std::free)> data{nullptr, &std::free};
  size_t size = 0;
};

bool ReadRange(int fd, uint8_t* into, uint64_t from, uint64_t to) {
  while (from < to) {
    const ssize_t n =
        ::pread(fd, into + from, static_cast<size_t>(to - from), static_cast<off_t>(from));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    from += static_cast<uint64_t>(n);
  }
  return true;
}

bool ReadFile(const char* path, FileBytes* out) {
  const int fd = ::open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  const uint64_t size = ok ? static_cast<uint64_t>(st.st_size) : 0;
  uint8_t head[1 << 16] = {};
  const uint64_t first = std::min<uint64_t>(size, sizeof head);
  ok = ok && ReadRange(fd, head, 0, first);
  const bool program = first >= 8 && (std::memcmp(head + 4, "ET12", 4) == 0 ||
                                      std::memcmp(head + 4, "BP08", 4) == 0);
  // Not a program: the first bytes are all the checker needs to say so.
  out->size = ok ? static_cast<size_t>(program ? size : first) : 0;
  if (ok && out->size > 0) {
    out->data.reset(static_cast<uint8_t*>(std::calloc(out->size, 1)));
    ok = out->data != nullptr;
  }
  if (ok && out->size > 0) std::memcpy(out->data.get(), head, static_cast<size_t>(first));
  for (uint64_t at = first; ok && at < out->size;) {
    const off_t data = ::lseek(fd, static_cast<off_t>(at), SEEK_DATA);
    if (data < 0 && errno == ENXIO) break;  // a hole to the end
    const uint64_t from = data < 0 ? at : static_cast<uint64_t>(data);
    if (from >= out->size) break;
    const off_t hole = data < 0 ? -1 : ::lseek(fd, data, SEEK_HOLE);
    const uint64_t to =
        hole < 0 ? out->size : std::min<uint64_t>(out->size, static_cast<uint64_t>(hole));
    ok = ReadRange(fd, out->data.get(), from, to);
    at = to;
  }
  ::close(fd);
  return ok;
}

}  // namespace

constexpr const char* kUsage =
    "usage: pteshare-selfcheck FILE [SHARED_NAME...]\n"
    "Loads FILE as an on-device loader would (one buffer per memory_id, as large as the\n"
    "largest method needs, bound to every method: one set of arenas) and checks that every\n"
    "shared buffer has one address in every method and nothing else overlaps it.\n"
    "SHARED_NAME...: the buffers to check; none: every name in two or more methods and\n"
    "unnamed state paired by position. Exit 0 ok, 1 findings, 2 an input that cannot be read\n"
    "or loaded: no program, cut short (segments past its end), or arenas larger than\n"
    "this machine's memory.\n"
    "Example: pteshare-selfcheck llm-shared.pte\n";

int main(int argc, char** argv) {
  if (argc >= 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (argc >= 2 && std::strcmp(argv[1], "--version") == 0) {
    std::printf("pteshare-selfcheck %s\n", PTESHARE_VERSION);
    return 0;
  }
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const char* path = argv[1];
  FileBytes pte;
  if (!ReadFile(path, &pte)) {
    std::fprintf(stderr, "pteshare-selfcheck: %s: cannot read the file\n", path);
    return 2;
  }
  // The whole file is here, so the segments its header declares must be
  // too (CheckProgram may be handed the program alone and cannot judge).
  pteshare::ExtendedHeader header;
  std::string problem;
  if (pte.size >= 8 && std::memcmp(pte.data.get() + 4, "ET12", 4) == 0 &&
      pteshare::pte_header::Read(pte.data.get(), pte.size, "file", &header, &problem) &&
      !pteshare::pte_header::SegmentsFit(header, pte.size, &problem)) {
    std::fprintf(stderr, "pteshare-selfcheck: %s: %s\n", path, problem.c_str());
    return 2;
  }
  rc::CheckOptions options;
  options.shared_names.assign(argv + 2, argv + argc);

  // 1. Each method's arena sizes (this also checks the placements).
  const rc::Report program = rc::CheckProgram(pte.data.get(), pte.size, options);
  if (!program.readable()) {
    std::fprintf(stderr, "pteshare-selfcheck: %s: %s\n", path, program.findings[0].message.c_str());
    return 2;
  }

  // 2. One buffer per memory_id, as large as the largest method needs.
  std::vector<uint64_t> sizes;
  for (const rc::MethodArenas& method : program.methods) {
    sizes.resize(std::max(sizes.size(), method.arena_sizes.size()), 0);
    for (size_t i = 0; i < method.arena_sizes.size(); ++i) {
      sizes[i] = std::max(sizes[i], method.arena_sizes[i]);
    }
  }
  // A loader binds real memory: arenas that together exceed this machine's
  // memory cannot be bound (30,000 declared arenas of 4 GiB once cost 20 s
  // of reservations before anything was checked).
  uint64_t total = 0;
  bool overflow = false;
  for (uint64_t size : sizes) {
    overflow = overflow || total + size < total;
    total += size;
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGE_SIZE);
  const uint64_t machine = pages > 0 && page_size > 0
                               ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size)
                               : UINT64_MAX;
  if (overflow || total > machine) {
    std::fprintf(stderr,
                 "pteshare-selfcheck: %s: the program declares %zu arena(s) of %s bytes in all, "
                 "more than this machine's memory (%llu bytes); refusing to bind them\n",
                 path, sizes.size(), overflow ? "more than 2^64" : std::to_string(total).c_str(),
                 static_cast<unsigned long long>(machine));
    return 2;
  }
  std::vector<std::unique_ptr<uint8_t[]>> memory;
  std::vector<rc::ArenaBuffer> arenas;
  for (size_t i = 0; i < sizes.size(); ++i) {
    // Not touched, so the pages of a multi-gigabyte arena are never used.
    memory.emplace_back(sizes[i] <= SIZE_MAX ? new (std::nothrow) uint8_t[sizes[i]] : nullptr);
    if (memory.back() == nullptr) {
      std::fprintf(stderr, "pteshare-selfcheck: %s: cannot allocate arena %zu (%llu bytes)\n", path,
                   i + 1, static_cast<unsigned long long>(sizes[i]));
      return 2;
    }
    arenas.push_back({memory.back().get(), static_cast<size_t>(sizes[i])});
  }

  // 3. Every method gets the same buffers: that is what shares the state.
  std::vector<rc::MethodBinding> bindings;
  for (const rc::MethodArenas& method : program.methods) {
    bindings.push_back({method.name, arenas});
  }

  // 4. The check a loader runs before loading the methods.
  const rc::Report report = rc::CheckBindings(pte.data.get(), pte.size, options, bindings);
  // The scratch is what a firmware running check.h itself sets aside.
  std::printf("%s: %zu method(s), %zu arena(s) bound, %zu bytes of check scratch\n", path,
              report.methods.size(), arenas.size(), report.scratch_bytes);
  for (const rc::SharedBuffer& shared : report.shared) {
    std::printf("  shared %s: arena %u offset %llu, %llu bytes, in %zu methods\n",
                shared.name.c_str(), shared.placement.memory_id,
                static_cast<unsigned long long>(shared.placement.offset),
                static_cast<unsigned long long>(shared.placement.nbytes), shared.methods.size());
  }
  for (const rc::Finding& finding : report.findings) {
    const bool error = finding.severity == rc::Severity::kError;
    std::printf("  %s: %s\n", error ? "error" : "warning", finding.message.c_str());
  }
  std::printf("%s: %s\n", path, report.Summary().c_str());
  return report.ok() ? 0 : 1;
}
