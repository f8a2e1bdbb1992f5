// This file tests parse_elf: hand-built images (valid and broken), real aarch64 binaries built at test time,
// and truncated or byte-flipped variants that must never make the parser crash or read out of bounds.
#include "emu/elf.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <random>

#include "tests/fuzz/elf_testing.h"

namespace emu {
namespace {

using elf_testing::broken_invariant;
using elf_testing::ElfImage;
using elf_testing::go_image;
using elf_testing::kInterp;
using elf_testing::make_phdr;
using elf_testing::pie_image;
using elf_testing::static_image;

constexpr uint64_t kVaLimit = uint64_t{1} << 48;

// Memory whose last usable byte sits just below a PROT_NONE page, so that a read past the end of what
// place() returns faults at once (and AddressSanitizer is not needed to see it). Reused across many
// parses: real binaries are large, and a fresh allocation per variant made these tests take minutes.
class GuardedBuffer {
 public:
  explicit GuardedBuffer(size_t capacity)
      : size_((capacity + kElfPageSize - 1) / kElfPageSize * kElfPageSize) {
    void* p = mmap(nullptr, size_ + kElfPageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) abort();
    base_ = static_cast<uint8_t*>(p);
    if (mprotect(base_ + size_, kElfPageSize, PROT_NONE) != 0) abort();
  }
  ~GuardedBuffer() { munmap(base_, size_ + kElfPageSize); }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  // Copies `bytes` so that they end at the guard page; returns the copy.
  std::span<uint8_t> place(std::span<const uint8_t> bytes) {
    uint8_t* start = base_ + size_ - bytes.size();
    if (!bytes.empty()) memcpy(start, bytes.data(), bytes.size());
    return {start, bytes.size()};
  }

 private:
  size_t size_;
  uint8_t* base_;
};

// Parses a copy that ends right before a guard page, so that any read past the end of the file faults.
bool parse_exact(std::span<const uint8_t> bytes, ElfInfo* info, std::string* error,
                 uint64_t va_limit = kVaLimit) {
  GuardedBuffer buffer(bytes.size());
  return parse_elf(buffer.place(bytes), va_limit, info, error);
}

// What every accepted image promises its loader (see ElfSegment and ElfInfo).
void expect_invariants(std::span<const uint8_t> file, const ElfInfo& info, uint64_t va_limit = kVaLimit) {
  const char* broken = broken_invariant(file, info, va_limit);
  EXPECT_EQ(broken, nullptr) << "broken invariant: " << broken;
}

ElfInfo parse_ok(const ElfImage& img, uint64_t va_limit = kVaLimit) {
  std::vector<uint8_t> bytes = img.bytes();
  ElfInfo info;
  std::string error;
  EXPECT_TRUE(parse_exact(bytes, &info, &error, va_limit)) << error;
  if (error.empty()) expect_invariants(bytes, info, va_limit);
  return info;
}

TEST(ElfTest, ParsesMinimalStaticImage) {
  ElfInfo info = parse_ok(static_image());
  EXPECT_EQ(info.type, ET_EXEC);
  EXPECT_EQ(info.entry, 0x400100u);
  EXPECT_EQ(info.phoff, 64u);
  EXPECT_EQ(info.phentsize, 56);
  EXPECT_EQ(info.phnum, 3);
  ASSERT_EQ(info.loads.size(), 2u);
  EXPECT_EQ(info.loads[0].vaddr, 0x400000u);
  EXPECT_EQ(info.loads[0].prot, PROT_READ | PROT_EXEC);
  EXPECT_EQ(info.loads[1].vaddr, 0x411000u);
  EXPECT_EQ(info.loads[1].offset, 0x1000u);
  EXPECT_EQ(info.loads[1].filesz, 0x100u);
  EXPECT_EQ(info.loads[1].memsz, 0x3000u);
  EXPECT_EQ(info.loads[1].align, 0x10000u);
  EXPECT_EQ(info.loads[1].prot, PROT_READ | PROT_WRITE);
  EXPECT_EQ(info.interp, "");
  EXPECT_FALSE(info.exec_stack);
  EXPECT_EQ(info.min_vaddr, 0x400000u);
  EXPECT_EQ(info.max_vaddr, 0x414000u);
  EXPECT_EQ(info.phdr_vaddr, 0x400040u);
}

TEST(ElfTest, ParsesMinimalPieImage) {
  ElfInfo info = parse_ok(pie_image());
  EXPECT_EQ(info.type, ET_DYN);
  EXPECT_EQ(info.interp, kInterp);
  EXPECT_EQ(info.min_vaddr, 0u);
  EXPECT_EQ(info.max_vaddr, 0x14000u);
  EXPECT_EQ(info.phdr_vaddr, 64u);
}

TEST(ElfTest, ParsesMinimalGoLikeImage) {
  ElfInfo info = parse_ok(go_image());
  EXPECT_EQ(info.type, ET_EXEC);
  ASSERT_EQ(info.loads.size(), 3u);
  EXPECT_EQ(info.loads[1].prot, PROT_READ);
  EXPECT_EQ(info.min_vaddr, 0x10000u);
  EXPECT_EQ(info.max_vaddr, 0x36000u);
  EXPECT_EQ(info.phdr_vaddr, 0x10040u);
}

TEST(ElfTest, StackIsExecutableOnlyWithGnuStackPfX) {
  ElfImage img = static_image();
  img.ph[2].p_flags = PF_R | PF_W | PF_X;
  EXPECT_TRUE(parse_ok(img).exec_stack);
  img.ph[2].p_type = PT_NOTE;  // No PT_GNU_STACK: arm64 Linux >= 5.8 keeps the stack non-executable.
  EXPECT_FALSE(parse_ok(img).exec_stack);
}

TEST(ElfTest, SkipsEmptyLoadSegments) {
  ElfImage img = static_image();
  img.ph[2] = make_phdr(PT_LOAD, PF_R, 0, 0x300000, 0, 0, 0x1000);  // out of order, but empty
  EXPECT_EQ(parse_ok(img).loads.size(), 2u);
}

TEST(ElfTest, AcceptsSegmentsSharingAPage) {
  ElfImage img = static_image();
  img.ph[0].p_filesz = img.ph[0].p_memsz = 0x800;
  img.ph[1] = make_phdr(PT_LOAD, PF_R | PF_W, 0x800, 0x400800, 0x100, 0x1000, 0x1000);
  ElfInfo info = parse_ok(img);
  EXPECT_EQ(info.max_vaddr, 0x402000u);
}

TEST(ElfTest, AcceptsEntryInPageRoundedPartOfTextSegment) {
  ElfImage img = static_image();
  img.ph[0].p_memsz = img.ph[0].p_filesz = 0x800;
  img.eh.e_entry = 0x400ffc;
  parse_ok(img);
}

TEST(ElfTest, PhdrVaddrFallsBackToPtPhdr) {
  ElfImage img = pie_image();
  img.ph[2] = make_phdr(PT_LOAD, PF_R | PF_X, 0x1000, 0x1000, 0x800, 0x800, 0x1000);  // headers unmapped
  img.ph[3] = make_phdr(PT_LOAD, PF_R | PF_W, 0x1800, 0x2800, 0x100, 0x100, 0x1000);
  img.eh.e_entry = 0x1100;
  img.ph[0].p_vaddr = 0x1040;  // claims the table sits in the text segment
  EXPECT_EQ(parse_ok(img).phdr_vaddr, 0x1040u);
  img.ph[0].p_vaddr = 0x9000;  // outside every PT_LOAD
  EXPECT_EQ(parse_ok(img).phdr_vaddr, 0u);
}

TEST(ElfTest, AcceptsPrelinkedPieAboveTheLimit) {
  ElfImage img = pie_image();
  const uint64_t base = uint64_t{1} << 50;
  img.ph[2].p_vaddr += base;
  img.ph[3].p_vaddr += base;
  img.eh.e_entry += base;
  EXPECT_EQ(parse_ok(img).min_vaddr, base);
}

TEST(ElfTest, AcceptsExecEndingExactlyAtTheLimit) {
  parse_ok(static_image(), 0x414000);
}

TEST(ElfTest, InterpStopsAtFirstNul) {
  ElfImage img = pie_image();
  img.blobs = {{0x200, std::string("/lib/ld.so\0junk\0", 16)}};
  img.ph[1].p_filesz = 16;
  EXPECT_EQ(parse_ok(img).interp, "/lib/ld.so");
}

TEST(ElfTest, NamesMachines) {
  EXPECT_STREQ(elf_machine_name(EM_X86_64), "x86-64");
  EXPECT_STREQ(elf_machine_name(EM_AARCH64), "aarch64");
  EXPECT_STREQ(elf_machine_name(EM_RISCV), "riscv");
  EXPECT_STREQ(elf_machine_name(EM_ARM), "arm");
  EXPECT_STREQ(elf_machine_name(0x7777), "unknown");
}

// One broken variant of a valid image and the message substring that its rejection must contain.
struct BrokenCase {
  const char* name;
  ElfImage (*base)();
  std::function<void(ElfImage&)> mutate;
  const char* want;
  uint64_t va_limit = kVaLimit;
};

void PrintTo(const BrokenCase& c, std::ostream* os) {
  *os << c.name;
}

const BrokenCase kBrokenCases[] = {
    {"Empty", static_image, [](ElfImage& i) { i.size = 0; }, "not an ELF file (empty)"},
    {"ShortMagic", static_image, [](ElfImage& i) { i.size = 3; }, "truncated ELF header"},
    {"ShortIdent", static_image, [](ElfImage& i) { i.size = 10; }, "truncated ELF header"},
    {"ShortHeader", static_image, [](ElfImage& i) { i.size = 40; }, "truncated ELF header"},
    {"BadMagic", static_image, [](ElfImage& i) { i.eh.e_ident[1] = 'X'; }, "not an ELF file (bad magic)"},
    {"Script", static_image, [](ElfImage& i) { memcpy(i.eh.e_ident, "#!/b", 4); }, "bad magic"},
    {"Class32", static_image,
     [](ElfImage& i) {
       i.eh.e_ident[EI_CLASS] = ELFCLASS32;
       i.eh.e_machine = EM_ARM;  // at the same offset in ELF32 and ELF64 headers
     },
     "32-bit ELF for machine 40 (arm)"},
    {"BadClass", static_image, [](ElfImage& i) { i.eh.e_ident[EI_CLASS] = 7; }, "bad ELF class 7"},
    {"BigEndian", static_image, [](ElfImage& i) { i.eh.e_ident[EI_DATA] = ELFDATA2MSB; }, "big-endian"},
    {"BadData", static_image, [](ElfImage& i) { i.eh.e_ident[EI_DATA] = 3; }, "(EI_DATA)"},
    {"BadIdentVersion", static_image, [](ElfImage& i) { i.eh.e_ident[EI_VERSION] = 0; }, "(EI_VERSION)"},
    {"BadVersion", static_image, [](ElfImage& i) { i.eh.e_version = 2; }, "bad ELF version 2 (e_version)"},
    {"X86_64", static_image, [](ElfImage& i) { i.eh.e_machine = EM_X86_64; },
     "ELF for machine 62 (x86-64), not aarch64"},
    {"Riscv", static_image, [](ElfImage& i) { i.eh.e_machine = EM_RISCV; }, "243 (riscv), not aarch64"},
    {"Relocatable", static_image, [](ElfImage& i) { i.eh.e_type = ET_REL; }, "relocatable object"},
    {"Core", static_image, [](ElfImage& i) { i.eh.e_type = ET_CORE; }, "core file"},
    {"TypeNone", static_image, [](ElfImage& i) { i.eh.e_type = ET_NONE; }, "ELF type 0 is not an executable"},
    {"PhentSize", static_image, [](ElfImage& i) { i.eh.e_phentsize = 32; }, "(e_phentsize), expected 56"},
    {"NoPhdrs", static_image, [](ElfImage& i) { i.eh.e_phnum = 0; }, "no program headers"},
    {"TooManyPhdrs", static_image, [](ElfImage& i) { i.eh.e_phnum = 1025; }, "too many program headers"},
    {"PhdrsPastEnd", static_image, [](ElfImage& i) { i.eh.e_phoff = 0x2000 - 100; }, "program header table"},
    {"PhoffOverflow", static_image, [](ElfImage& i) { i.eh.e_phoff = ~uint64_t{0} - 63; },
     "program header table"},
    {"NoLoad", static_image, [](ElfImage& i) { i.ph[0].p_type = i.ph[1].p_type = PT_NOTE; },
     "no loadable segment"},
    {"FileszOverMemsz", static_image, [](ElfImage& i) { i.ph[1].p_filesz = 0x4000; },
     "segment 1: p_filesz 0x4000 is larger than p_memsz 0x3000"},
    {"LoadPastEnd", static_image, [](ElfImage& i) { i.ph[1].p_filesz = 0x1001; },
     "segment 1 extends past the end of the file"},
    {"LoadOffsetOverflow", static_image,
     [](ElfImage& i) {
       i.ph[1].p_offset = ~uint64_t{0} - 0xfff;
       i.ph[1].p_filesz = 0x2000;
     },
     "segment 1 extends past the end of the file"},
    {"VaddrOverflow", static_image, [](ElfImage& i) { i.ph[1].p_memsz = ~uint64_t{0} - 0x410000; },
     "segment 1: p_vaddr"},
    {"VaddrPageOverflow", static_image,
     [](ElfImage& i) {
       i.ph[1].p_vaddr = ~uint64_t{0} - 0xfff;
       i.ph[1].p_memsz = 0xfff;
       i.ph[1].p_filesz = 0xff;
     },
     "overflows"},
    {"AboveLimit", static_image, [](ElfImage&) {},
     "segment 1 ends at 0x414000, beyond the guest address space", 0x413000},
    {"AlignNotPow2", static_image, [](ElfImage& i) { i.ph[1].p_align = 0x3000; }, "not a power of two"},
    {"NotCongruent", static_image, [](ElfImage& i) { i.ph[1].p_vaddr += 0x10; }, "differ modulo the 4 KiB"},
    {"Descending", static_image, [](ElfImage& i) { i.ph[1].p_vaddr = 0x300000; }, "ascending address order"},
    {"Overlapping", static_image, [](ElfImage& i) { i.ph[1].p_vaddr = 0x400000; },
     "segment 1 [0x400000, 0x403000) overlaps segment 0"},
    {"TwoInterps", pie_image, [](ElfImage& i) { i.ph[4] = i.ph[1]; },
     "more than one PT_INTERP (segments 1 and 4)"},
    {"InterpZeroSize", pie_image, [](ElfImage& i) { i.ph[1].p_filesz = 0; }, "is an empty path"},
    {"InterpEmptyString", pie_image,
     [](ElfImage& i) {
       i.blobs = {{0x200, std::string(27, '\0')}};
     },
     "is an empty path"},
    {"InterpTooLong", pie_image, [](ElfImage& i) { i.ph[1].p_filesz = 4097; }, "too long (4097 bytes"},
    {"InterpNoNul", pie_image, [](ElfImage& i) { i.ph[1].p_filesz -= 1; }, "not NUL-terminated"},
    {"InterpPastEnd", pie_image, [](ElfImage& i) { i.ph[1].p_offset = 0x2000 - 10; },
     "PT_INTERP (segment 1) extends past the end of the file"},
    {"InterpOffsetOverflow", pie_image, [](ElfImage& i) { i.ph[1].p_offset = ~uint64_t{0} - 5; },
     "PT_INTERP (segment 1) extends past the end of the file"},
    {"DynSpanTooBig", pie_image, [](ElfImage& i) { i.ph[3].p_vaddr += uint64_t{1} << 40; },
     "position-independent image spans", uint64_t{1} << 40},
    {"EntryInData", static_image, [](ElfImage& i) { i.eh.e_entry = 0x411000; },
     "entry point 0x411000 is not inside an executable PT_LOAD"},
    {"EntryUnmapped", static_image, [](ElfImage& i) { i.eh.e_entry = 0x500000; }, "entry point 0x500000"},
    {"DynEntryZero", pie_image, [](ElfImage& i) { i.eh.e_entry = 0; }, "no entry point (e_entry is 0)"},
};

class ElfRejectTest : public testing::TestWithParam<BrokenCase> {};

TEST_P(ElfRejectTest, RejectsWithClearMessage) {
  const BrokenCase& c = GetParam();
  ElfImage img = c.base();
  c.mutate(img);
  ElfInfo info;
  std::string error;
  EXPECT_FALSE(parse_exact(img.bytes(), &info, &error, c.va_limit));
  EXPECT_NE(error.find(c.want), std::string::npos) << "error: " << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(ElfTest, ElfRejectTest, testing::ValuesIn(kBrokenCases),
                         [](const testing::TestParamInfo<BrokenCase>& param) { return param.param.name; });

constexpr char kDynamicLoader[] = "/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1";

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool have_command(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

// Real aarch64 programs, built on first use into a temporary directory that is removed at exit.
class RealBinaries {
 public:
  static RealBinaries& get() {
    static RealBinaries binaries;
    return binaries;
  }

  // A hello world built with aarch64-linux-gnu-gcc and `flags`; empty if the compiler is missing.
  std::vector<uint8_t> gcc(const std::string& name, const std::string& flags) {
    if (!have_command("aarch64-linux-gnu-gcc")) return {};
    const std::string src = dir_ + "/hello.c", out = dir_ + "/" + name;
    std::ofstream(src) << "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n";
    return build("aarch64-linux-gnu-gcc -O2 " + flags + " -o '" + out + "' '" + src + "'", out);
  }

  // A hello world built with `GOARCH=arm64 CGO_ENABLED=0 go build`; empty if go is missing.
  std::vector<uint8_t> go() {
    if (!have_command("go")) return {};
    const std::string src = dir_ + "/hello.go", out = dir_ + "/hello-go";
    std::ofstream(src) << "package main\n\nfunc main() { println(\"hello\") }\n";
    // Go needs a build cache; without HOME or GOCACHE it has none.
    const std::string cache = getenv("GOCACHE") || getenv("HOME") ? "" : "GOCACHE='" + dir_ + "/go-cache' ";
    return build("cd '" + dir_ + "' && " + cache + "GOARCH=arm64 GOOS=linux CGO_ENABLED=0 go build -o '" +
                     out + "' '" + src + "'",
                 out);
  }

 private:
  RealBinaries() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "a64run-elf-test-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) dir_ = tmpl;
  }
  ~RealBinaries() {
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  }

  // Runs `command` once per `out`; later calls return the bytes it produced the first time.
  std::vector<uint8_t> build(const std::string& command, const std::string& out) {
    if (dir_.empty()) return {};
    auto [it, inserted] = built_.try_emplace(out);
    if (inserted) {
      EXPECT_EQ(std::system((command + " >/dev/null 2>&1").c_str()), 0) << command;
      it->second = read_file(out);
    }
    return it->second;
  }

  std::string dir_;
  std::map<std::string, std::vector<uint8_t>> built_;
};

ElfInfo parse_real(const std::vector<uint8_t>& bytes) {
  ElfInfo info;
  std::string error;
  EXPECT_TRUE(parse_elf(bytes, kVaLimit, &info, &error)) << error;
  if (error.empty()) expect_invariants(bytes, info);
  return info;
}

TEST(ElfTest, ParsesGccStatic) {
  std::vector<uint8_t> bytes = RealBinaries::get().gcc("static", "-static");
  if (bytes.empty()) GTEST_SKIP() << "aarch64-linux-gnu-gcc not found";
  ElfInfo info = parse_real(bytes);
  EXPECT_EQ(info.type, ET_EXEC);
  EXPECT_EQ(info.interp, "");
  EXPECT_FALSE(info.exec_stack);
  EXPECT_EQ(info.loads.front().prot, PROT_READ | PROT_EXEC);
  EXPECT_EQ(info.phdr_vaddr, info.loads.front().vaddr + info.phoff);
}

TEST(ElfTest, ParsesGccStaticPie) {
  std::vector<uint8_t> bytes = RealBinaries::get().gcc("static-pie", "-static-pie");
  if (bytes.empty()) GTEST_SKIP() << "aarch64-linux-gnu-gcc not found";
  ElfInfo info = parse_real(bytes);
  EXPECT_EQ(info.type, ET_DYN);
  EXPECT_EQ(info.interp, "");
  EXPECT_EQ(info.min_vaddr, 0u);
  EXPECT_NE(info.phdr_vaddr, 0u);
}

TEST(ElfTest, ParsesGccDynamic) {
  std::vector<uint8_t> bytes = RealBinaries::get().gcc("dynamic", "");
  if (bytes.empty()) GTEST_SKIP() << "aarch64-linux-gnu-gcc not found";
  ElfInfo info = parse_real(bytes);
  EXPECT_EQ(info.type, ET_DYN);
  EXPECT_EQ(info.interp, kInterp);
  EXPECT_EQ(info.phdr_vaddr, info.phoff);  // PT_PHDR, inside the first PT_LOAD at vaddr 0 offset 0
}

TEST(ElfTest, ParsesDynamicLoader) {
  std::vector<uint8_t> bytes = read_file(kDynamicLoader);
  if (bytes.empty()) GTEST_SKIP() << kDynamicLoader << " not found";
  ElfInfo info = parse_real(bytes);
  EXPECT_EQ(info.type, ET_DYN);
  EXPECT_EQ(info.interp, "");
  EXPECT_EQ(info.min_vaddr, 0u);
  EXPECT_NE(info.entry, 0u);
}

TEST(ElfTest, ParsesGoBinary) {
  std::vector<uint8_t> bytes = RealBinaries::get().go();
  if (bytes.empty()) GTEST_SKIP() << "go not found";
  ElfInfo info = parse_real(bytes);
  EXPECT_EQ(info.type, ET_EXEC);
  EXPECT_EQ(info.interp, "");
  EXPECT_EQ(info.min_vaddr, 0x10000u);  // Go's arm64 text starts at 0x10000, file offset 0
  EXPECT_EQ(info.phdr_vaddr, 0x10040u);
  EXPECT_GE(info.loads.size(), 3u);
}

// The images the robustness tests start from: the hand-built ones, and real ones when they can be had.
std::vector<std::vector<uint8_t>> robustness_seeds() {
  std::vector<std::vector<uint8_t>> seeds = {static_image().bytes(), pie_image().bytes(), go_image().bytes()};
  for (std::vector<uint8_t> real : {RealBinaries::get().gcc("dynamic", ""), read_file(kDynamicLoader),
                                    RealBinaries::get().gcc("static", "-static")}) {
    if (!real.empty()) seeds.push_back(std::move(real));
  }
  return seeds;
}

// Every prefix for the first KiB, then every 64th: the parser must reject or describe each one correctly.
TEST(ElfTest, TruncatedImagesNeverReadOutOfBounds) {
  for (const std::vector<uint8_t>& seed : robustness_seeds()) {
    GuardedBuffer buffer(seed.size());
    for (size_t len = 0; len <= seed.size(); len += (len < 1024 ? 1 : 64)) {
      ElfInfo info;
      std::string error;
      std::span<const uint8_t> prefix = buffer.place(std::span(seed.data(), len));
      if (parse_elf(prefix, kVaLimit, &info, &error)) {
        expect_invariants(prefix, info);
      } else {
        EXPECT_FALSE(error.empty());
      }
    }
  }
}

// Overwrites a few bytes of the first KiB (headers, program headers, PT_INTERP), or a whole 64-bit field
// there with a boundary value. Returns what to write back to undo it, last change first.
std::vector<std::pair<size_t, uint8_t>> mutate(std::span<uint8_t> bytes, std::mt19937_64& rng) {
  std::vector<std::pair<size_t, uint8_t>> undo;
  const size_t area = std::min<size_t>(bytes.size(), 1024);
  const int count = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < count; ++i) {
    size_t pos = rng() % area;
    if (rng() % 4 != 0 || (pos & ~size_t{7}) + 8 > bytes.size()) {
      undo.emplace_back(pos, bytes[pos]);
      bytes[pos] = static_cast<uint8_t>(rng());
      continue;
    }
    pos &= ~size_t{7};
    const uint64_t values[] = {
        0, 1, bytes.size(), bytes.size() - 1, ~uint64_t{0}, ~uint64_t{0} - 0xfff, uint64_t{1} << 63, rng()};
    for (size_t j = 0; j < 8; ++j) undo.emplace_back(pos + j, bytes[pos + j]);
    memcpy(bytes.data() + pos, &values[rng() % std::size(values)], 8);
  }
  return undo;
}

TEST(ElfTest, RandomByteFlipsNeverCrash) {
  std::mt19937_64 rng(20240601);
  int accepted = 0, rejected = 0;
  for (const std::vector<uint8_t>& seed : robustness_seeds()) {
    GuardedBuffer buffer(seed.size());
    std::span<uint8_t> bytes = buffer.place(seed);
    for (int iteration = 0; iteration < 1000; ++iteration) {
      std::vector<std::pair<size_t, uint8_t>> undo = mutate(bytes, rng);
      ElfInfo info;
      std::string error;
      if (parse_elf(bytes, kVaLimit, &info, &error)) {
        ++accepted;
        expect_invariants(bytes, info);
      } else {
        ++rejected;
        EXPECT_FALSE(error.empty());
      }
      for (; !undo.empty(); undo.pop_back()) bytes[undo.back().first] = undo.back().second;
    }
  }
  EXPECT_GT(accepted, 0);  // a mutator that only ever breaks the header would test little
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace emu
