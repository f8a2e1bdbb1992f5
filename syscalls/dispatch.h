// The syscall layer's entry: decodes x8 and x0-x5, calls the typed handler from table.inc, writes x0, and
// prints --strace lines. dispatch.cpp is the only code that reads syscall argument registers.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "emu/guest_mem.h"
#include "emu/task.h"

namespace syscalls {

using emu::GuestCStr;
using emu::GuestPtr;
using emu::Task;

// A handler's result: a value or a negative Linux errno.
using SysResult = int64_t;
// Returned by handlers that set the registers themselves (rt_sigreturn, a successful execve): x0 is left
// alone.
inline constexpr SysResult kNoReturnValue = INT64_MIN;

enum class Status { kSupported, kPartial, kUnimplemented, kDeclined };

struct SyscallInfo {
  int nr;
  const char* name;
  Status status;
  const char* note;
  SysResult (*invoke)(Task&, const uint64_t*);
  void (*format_args)(std::string&, Task&, const uint64_t*);
};

void dispatch(Task& t);
// The table entry for nr, or nullptr for a number arm64 Linux does not have.
const SyscallInfo* lookup(int nr);

// --- typed decoding (Sogen's forward_syscall): one template turns registers into a handler's parameters ---
namespace detail {

template <typename T>
struct IsGuestPtr : std::false_type {};
template <typename T>
struct IsGuestPtr<GuestPtr<T>> : std::true_type {};

template <typename T>
T decode(uint64_t raw) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(raw);  // int parameters take the low 32 bits, as the kernel's do
  } else {
    static_assert(IsGuestPtr<T>::value || std::is_same_v<T, GuestCStr>, "unsupported syscall parameter type");
    return T{raw};
  }
}

void format_arg(std::string& out, Task& t, int64_t v);
void format_arg(std::string& out, Task& t, uint64_t v);
void format_pointer(std::string& out, uint64_t v);
void format_cstr(std::string& out, Task& t, uint64_t v);

template <typename T>
void format_one(std::string& out, Task& t, uint64_t raw) {
  if constexpr (std::is_same_v<T, GuestCStr>) {
    format_cstr(out, t, raw);
  } else if constexpr (IsGuestPtr<T>::value) {
    format_pointer(out, raw);
  } else if constexpr (std::is_signed_v<T>) {
    format_arg(out, t, static_cast<int64_t>(decode<T>(raw)));
  } else {
    format_arg(out, t, static_cast<uint64_t>(decode<T>(raw)));
  }
}

template <typename F>
struct Handler;
template <typename... A>
struct Handler<SysResult (*)(Task&, A...)> {
  static_assert(sizeof...(A) <= 6, "arm64 syscalls take at most six arguments");
  template <SysResult (*F)(Task&, A...), size_t... I>
  static SysResult call(Task& t, const uint64_t* a, std::index_sequence<I...>) {
    return F(t, decode<A>(a[I])...);
  }
  template <size_t... I>
  static void format(std::string& out, Task& t, const uint64_t* a, std::index_sequence<I...>) {
    ((out += (I ? ", " : ""), format_one<A>(out, t, a[I])), ...);
  }
  static constexpr size_t kArgs = sizeof...(A);
};

}  // namespace detail

template <auto F>
SysResult invoke(Task& t, const uint64_t* a) {
  using H = detail::Handler<decltype(F)>;
  return H::template call<F>(t, a, std::make_index_sequence<H::kArgs>{});
}

template <auto F>
void format_args(std::string& out, Task& t, const uint64_t* a) {
  using H = detail::Handler<decltype(F)>;
  H::format(out, t, a, std::make_index_sequence<H::kArgs>{});
}

}  // namespace syscalls
