#include "rewriter/program/pte_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <system_error>

#include "program_generated.h"
#include "rewriter/io/file_io.h"

namespace pteshare {
namespace fs = std::filesystem;

// The read-only copy: an anonymous private reservation of the file's size
// (MAP_NORESERVE: pages cost memory only once written, so the segment part
// costs nothing), and the descriptor it was read from, kept open as a
// mapping would keep it (closing any descriptor of the file would drop an
// fcntl lock this process holds on it, writer_lock.h).
struct PteFile::Snapshot {
  UniqueFd fd;
  void* address = MAP_FAILED;
  size_t size = 0;

  ~Snapshot() {
    if (address != MAP_FAILED) ::munmap(address, size);
  }
  uint8_t* data() const { return static_cast<uint8_t*>(address); }
};

namespace {

// Read once the header is known: the first bytes of the file, enough for
// the extended header (and a little more, so a small file is read whole).
constexpr uint64_t kFirstRead = 4096;

}  // namespace

// Reads [0, program_size) of the `size`-byte file `path` into a snapshot. A
// file that is shorter than `size` by the time it is read has changed under
// us; that is an error, not a signal.
Result<std::unique_ptr<PteFile::Snapshot>> PteFile::ReadSnapshot(const fs::path& path,
                                                                 uint64_t size) {
  auto snapshot = std::make_unique<Snapshot>();
  // O_NONBLOCK: a FIFO swapped in after the type check must not hang.
  Result<UniqueFd> fd = OpenFd(path, O_RDONLY | O_NONBLOCK);
  if (!fd.ok()) return fd.error();
  snapshot->fd = std::move(fd).value();
  struct stat st;
  if (::fstat(snapshot->fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return Error{"is not a regular file"};
  }
  snapshot->size = static_cast<size_t>(size);
  snapshot->address = ::mmap(nullptr, snapshot->size, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (snapshot->address == MAP_FAILED) {
    return Error{"cannot reserve " + std::to_string(size) + " bytes of address space for the file"};
  }
  const auto changed = [](const Error& e) {
    return Error{"the file changed while being read (another process truncated it?): " + e.message};
  };
  uint64_t read = std::min(size, kFirstRead);
  Status first = ReadAt(snapshot->fd.get(), 0, {snapshot->data(), read});
  if (!first.ok()) return changed(first.error());
  // The flatbuffer's extent, as ReadPteLayout will judge it; a bad header
  // is its job to report, and no more than the file (or the verifier's
  // limit) is ever read.
  // A file that is no program, or whose flatbuffer is past the FlatBuffers
  // limit, is refused from these first bytes: nothing more is read.
  uint64_t program_size = HasProgramIdentifier({snapshot->data(), read}) ? size : 0;
  if (Result<ExtendedHeader> header = ReadExtendedHeader({snapshot->data(), read});
      program_size != 0 && header.ok() && header->present) {
    program_size = header->program_size;
  }
  // A bundle is one flatbuffer with the program's segments inside it: all
  // of it is needed (and a bundle past the limit is refused unread).
  if (IsBundle({snapshot->data(), read})) program_size = size;
  if (program_size >= FLATBUFFERS_MAX_BUFFER_SIZE) program_size = 0;
  program_size = std::min<uint64_t>(program_size, size);
  if (program_size > read) {
    // Holes stay untouched pages of the reservation (zeros, no memory).
    Status rest = ReadAtSkippingHoles(snapshot->fd.get(), read,
                                      {snapshot->data() + read, program_size - read});
    if (!rest.ok()) return changed(rest.error());
  }
  ::mprotect(snapshot->address, snapshot->size, PROT_READ);
  return snapshot;
}

PteFile::PteFile(PteFile&&) noexcept = default;
PteFile& PteFile::operator=(PteFile&&) noexcept = default;
PteFile::~PteFile() = default;

Result<PteFile> PteFile::Open(const fs::path& path) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) return Error{"cannot open: no such file"};
  if (fs::is_directory(status)) return Error{"is a directory, not a .pte file"};
  if (!fs::is_regular_file(status)) return Error{"is not a regular file"};
  uintmax_t size = fs::file_size(path, ec);
  if (ec) return Error{"cannot read the file size: " + ec.message()};

  PteFile file;
  file.path_ = path;
  if (size == 0) {
    // Nothing to map (a zero-length mapping is an error); let the layout
    // reader say what is wrong with an empty file.
    const fb::Program* ignored = nullptr;
    return ReadPteLayout({}, &ignored).error();
  }
  Result<std::unique_ptr<Snapshot>> snapshot = ReadSnapshot(path, size);
  if (!snapshot.ok()) return snapshot.error();
  file.snapshot_ = std::move(snapshot).value();
  file.data_ = file.snapshot_->data();
  file.size_ = file.snapshot_->size;
  if (Status inner = file.EnterBundle(); !inner.ok()) return inner.error();

  if (Status read = file.ReadLayout(); !read.ok()) return read.error();
  return file;
}

Status PteFile::EnterBundle() {
  if (!IsBundle(bytes())) return Status::Ok();
  Result<BundleInfo> bundle = ReadBundle(bytes());
  if (!bundle.ok()) return bundle.error();
  bundle_ = *bundle;
  // From here on the file is the program inside the bundle.
  data_ += bundle->program_offset;
  size_ = static_cast<size_t>(bundle->program_size);
  return Status::Ok();
}

Status PteFile::ReadLayout() {
  Result<PteLayout> layout = ReadPteLayout(bytes(), &program_);
  if (!layout.ok()) {
    if (bundle_) return Error{"the program inside the bundle: " + layout.error().message};
    return layout.error();
  }
  layout_ = std::move(layout).value();
  return Status::Ok();
}

Result<PteFile> PteFile::FromBytes(std::span<const uint8_t> bytes) {
  PteFile file;
  file.data_ = bytes.data();
  file.size_ = bytes.size();
  if (Status inner = file.EnterBundle(); !inner.ok()) return inner.error();
  if (Status read = file.ReadLayout(); !read.ok()) return read.error();
  return file;
}

std::span<const uint8_t> PteFile::bundle_bytes() const {
  if (!bundle_) return {};
  return {data_ - bundle_->program_offset, static_cast<size_t>(bundle_->file_size)};
}

}  // namespace pteshare
