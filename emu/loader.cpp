// This file implements program loading: ELF segments, the interpreter, brk, the stack and the auxv.
#include "emu/loader.h"

#include <elf.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "emu/elf.h"
#include "emu/guest_mem.h"
#include "emu/vdso.h"
#include "syscalls/fd_util.h"

namespace emu {
namespace {

constexpr uint64_t kStackSize = 8ull << 20;     // RLIMIT_STACK default, mapped up front
constexpr uint64_t kStackGap = 16 * kPageSize;  // between the stack and the top of the window
constexpr uint64_t kMmapGap = 128ull << 20;     // between the stack and the first mmap
constexpr uint64_t kMinSigStkSz = 5120;         // arm64 MINSIGSTKSZ

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

struct Image {
  ElfInfo info;
  uint64_t bias = 0;
};

// The file as the parser sees it: a buffer of the file's size in which only what the parser reads is filled
// (the first 4 KiB, the program headers and the PT_INTERP string, wherever the header puts them), so
// loading a large program does not copy it all (nor touch more of the buffer's pages than it reads: a
// first touch is a page fault). Not mmap'd: a file truncated under us would raise SIGBUS in
// a64run. Offsets come from the still unvalidated header, so every read is clamped to the file.
struct FileBytes {
  std::unique_ptr<uint8_t[]> bytes;
  size_t size = 0;
};

bool read_range(int fd, FileBytes* data, uint64_t off, uint64_t len) {
  if (off >= data->size) return true;
  len = std::min<uint64_t>(len, data->size - off);
  size_t done = 0;
  while (done < len) {
    const ssize_t n = ::pread(fd, data->bytes.get() + off + done, len - done, static_cast<off_t>(off + done));
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

bool read_file(int fd, FileBytes* data) {
  constexpr uint64_t kHead = uint64_t{4} << 10;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  data->size = static_cast<size_t>(st.st_size);
  data->bytes.reset(new (std::nothrow) uint8_t[data->size + 1]);
  if (!data->bytes) return false;
  if (!read_range(fd, data, 0, kHead)) return false;
  if (data->size < sizeof(Elf64_Ehdr)) return true;
  Elf64_Ehdr eh;
  memcpy(&eh, data->bytes.get(), sizeof eh);
  const uint64_t ph_len = uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr);
  if (eh.e_phoff >= data->size || ph_len > data->size - eh.e_phoff) return true;  // the parser says why
  if (eh.e_phoff + ph_len > kHead && !read_range(fd, data, eh.e_phoff, ph_len)) return false;
  for (uint64_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    memcpy(&ph, data->bytes.get() + eh.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_INTERP && (ph.p_offset >= kHead || ph.p_filesz > kHead - ph.p_offset) &&
        !read_range(fd, data, ph.p_offset, std::min<uint64_t>(ph.p_filesz, 4096)))
      return false;
  }
  return true;
}

// Maps one image's PT_LOAD segments at `bias` (ET_EXEC: 0). Returns an error line or empty.
std::string map_segments(AddressSpace& as, int fd, const std::string& path, const struct stat& st,
                         Image& img) {
  for (const ElfSegment& s : img.info.loads) {
    const uint64_t start = page_down(img.bias + s.vaddr);
    const uint64_t file_end = img.bias + s.vaddr + s.filesz;
    const uint64_t mem_end = page_up(img.bias + s.vaddr + s.memsz);
    if (s.filesz > 0) {
      MapSource src{fd, page_down(s.offset), st.st_dev, st.st_ino, path};
      const int64_t r = as.mmap(start, page_up(file_end) - start, s.prot, MAP_PRIVATE | MAP_FIXED, src);
      if (r < 0) return fmt::format("cannot map segment at {:#x}: {}", start, strerror(static_cast<int>(-r)));
      // The rest of the last file page belongs to .bss: zero it. Linux's loader (padzero) cannot in a
      // segment that is not writable and leaves the file's bytes there; the host page is not writable
      // either.
      if (s.memsz > s.filesz && (file_end & kPageMask) && (s.prot & PROT_WRITE))
        memset(as.host(file_end), 0, page_up(file_end) - file_end);
    }
    const uint64_t anon_start = s.filesz > 0 ? page_up(file_end) : start;
    if (mem_end > anon_start) {
      const int64_t r = as.mmap(anon_start, mem_end - anon_start, s.prot,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, MapSource{});
      if (r < 0)
        return fmt::format("cannot map bss at {:#x}: {}", anon_start, strerror(static_cast<int>(-r)));
    }
  }
  return {};
}

// Opens, validates and maps one ELF file. ET_DYN images get a bias: `dyn_base` if nonzero, else wherever
// the top-down allocator puts a reservation of the whole span.
// `given_fd`, when not -1, is the file already open (the kernel's AT_EXECFD): an executable the caller may
// run but not read loads too.
bool load_image(AddressSpace& as, const std::string& path, uint64_t dyn_base, Image* img, std::string* error,
                int* status, int given_fd = -1) {
  Fd fd(given_fd >= 0 ? ::fcntl(given_fd, F_DUPFD_CLOEXEC, 0) : ::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    *error = fmt::format("{}: {}", path, strerror(errno));
    *status = errno == ENOENT ? 127 : 126;
    return false;
  }
  FileBytes data;
  struct stat st {};
  if (!read_file(fd.get(), &data) || ::fstat(fd.get(), &st) != 0) {
    *error = fmt::format("{}: not a regular file", path);
    *status = 126;
    return false;
  }
  std::string why;
  if (!parse_elf(std::span<const uint8_t>(data.bytes.get(), data.size), as.size(), &img->info, &why)) {
    *error = fmt::format("{}: {}", path, why);
    *status = 126;
    return false;
  }
  const ElfInfo& info = img->info;
  if (info.type == ET_DYN) {
    const uint64_t span = info.max_vaddr - info.min_vaddr;
    const int flags = MAP_PRIVATE | MAP_ANONYMOUS | (dyn_base ? MAP_FIXED_NOREPLACE : 0);
    const int64_t base = as.mmap(dyn_base, span, PROT_NONE, flags, MapSource{});
    if (base < 0) {
      *error = fmt::format("{}: no room for a {} byte image", path, span);
      *status = 126;
      return false;
    }
    img->bias = static_cast<uint64_t>(base) - info.min_vaddr;
  }
  // /proc/PID/maps names the file as Linux's d_path does: absolute, its symbolic links resolved, however the
  // program was named (a relative path, a link); a guest reads its own file's name from there.
  const std::string shown = syscalls::fd_path(fd.get());
  std::string err = map_segments(as, fd.get(), shown.empty() ? path : shown, st, *img);
  if (!err.empty()) {
    *error = fmt::format("{}: {}", path, err);
    *status = 126;
    return false;
  }
  return true;
}

class StackBuilder {
 public:
  StackBuilder(AddressSpace& as, uint64_t top) : as_(as), sp_(top) {}
  uint64_t push_bytes(const void* p, size_t n) {
    sp_ -= n;
    memcpy(as_.host(sp_), p, n);
    return sp_;
  }
  uint64_t push_string(const std::string& s) { return push_bytes(s.c_str(), s.size() + 1); }
  uint64_t sp() const { return sp_; }
  void set_sp(uint64_t sp) { sp_ = sp; }

 private:
  AddressSpace& as_;
  uint64_t sp_;
};

uint64_t build_stack(Process& proc, const Image& main, const Image* interp, uint64_t stack_top,
                     uint64_t vdso) {
  AddressSpace& as = proc.as();
  const Options& o = proc.opts();
  StackBuilder sb(as, stack_top);
  // AT_EXECFN: the program's path without the sysroot's prefix (a guest's execve resolved it there).
  const uint64_t execfn = sb.push_string(proc.sysroot().to_guest(o.program));
  // Strings go on the stack last to first, so argv[0] ends up lowest, as Linux lays them out.
  std::vector<uint64_t> envp(o.envp.size()), argv(o.argv.size());
  for (size_t i = o.envp.size(); i-- > 0;) envp[i] = sb.push_string(o.envp[i]);
  for (size_t i = o.argv.size(); i-- > 0;) argv[i] = sb.push_string(o.argv[i]);
  const uint64_t platform = sb.push_string("aarch64");
  uint8_t random[16];
  if (getrandom(random, sizeof random, 0) != sizeof random) memset(random, 0x5a, sizeof random);
  const uint64_t at_random = sb.push_bytes(random, sizeof random);

  const ElfInfo& mi = main.info;
  std::vector<uint64_t> aux = {AT_PHDR,        main.bias + mi.phdr_vaddr,
                               AT_PHENT,       mi.phentsize,
                               AT_PHNUM,       mi.phnum,
                               AT_PAGESZ,      kPageSize,
                               AT_BASE,        interp ? interp->bias : 0,
                               AT_FLAGS,       0,
                               AT_ENTRY,       main.bias + mi.entry,
                               AT_UID,         getuid(),
                               AT_EUID,        geteuid(),
                               AT_GID,         getgid(),
                               AT_EGID,        getegid(),
                               AT_SECURE,      0,
                               AT_RANDOM,      at_random,
                               AT_HWCAP,       guest_hwcap(),
                               AT_HWCAP2,      guest_hwcap2(),
                               AT_CLKTCK,      100,
                               AT_PLATFORM,    platform,
                               AT_EXECFN,      execfn,
                               AT_MINSIGSTKSZ, kMinSigStkSz};
  if (vdso != 0) aux.insert(aux.end(), {AT_SYSINFO_EHDR, vdso});
  aux.insert(aux.end(), {AT_NULL, 0});
  const size_t words = 1 + argv.size() + 1 + envp.size() + 1 + aux.size();
  sb.set_sp((sb.sp() - words * 8) & ~uint64_t{15});
  std::vector<uint64_t> block;
  block.reserve(words);
  block.push_back(argv.size());
  block.insert(block.end(), argv.begin(), argv.end());
  block.push_back(0);
  block.insert(block.end(), envp.begin(), envp.end());
  block.push_back(0);
  block.insert(block.end(), aux.begin(), aux.end());
  memcpy(as.host(sb.sp()), block.data(), block.size() * 8);

  proc.auxv.resize(aux.size() * 8);
  memcpy(proc.auxv.data(), aux.data(), proc.auxv.size());
  return sb.sp();
}

}  // namespace

uint64_t guest_hwcap() {
  // Linux arm64 uapi/asm/hwcap.h bit numbers. Not DIT (24): Unicorn 2.1.1's translator has neither MSR
  // DIT nor MRS DIT, so a program that trusted the bit would get SIGILL (tests/guest/misc/privileged). Not
  // USCAT (25, FEAT_LSE2): its LDP and STP are two 8-byte accesses, so an aligned 16-byte pair may tear,
  // which a program told LSE2 is there reads 16-byte atomics with (tests/guest/threads/pair_atomicity).
  // clang-format off
  constexpr int kBits[] = {
      0 /*FP*/,       1 /*ASIMD*/,   3 /*AES*/,       4 /*PMULL*/,    5 /*SHA1*/,      6 /*SHA2*/,
      7 /*CRC32*/,    8 /*ATOMICS*/, 9 /*FPHP*/,      10 /*ASIMDHP*/, 12 /*ASIMDRDM*/, 13 /*JSCVT*/,
      14 /*FCMA*/,    15 /*LRCPC*/,  16 /*DCPOP*/,    17 /*SHA3*/,    18 /*SM3*/,      19 /*SM4*/,
      20 /*ASIMDDP*/, 21 /*SHA512*/, 23 /*ASIMDFHM*/, 26 /*ILRCPC*/,  27 /*FLAGM*/};
  // clang-format on
  uint64_t v = 0;
  for (int b : kBits) v |= 1ull << b;
  return v;
}

uint64_t guest_hwcap2() {
  return (1ull << 0) /*DCPODP*/ | (1ull << 7) /*FLAGM2*/ | (1ull << 8) /*FRINT*/;
}

bool load_program(Process& proc, LoadedProgram* out, std::string* error, int* status) {
  AddressSpace& as = proc.as();
  const uint64_t stack_top = as.size() - kStackGap;
  const uint64_t stack_low = stack_top - kStackSize;
  as.set_mmap_top(stack_low - kMmapGap);

  Image main;
  // PIE programs go at two thirds of the window's lower part, like ELF_ET_DYN_BASE.
  const uint64_t dyn_base = page_down(as.size() / 3);
  if (!load_image(as, proc.opts().program, dyn_base, &main, error, status, proc.opts().program_fd))
    return false;
  as.set_brk_base(page_up(main.bias + main.info.max_vaddr));

  Image interp;
  const bool dynamic = !main.info.interp.empty();
  if (dynamic) {
    const std::string ipath = proc.host_path(main.info.interp);
    if (!load_image(as, ipath, 0, &interp, error, status)) {
      if (*status == 127) *error += " (the program's interpreter; is the sysroot set with -L?)";
      *status = 126;
      return false;
    }
  }

  MapSource stack_src;
  stack_src.name = "[stack]";
  stack_src.main_stack = true;
  const int stack_prot = PROT_READ | PROT_WRITE | (main.info.exec_stack ? PROT_EXEC : 0);
  if (as.mmap(stack_low, kStackSize, stack_prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, stack_src) < 0) {
    *error = "cannot map the stack";
    *status = 126;
    return false;
  }
  const uint64_t vdso = map_vdso(as);
  if (vdso != 0) proc.sigreturn_trampoline = vdso + vdso_symbol("__kernel_rt_sigreturn");
  out->sp = build_stack(proc, main, dynamic ? &interp : nullptr, stack_top, vdso);
  out->entry = dynamic ? interp.bias + interp.info.entry : main.bias + main.info.entry;
  return true;
}

}  // namespace emu
