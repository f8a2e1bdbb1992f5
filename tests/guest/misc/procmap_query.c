// PROCMAP_QUERY (Linux 6.11), the ioctl of /proc/self/maps, as the kernel answers it: for every line of the
// maps file, a query at its start gives the same VMA (range, permissions, offset, device, inode, name);
// an address in a gap is ENOENT, or the next VMA with PROCMAP_QUERY_COVERING_OR_NEXT_VMA; the permission and
// file-backed filters skip what they exclude; the program's GNU build ID comes with its VMAs. Errors: a
// short or huge struct (EINVAL, E2BIG), unknown flags, a name or build-ID buffer given by half (EINVAL), too
// small a buffer (ENAMETOOLONG), an unreadable struct (EFAULT), another /proc file (ENOTTY).
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"

struct procmap_query_ {
  uint64_t size, query_flags, query_addr;
  uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
  uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
  uint64_t vma_name_addr, build_id_addr;
};
#define PROCMAP_QUERY_ _IOWR('f', 17, struct procmap_query_)
enum { kRead = 1, kWrite = 2, kExec = 4, kShared = 8, kCoveringOrNext = 0x10, kFileBacked = 0x20 };

static int g_maps;
static char g_name[4096];

// The ioctl's result: 0 (with *q filled) or the errno. The name buffer is g_name.
static int query(uint64_t addr, uint64_t flags, struct procmap_query_* q) {
  memset(q, 0, sizeof *q);
  q->size = sizeof *q;
  q->query_flags = flags;
  q->query_addr = addr;
  q->vma_name_size = sizeof g_name;
  q->vma_name_addr = (uint64_t)(uintptr_t)g_name;
  g_name[0] = 0;
  errno = 0;
  return ioctl(g_maps, PROCMAP_QUERY_, q) == 0 ? 0 : errno;
}

// The GNU build ID of the ELF file at path (its size, 0 without one).
static size_t file_build_id(const char* path, uint8_t* out) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  size_t found = 0;
  Elf64_Ehdr eh;
  if (pread(fd, &eh, sizeof eh, 0) == sizeof eh && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0) {
    for (int i = 0; i < eh.e_phnum && !found; i++) {
      Elf64_Phdr ph;
      if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != sizeof ph) break;
      if (ph.p_type != PT_NOTE || ph.p_filesz > 65536) continue;
      uint8_t* notes = malloc(ph.p_filesz);
      if (notes && pread(fd, notes, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz) {
        for (size_t at = 0; at + sizeof(Elf64_Nhdr) <= ph.p_filesz;) {
          Elf64_Nhdr nh;
          memcpy(&nh, notes + at, sizeof nh);
          size_t desc = at + sizeof nh + ((nh.n_namesz + 3) & ~3u);
          if (desc + nh.n_descsz > ph.p_filesz) break;
          if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
              memcmp(notes + at + sizeof nh, "GNU", 4) == 0) {
            memcpy(out, notes + desc, nh.n_descsz);
            found = nh.n_descsz;
            break;
          }
          at = desc + ((nh.n_descsz + 3) & ~3u);
        }
      }
      free(notes);
    }
  }
  close(fd);
  return found;
}

int main(void) {
  g_maps = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  REQUIRE(g_maps >= 0);
  struct procmap_query_ q;
  if (query((uint64_t)(uintptr_t)&q, 0, &q) == ENOSYS && on_reference_qemu()) {
    NOTE("qemu-aarch64 7.2 has no PROCMAP_QUERY (ENOSYS for an ioctl it does not know): nothing to check");
    return check_done();
  }

  // Every line of the maps file, queried at its start.
  FILE* f = fopen("/proc/self/maps", "r");
  REQUIRE(f != NULL);
  char line[4096];
  int lines = 0, same = 0;
  unsigned long prev_end = 0, gap = 0, after_gap = 0, first_file = 0, first_exec = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long start, end, offset, inode;
    unsigned major_, minor_;
    char perms[8];
    int name_at = 0;
    if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %n", &start, &end, perms, &offset, &major_, &minor_, &inode,
               &name_at) < 7)
      continue;
    line[strcspn(line, "\n")] = 0;
    const char* name = name_at > 0 ? line + name_at : "";
    if (strcmp(name, "[vsyscall]") == 0) continue;  // x86-64's, outside the VMA list
    lines++;
    if (prev_end != 0 && start > prev_end && gap == 0) gap = prev_end, after_gap = start;
    prev_end = end;
    if (inode != 0 && first_file == 0) first_file = start;
    if (perms[2] == 'x' && first_exec == 0) first_exec = start;
    if (query(start, 0, &q) != 0) {
      NOTE("no answer for %s", line);
      continue;
    }
    const uint64_t flags = (perms[0] == 'r' ? kRead : 0) | (perms[1] == 'w' ? kWrite : 0) |
                           (perms[2] == 'x' ? kExec : 0) | (perms[3] == 's' ? kShared : 0);
    const int ok = q.vma_start == start && q.vma_end == end && q.vma_flags == flags &&
                   q.vma_offset == offset && q.dev_major == major_ && q.dev_minor == minor_ &&
                   q.inode == inode && strcmp(g_name, name) == 0 &&
                   q.vma_name_size == (name[0] ? strlen(name) + 1 : 0) && q.vma_page_size >= 4096;
    if (!ok)
      NOTE("differs: %s / %lx-%lx %lx %lx %x:%x %lu %s", line, (unsigned long)q.vma_start,
           (unsigned long)q.vma_end, (unsigned long)q.vma_flags, (unsigned long)q.vma_offset, q.dev_major,
           q.dev_minor, (unsigned long)q.inode, g_name);
    same += ok;
  }
  fclose(f);
  CHECK(lines > 3);
  CHECK_EQ(same, lines);

  // A gap: ENOENT, or the next VMA.
  if (CHECK(gap != 0)) {
    CHECK_EQ(query(gap, 0, &q), ENOENT);
    CHECK_EQ(query(gap, kCoveringOrNext, &q), 0);
    CHECK_EQ(q.vma_start, after_gap);
  }
  // Filters: an anonymous read-write page is neither executable nor file-backed.
  char* anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(anon != MAP_FAILED);
  CHECK_EQ(query((uint64_t)(uintptr_t)anon, 0, &q), 0);
  CHECK_EQ(q.vma_flags, kRead | kWrite);
  CHECK_EQ(q.inode, 0);
  CHECK_EQ(query((uint64_t)(uintptr_t)anon, kExec, &q), ENOENT);
  CHECK_EQ(query((uint64_t)(uintptr_t)anon, kFileBacked, &q), ENOENT);
  // From address 0 on: the first VMA with a file, the first executable one.
  CHECK_EQ(query(0, kFileBacked | kCoveringOrNext, &q), 0);
  CHECK_EQ(q.vma_start, first_file);
  CHECK_EQ(query(0, kExec | kCoveringOrNext, &q), 0);
  CHECK_EQ(q.vma_start, first_exec);
  CHECK_EQ(query(~0ULL << 60, kCoveringOrNext, &q), ENOENT);

  // The program's build ID, from a VMA of its file.
  uint8_t want[20], got[20];
  const size_t want_size = file_build_id("/proc/self/exe", want);
  CHECK_EQ(query((uint64_t)(uintptr_t)&main, 0, &q), 0);
  q.build_id_size = sizeof got;
  q.build_id_addr = (uint64_t)(uintptr_t)got;
  CHECK_EQ(ioctl(g_maps, PROCMAP_QUERY_, &q), 0);
  CHECK_EQ(q.build_id_size, want_size);
  CHECK(want_size == 0 || memcmp(got, want, want_size) == 0);
  if (want_size > 1) {
    q.build_id_size = 1;
    errno = 0;
    CHECK_EQ(ioctl(g_maps, PROCMAP_QUERY_, &q), -1);
    CHECK_EQ(errno, ENAMETOOLONG);
  }

  // Errors.
  CHECK_EQ(query((uint64_t)(uintptr_t)anon, 0x40, &q), EINVAL);
  memset(&q, 0, sizeof q);
  q.size = 16;
  errno = 0;
  CHECK_EQ(ioctl(g_maps, PROCMAP_QUERY_, &q), -1);
  CHECK_EQ(errno, EINVAL);
  q.size = 8192;
  errno = 0;
  CHECK_EQ(ioctl(g_maps, PROCMAP_QUERY_, &q), -1);
  CHECK_EQ(errno, E2BIG);
  q.size = sizeof q;
  q.query_addr = (uint64_t)(uintptr_t)&main;
  q.vma_name_size = 8;  // without an address
  errno = 0;
  CHECK_EQ(ioctl(g_maps, PROCMAP_QUERY_, &q), -1);
  CHECK_EQ(errno, EINVAL);
  q.vma_name_addr = (uint64_t)(uintptr_t)g_name;
  q.vma_name_size = 2;  // the program's path does not fit
  errno = 0;
  CHECK_EQ(ioctl(g_maps, PROCMAP_QUERY_, &q), -1);
  CHECK_EQ(errno, ENAMETOOLONG);
  errno = 0;
  CHECK_EQ(ioctl(g_maps, PROCMAP_QUERY_, (void*)8), -1);
  CHECK_EQ(errno, EFAULT);
  int status = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  REQUIRE(status >= 0);
  errno = 0;
  CHECK_EQ(ioctl(status, PROCMAP_QUERY_, &q), -1);
  CHECK_EQ(errno, ENOTTY);
  close(status);
  close(g_maps);
  return check_done();
}
