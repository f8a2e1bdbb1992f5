// Tests the auxiliary vector: getauxval() values against the program's own ELF file and the process's ids,
// and /proc/self/auxv against getauxval(); built static, static-pie and dynamic.
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "check.h"

#ifndef AT_MINSIGSTKSZ
#define AT_MINSIGSTKSZ 51
#endif

extern char _start[];

// The values a later check compares with /proc/self/auxv.
static Elf64_auxv_t proc_auxv[128];
static int proc_auxv_count;

static int read_file(const char* path, void* buf, size_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t got = 0;
  ssize_t n;
  while (got < size && (n = read(fd, (char*)buf + got, size - got)) > 0) got += n;
  close(fd);
  return (int)got;
}

static int has_aux(unsigned long type) {
  for (int i = 0; i < proc_auxv_count; i++) {
    if (proc_auxv[i].a_type == type) return 1;
  }
  return 0;
}

// AT_PHDR/AT_PHENT/AT_PHNUM/AT_ENTRY against the ELF header and program headers of /proc/self/exe.
static void check_against_elf(void) {
  static unsigned char file[1 << 16];
  int size = read_file("/proc/self/exe", file, sizeof(file));
  REQUIRE(size >= (int)sizeof(Elf64_Ehdr));
  const Elf64_Ehdr* eh = (const Elf64_Ehdr*)file;
  REQUIRE(memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0);
  CHECK_EQ(eh->e_machine, EM_AARCH64);
  CHECK_EQ(getauxval(AT_PHENT), sizeof(Elf64_Phdr));
  CHECK_EQ(getauxval(AT_PHENT), eh->e_phentsize);
  CHECK_EQ(getauxval(AT_PHNUM), eh->e_phnum);
  REQUIRE(eh->e_phoff + (size_t)eh->e_phnum * sizeof(Elf64_Phdr) <= (size_t)size);
  const Elf64_Phdr* ph = (const Elf64_Phdr*)(file + eh->e_phoff);

  // The headers are mapped with the PT_LOAD segment that contains e_phoff in the file.
  uint64_t phdr_vaddr = 0;
  int found = 0;
  for (int i = 0; i < eh->e_phnum; i++) {
    if (ph[i].p_type == PT_LOAD && ph[i].p_offset <= eh->e_phoff &&
        eh->e_phoff < ph[i].p_offset + ph[i].p_filesz) {
      phdr_vaddr = ph[i].p_vaddr + (eh->e_phoff - ph[i].p_offset);
      found = 1;
      break;
    }
  }
  REQUIRE(found);
  uint64_t load_bias = getauxval(AT_PHDR) - phdr_vaddr;
  CHECK_EQ(load_bias % 4096, 0);
  if (eh->e_type == ET_EXEC) CHECK_EQ(load_bias, 0);
  CHECK_EQ(getauxval(AT_ENTRY), eh->e_entry + load_bias);
  CHECK_MEMEQ((const void*)getauxval(AT_PHDR), ph, eh->e_phnum * sizeof(Elf64_Phdr));

  int has_interp = 0;
  for (int i = 0; i < eh->e_phnum; i++) has_interp |= ph[i].p_type == PT_INTERP;
  if (has_interp) {
    // AT_BASE: where the dynamic loader was mapped; its ELF header is there.
    uint64_t base = getauxval(AT_BASE);
    CHECK_NE(base, 0);
    CHECK_EQ(base % 4096, 0);
    if (base) CHECK_MEMEQ((const void*)base, ELFMAG, SELFMAG);
  } else {
    CHECK_EQ(getauxval(AT_BASE), 0);
  }
}

static void read_proc_auxv(void) {
  int size = read_file("/proc/self/auxv", proc_auxv, sizeof(proc_auxv));
  REQUIRE(size > 0);
  CHECK_EQ(size % sizeof(Elf64_auxv_t), 0);
  proc_auxv_count = size / sizeof(Elf64_auxv_t);
  // The file ends with the AT_NULL pair.
  REQUIRE(proc_auxv_count > 0);
  CHECK_EQ(proc_auxv[proc_auxv_count - 1].a_type, AT_NULL);
  proc_auxv_count--;
}

int main(int argc, char** argv) {
  (void)argc;
  read_proc_auxv();

  CHECK_EQ(getauxval(AT_PAGESZ), 4096);
  CHECK_EQ(sysconf(_SC_PAGESIZE), 4096);
  CHECK_EQ(getauxval(AT_ENTRY), (uintptr_t)_start);
  check_against_elf();

  // AT_RANDOM: 16 readable bytes of randomness (all zero would mean it was never filled).
  const unsigned char* random = (const unsigned char*)getauxval(AT_RANDOM);
  REQUIRE(random != NULL);
  int nonzero = 0;
  for (int i = 0; i < 16; i++) nonzero |= random[i];
  CHECK(nonzero);

  const char* execfn = (const char*)getauxval(AT_EXECFN);
  REQUIRE(execfn != NULL);
  CHECK_STREQ(execfn, argv[0]);
  const char* platform = (const char*)getauxval(AT_PLATFORM);
  REQUIRE(platform != NULL);
  CHECK_STREQ(platform, "aarch64");

  unsigned long hwcap = getauxval(AT_HWCAP);
  CHECK_EQ(hwcap & (HWCAP_FP | HWCAP_ASIMD), HWCAP_FP | HWCAP_ASIMD);
  CHECK(has_aux(AT_HWCAP));
  CHECK(has_aux(AT_HWCAP2));

  CHECK(has_aux(AT_UID));
  CHECK_EQ(getauxval(AT_UID), getuid());
  CHECK_EQ(getauxval(AT_EUID), geteuid());
  CHECK_EQ(getauxval(AT_GID), getgid());
  CHECK_EQ(getauxval(AT_EGID), getegid());
  CHECK(has_aux(AT_SECURE));
  CHECK_EQ(getauxval(AT_SECURE), 0);
  CHECK_EQ(getauxval(AT_CLKTCK), 100);
  CHECK_EQ(sysconf(_SC_CLK_TCK), 100);
  CHECK(has_aux(AT_FLAGS));
  CHECK_EQ(getauxval(AT_FLAGS), 0);

  // AT_MINSIGSTKSZ (Linux 5.13+ on arm64) is not given by qemu-aarch64 7.2; a64run should give it.
  if (has_aux(AT_MINSIGSTKSZ)) {
    CHECK_GE(getauxval(AT_MINSIGSTKSZ), 1024);
    CHECK_LE(getauxval(AT_MINSIGSTKSZ), 65536);
  } else if (on_reference_qemu()) {
    NOTE("AT_MINSIGSTKSZ is missing: qemu-aarch64 7.2 does not provide it");
  } else {
    CHECK(!"AT_MINSIGSTKSZ is missing from the auxiliary vector");
  }

  // AT_SYSINFO_EHDR (the vDSO) is optional (qemu-aarch64 7.2 has none); when given it is an ELF image.
  if (has_aux(AT_SYSINFO_EHDR)) {
    const void* vdso = (const void*)getauxval(AT_SYSINFO_EHDR);
    CHECK_EQ((uintptr_t)vdso % 4096, 0);
    CHECK_MEMEQ(vdso, ELFMAG, SELFMAG);
  }

  // /proc/self/auxv holds the same pairs getauxval() reads from the initial stack.
  for (int i = 0; i < proc_auxv_count; i++) {
    unsigned long type = proc_auxv[i].a_type;
    errno = 0;
    unsigned long value = getauxval(type);
    if (!CHECK_EQ(value, proc_auxv[i].a_un.a_val)) fprintf(stderr, "  for auxv type %lu\n", type);
    CHECK_EQ(errno, 0);
  }
  errno = 0;
  CHECK_EQ(getauxval(0xdead), 0);
  CHECK_EQ(errno, ENOENT);
  return check_done();
}
