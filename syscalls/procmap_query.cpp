// This file implements PROCMAP_QUERY (Linux 6.11), the ioctl of /proc/<pid>/maps that asks for one VMA by
// address (fs/proc/task_mmu.c, do_procmap_query): the guest's own maps file is a64run's (procfs.cpp), so
// the query is answered from the guest's VMA list, with the kernel's checks in the kernel's order.
#include <elf.h>
#include <fcntl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "emu/guest_mem.h"
#include "syscalls/procfs.h"

namespace syscalls {
namespace {

// include/uapi/linux/fs.h: struct procmap_query.
struct ProcmapQuery {
  uint64_t size, query_flags, query_addr;
  uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
  uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
  uint64_t vma_name_addr, build_id_addr;
};
static_assert(sizeof(ProcmapQuery) == 104 && offsetof(ProcmapQuery, vma_name_addr) == 88);

constexpr uint64_t kReadable = 0x01, kWritable = 0x02, kExecutable = 0x04, kShared = 0x08;
constexpr uint64_t kCoveringOrNext = 0x10, kFileBacked = 0x20;
constexpr uint64_t kPermissionFlags = kReadable | kWritable | kExecutable | kShared;
constexpr uint64_t kValidFlags = 0x3f;
constexpr size_t kBuildIdMax = 20;  // BUILD_ID_SIZE_MAX

bool is_maps_file(int fd) {
  char link[64];
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t n = ::readlink(self.c_str(), link, sizeof link - 1);
  if (n <= 0) return false;
  link[n] = 0;
  return std::strcmp(link, "/memfd:a64run-proc-maps (deleted)") == 0;
}

// A VMA with a file behind it (vm_file): a file mapping, shared anonymous memory (shmem) or a SysV segment.
bool file_backed(const emu::Vma& v) {
  return !(v.flags & emu::kVmaAnon) || (v.flags & emu::kVmaShared);
}

bool permits(const emu::Vma& v, uint64_t flags) {
  if ((flags & kReadable) && !(v.prot & PROT_READ)) return false;
  if ((flags & kWritable) && !(v.prot & PROT_WRITE)) return false;
  if ((flags & kExecutable) && !(v.prot & PROT_EXEC)) return false;
  if ((flags & kShared) && !(v.flags & emu::kVmaShared)) return false;
  return true;
}

// query_matching_vma: the VMA that holds addr (or, with kCoveringOrNext, the first one after it) and has
// what the flags ask for; nullptr for ENOENT.
const emu::Vma* matching_vma(const std::vector<emu::Vma>& vmas, uint64_t addr, uint64_t flags) {
  for (const emu::Vma& v : vmas) {
    if (v.end <= addr) continue;  // find_vma: the first VMA that ends above addr
    const bool ok = (!(flags & kFileBacked) || file_backed(v)) && permits(v, flags & kPermissionFlags);
    if (ok && ((flags & kCoveringOrNext) || v.start <= addr)) return &v;
    if (!(flags & kCoveringOrNext)) return nullptr;
    addr = v.end;
  }
  return nullptr;
}

// build_id_parse: the GNU build ID note of the ELF file behind the VMA (read from the file's start, whatever
// part the VMA maps), or 0 bytes when there is none. The file is the host's mapping's (map_files, as root),
// else opened by name.
size_t build_id(const emu::AddressSpace& as, const emu::Vma& v, uint8_t (&out)[kBuildIdMax]) {
  const auto lo = reinterpret_cast<uintptr_t>(as.host(v.start));
  const auto hi = reinterpret_cast<uintptr_t>(as.host(v.end));
  char map_file[96];
  std::snprintf(map_file, sizeof map_file, "/proc/self/map_files/%lx-%lx", static_cast<unsigned long>(lo),
                static_cast<unsigned long>(hi));
  int fd = ::open(map_file, O_RDONLY | O_CLOEXEC);
  if (fd < 0 && !v.name.empty() && v.name[0] == '/') fd = ::open(v.name.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  size_t found = 0;
  Elf64_Ehdr eh{};
  if (::pread(fd, &eh, sizeof eh, 0) == sizeof eh && std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
      eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum < 1024) {
    for (unsigned i = 0; i < eh.e_phnum && found == 0; ++i) {
      Elf64_Phdr ph{};
      if (::pread(fd, &ph, sizeof ph, static_cast<off_t>(eh.e_phoff + i * sizeof ph)) != sizeof ph) break;
      if (ph.p_type != PT_NOTE || ph.p_filesz > 65536) continue;
      std::vector<uint8_t> notes(ph.p_filesz);
      if (::pread(fd, notes.data(), notes.size(), static_cast<off_t>(ph.p_offset)) !=
          static_cast<ssize_t>(notes.size()))
        continue;
      for (size_t at = 0; at + sizeof(Elf64_Nhdr) <= notes.size();) {
        Elf64_Nhdr nh{};
        std::memcpy(&nh, notes.data() + at, sizeof nh);
        const size_t name_at = at + sizeof nh;
        const size_t desc_at = name_at + ((nh.n_namesz + 3) & ~3u);
        const size_t next = desc_at + ((nh.n_descsz + 3) & ~3u);
        if (next > notes.size() || next <= at) break;
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
            std::memcmp(notes.data() + name_at, "GNU", 4) == 0 && nh.n_descsz > 0 &&
            nh.n_descsz <= kBuildIdMax) {
          std::memcpy(out, notes.data() + desc_at, nh.n_descsz);
          found = nh.n_descsz;
          break;
        }
        at = next;
      }
    }
  }
  ::close(fd);
  return found;
}

}  // namespace

int64_t procmap_query(Task& t, int fd, uint64_t arg) {
  if (!is_maps_file(fd)) return kNotMapsFile;
  uint64_t usize = 0;
  if (emu::copy_in(t.as(), &usize, arg, sizeof usize) != 0) return -EFAULT;
  if (usize > emu::kPageSize) return -E2BIG;
  if (usize < offsetof(ProcmapQuery, vma_start)) return -EINVAL;
  ProcmapQuery q{};
  if (emu::copy_in(t.as(), &q, arg, std::min<uint64_t>(usize, sizeof q)) != 0) return -EFAULT;
  // copy_struct_from_user: bytes past the struct this kernel knows must be zero.
  for (uint64_t off = sizeof q; off < usize; ++off) {
    uint8_t b = 0;
    if (emu::copy_in(t.as(), &b, arg + off, 1) != 0) return -EFAULT;
    if (b != 0) return -E2BIG;
  }
  if (q.query_flags & ~kValidFlags) return -EINVAL;
  if ((q.vma_name_size != 0) != (q.vma_name_addr != 0)) return -EINVAL;
  if ((q.build_id_size != 0) != (q.build_id_addr != 0)) return -EINVAL;
  const std::vector<emu::Vma> vmas = t.as().snapshot();
  const emu::Vma* v = matching_vma(vmas, q.query_addr, q.query_flags);
  if (v == nullptr) return -ENOENT;
  q.vma_start = v->start;
  q.vma_end = v->end;
  q.vma_flags = ((v->prot & PROT_READ) ? kReadable : 0) | ((v->prot & PROT_WRITE) ? kWritable : 0) |
                ((v->prot & PROT_EXEC) ? kExecutable : 0) | ((v->flags & emu::kVmaShared) ? kShared : 0);
  q.vma_page_size = v->huge_shift != 0 ? uint64_t{1} << v->huge_shift : emu::kPageSize;
  const bool file = file_backed(*v);
  q.vma_offset = file ? v->offset : 0;
  q.dev_major = file ? major(v->dev) : 0;
  q.dev_minor = file ? minor(v->dev) : 0;
  q.inode = file ? v->inode : 0;
  uint8_t id[kBuildIdMax];
  size_t id_size = 0;
  if (q.build_id_size != 0) {
    id_size = file ? build_id(t.as(), *v, id) : 0;
    if (id_size > q.build_id_size) return -ENAMETOOLONG;
    q.build_id_size = static_cast<uint32_t>(id_size);
  }
  // The name as /proc/<pid>/maps shows it (a file's guest path, [heap], [stack], [vdso], ...).
  const std::string name = v->name.empty() ? std::string() : t.proc().sysroot().to_guest(v->name);
  if (q.vma_name_size != 0) {
    const size_t room = std::min<size_t>(PATH_MAX, q.vma_name_size);
    const size_t need = name.empty() ? 0 : name.size() + 1;
    if (need > room) return -ENAMETOOLONG;
    q.vma_name_size = static_cast<uint32_t>(need);
  }
  if (q.vma_name_size != 0 && emu::copy_out(t.as(), q.vma_name_addr, name.c_str(), q.vma_name_size) != 0)
    return -EFAULT;
  if (q.build_id_size != 0 && emu::copy_out(t.as(), q.build_id_addr, id, q.build_id_size) != 0)
    return -EFAULT;
  if (emu::copy_out(t.as(), arg, &q, std::min<uint64_t>(usize, sizeof q)) != 0) return -EFAULT;
  return 0;
}

}  // namespace syscalls
