// Result<T>: a value or an error message, returned (never thrown) through the
// core, in the manner of ExecuTorch's loader. An error message says what was
// wrong and with which numbers; the caller prefixes the file name.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace pteshare {

/// What kind of failure an Error is, so a front end can tell them apart
/// (the CLI maps them to its exit statuses, Python to its exception classes).
enum class ErrorKind {
  kBadInput,     // bad options, an unreadable or invalid file, a refused request
  kNoValidPlan,  // the input is fine but no plan fits (a limit), verifies or patches
  kIo,           // writing failed: the input is as it was, unless the message says the
                 // result is in place and only its folder's fsync failed
};

/// What went wrong, as one line of text without the file name.
struct Error {
  std::string message;
  ErrorKind kind = ErrorKind::kBadInput;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

/// Result<void>: success, or an error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}
  static Status Ok() { return Status(); }

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace pteshare
