// This file serves the reads and writes of the guest's /proc/PID/mem and pagemap descriptors (proc_mem.cpp
// notes them) as Linux's mem_rw and pagemap_read with guest addresses, through the host file at the host
// address of each guest address, and makes process_vm_readv/writev's copies with another a64run's window.
//
// mem (fs/proc/base.c mem_rw): a page-sized chunk at a time through access_remote_vm with FOLL_FORCE, which
// reads and writes mapped pages whatever their protection (AddressSpace::forced_reach has the rules). An
// unmapped first page is EIO, a later one ends the count short; a fault in the caller's buffer is EFAULT,
// and a write copies each chunk from the buffer before it writes. Writes into code that ran drop every
// vCPU's translations, as arm64's copy_to_user_page makes the instruction cache coherent.
// pagemap (fs/proc/task_mmu.c pagemap_read): 8-byte entries for guest pages up to TASK_SIZE, walked 2 MiB
// at a time; the host's entry for a mapped guest page, 0 for one outside every mapping.
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "syscalls/abi/iovec.h"
#include "syscalls/proc_mem.h"

namespace syscalls {
namespace {

constexpr uint64_t kChunk = emu::kPageSize;  // mem_rw's bounce page
constexpr uint64_t kWalk = 512;              // pagemap entries per walk: PAGEMAP_WALK_SIZE, 2 MiB
constexpr uint64_t kEntry = 8;               // PM_ENTRY_BYTES

uint64_t host_base(Task& t, const MemTarget& tg) {
  return tg.kind == MemTargetKind::kOwn ? reinterpret_cast<uint64_t>(t.as().base()) : tg.base;
}

// How many bytes from guest address addr (at most count) a mem access reaches in the target.
uint64_t mem_reach(Task& t, const MemTarget& tg, uint64_t addr, uint64_t count, bool write, bool* code) {
  if (tg.kind == MemTargetKind::kOwn) return t.as().forced_reach(addr, count, write, code);
  if (tg.kind != MemTargetKind::kWindow || addr >= tg.size) return 0;
  // Another a64run's VMAs are its own: its host mappings stand for them (its reservation is PROT_NONE).
  const uint64_t n = std::min(count, tg.size - addr);
  HostMaps maps;
  if (!maps.load(tg.dir, tg.base + addr, tg.base + addr + n)) return 0;
  return maps.prefix(tg.base + addr, n);
}

int64_t host_rw(int fd, uint8_t* page, uint64_t n, uint64_t off, bool write) {
  return write ? ::pwrite(fd, page, n, static_cast<off_t>(off))
               : ::pread(fd, page, n, static_cast<off_t>(off));
}

// mem_rw: count bytes at guest address *pos; *pos moves by what was copied, even when the result is EFAULT.
int64_t mem_rw(Task& t, int fd, const MemTarget& tg, uint64_t buf, uint64_t count, uint64_t* pos, bool write,
               bool* code) {
  if (count == 0) return 0;
  uint64_t addr = *pos;
  const uint64_t reach = mem_reach(t, tg, addr, count, write, code);
  const uint64_t base = host_base(t, tg);
  uint8_t page[kChunk];
  int64_t copied = 0;
  while (count > 0) {
    const uint64_t len = std::min(count, kChunk);
    if (write && emu::copy_in(t.as(), page, buf, len) != 0) {
      copied = -EFAULT;
      break;
    }
    const uint64_t n = std::min<uint64_t>(len, reach - static_cast<uint64_t>(copied));
    const int64_t got = n == 0 ? 0 : host_rw(fd, page, n, base + addr, write);
    if (got <= 0) {
      if (copied == 0) copied = -EIO;
      break;
    }
    if (!write && emu::copy_out(t.as(), buf, page, static_cast<size_t>(got)) != 0) {
      copied = -EFAULT;
      break;
    }
    buf += static_cast<uint64_t>(got);
    addr += static_cast<uint64_t>(got);
    copied += got;
    count -= static_cast<uint64_t>(got);
  }
  *pos = addr;
  return copied;
}

// The guest pages of [start, end) that the target maps (guest addresses).
std::vector<std::pair<uint64_t, uint64_t>> mapped_guest(Task& t, const MemTarget& tg, uint64_t start,
                                                        uint64_t end) {
  if (tg.kind == MemTargetKind::kOwn) return t.as().mapped_ranges(start, end);
  std::vector<std::pair<uint64_t, uint64_t>> out;
  if (tg.kind != MemTargetKind::kWindow || start >= tg.size) return out;
  HostMaps maps;
  if (!maps.load(tg.dir, tg.base + start, tg.base + std::min(end, tg.size))) return out;
  for (const auto& [s, e] : maps.ranges()) out.emplace_back(s - tg.base, e - tg.base);
  return out;
}

// Entries [vpn, vpn + n) into `entries`: the host's for mapped pages (ranges `mapped`), else 0.
void fill_entries(int fd, uint64_t base, uint64_t vpn, uint64_t n,
                  const std::vector<std::pair<uint64_t, uint64_t>>& mapped, uint64_t* entries) {
  memset(entries, 0, n * kEntry);
  const uint64_t lo = vpn * emu::kPageSize, hi = (vpn + n) * emu::kPageSize;
  for (const auto& [s, e] : mapped) {
    const uint64_t a = std::max(s, lo), b = std::min(e, hi);
    if (a >= b) continue;
    const uint64_t first = a / emu::kPageSize - vpn, count = (b - a) / emu::kPageSize;
    const auto off = static_cast<off_t>((base + a) / emu::kPageSize * kEntry);
    if (::pread(fd, entries + first, count * kEntry, off) != static_cast<ssize_t>(count * kEntry))
      memset(entries + first, 0, count * kEntry);
  }
}

// pagemap_read: count bytes of entries from *pos (both multiples of 8); *pos moves by the bytes read.
int64_t pagemap_read(Task& t, int fd, const MemTarget& tg, uint64_t buf, uint64_t count, uint64_t* pos) {
  if (*pos % kEntry != 0 || count % kEntry != 0) return -EINVAL;
  if (count == 0) return 0;
  const uint64_t end_vpn = emu::kTaskSize / emu::kPageSize;
  uint64_t vpn = std::min(*pos / kEntry, end_vpn);  // past TASK_SIZE: nothing, not an error
  const uint64_t stop = vpn + std::min(count / kEntry, end_vpn - vpn);
  const auto mapped = mapped_guest(t, tg, vpn * emu::kPageSize, stop * emu::kPageSize);
  const uint64_t base = host_base(t, tg);
  uint64_t entries[kWalk];
  uint64_t copied = 0;
  while (vpn < stop) {
    const uint64_t walk_end = std::min((vpn / kWalk + 1) * kWalk, stop);
    const uint64_t n = walk_end - vpn;
    fill_entries(fd, base, vpn, n, mapped, entries);
    if (emu::copy_out(t.as(), buf + copied, entries, n * kEntry) != 0) return -EFAULT;
    copied += n * kEntry;
    vpn = walk_end;
  }
  *pos += copied;
  return static_cast<int64_t>(copied);
}

// The guest's buffers: import_iovec's checks for the vector forms, vfs_read's access_ok for one buffer.
int64_t import_segments(Task& t, const MemIo& io, std::vector<guest::iovec>* segs) {
  if (!io.vector) {
    if (!emu::user_range_ok(io.buf, io.count)) return -EFAULT;
    segs->push_back({io.buf, std::min(io.count, guest::kMaxRwCount)});
    return 0;
  }
  if (io.iovcnt > static_cast<uint64_t>(guest::kUIO_MAXIOV)) return -EINVAL;
  segs->resize(io.iovcnt);
  if (io.iovcnt != 0 && emu::copy_in(t.as(), segs->data(), io.iov, io.iovcnt * sizeof(guest::iovec)) != 0)
    return -EFAULT;
  if (guest::clamp_iovecs(*segs) < 0) return -EINVAL;
  for (const guest::iovec& v : *segs) {
    if (!emu::user_range_ok(v.iov_base, v.iov_len)) return -EFAULT;
  }
  return 0;
}

// The checks vfs_read/vfs_write and vfs_readv make before the file's own method: the descriptor's mode, the
// buffers, the position (mem's offsets are unsigned, FMODE_UNSIGNED_OFFSET; pagemap's are not), the flags.
int64_t check_io(Task& t, int fd, bool pagemap, const MemIo& io, std::vector<guest::iovec>* segs,
                 uint64_t* pos) {
  if (io.pos < -1) return -EINVAL;  // preadv2/pwritev2 take -1 for the file position, nothing else negative
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl < 0 || (fl & O_PATH)) return -EBADF;
  const int acc = fl & O_ACCMODE;
  if (io.write ? acc == O_RDONLY : acc == O_WRONLY) return -EBADF;
  if (io.write && pagemap) return -EINVAL;  // no write method: FMODE_CAN_WRITE is clear
  if (const int64_t r = import_segments(t, io, segs); r < 0) return r;
  uint64_t total = io.vector ? 0 : io.count;
  for (const guest::iovec& v : *segs) total += io.vector ? v.iov_len : 0;
  if (io.vector && total == 0) return 1;
  if (io.pos != -1) {
    *pos = static_cast<uint64_t>(io.pos);
  } else {
    // mem_lseek's SEEK_CUR never fails: a position in the last 4095 bytes below 2^64 comes back as an
    // error number.
    const long r = ::syscall(SYS_lseek, fd, 0, SEEK_CUR);
    *pos = static_cast<uint64_t>(r == -1 ? -static_cast<long>(errno) : r);
  }
  if (static_cast<int64_t>(*pos) < 0) {
    if (pagemap) return -EINVAL;
    if (total >= 0 - *pos) return -EOVERFLOW;
  }
  if (io.vector && (io.flags & ~RWF_HIPRI) != 0) return -EOPNOTSUPP;  // do_loop_readv_writev
  return 0;
}

}  // namespace

int64_t proc_mem_io(Task& t, int fd, const MemIo& io) {
  MemTarget tg;
  bool pagemap = false;
  if (!proc_mem_lookup(fd, &tg, &pagemap) || tg.kind == MemTargetKind::kPassThrough) return kNotProcMem;
  std::vector<guest::iovec> segs;
  uint64_t pos = 0;
  if (const int64_t r = check_io(t, fd, pagemap, io, &segs, &pos); r != 0) return r < 0 ? r : 0;
  // do_loop_readv_writev: one file method call per buffer, up to the first short one.
  int64_t done = 0;
  bool code = false;
  for (const guest::iovec& v : segs) {
    if (io.vector && v.iov_len == 0) continue;
    const int64_t r = pagemap ? pagemap_read(t, fd, tg, v.iov_base, v.iov_len, &pos)
                              : mem_rw(t, fd, tg, v.iov_base, v.iov_len, &pos, io.write, &code);
    if (r < 0) {
      if (done == 0) done = r;
      break;
    }
    done += r;
    if (static_cast<uint64_t>(r) != v.iov_len) break;
  }
  if (done >= 0 && io.pos == -1) (void)::syscall(SYS_lseek, fd, static_cast<off_t>(pos), SEEK_SET);
  if (code && io.write && done > 0) {
    // The new instructions are what every thread runs once this returns (CodeGate, as for ic ivau).
    emu::CodeGate::Closed closed(t.as().gate());
    t.as().invalidate_code();
  }
  return done;
}

int64_t window_transfer(Task& t, int memfd, const MemTarget& target, std::span<const guest::iovec> local,
                        std::span<const guest::iovec> remote, bool write) {
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const guest::iovec& r : remote) {
    if (r.iov_len == 0 || r.iov_base >= target.size) continue;
    lo = std::min(lo, r.iov_base);
    hi = std::max(hi, r.iov_base + std::min(r.iov_len, target.size - r.iov_base));
  }
  HostMaps maps;
  if (lo < hi) (void)maps.load(target.dir, target.base + lo, target.base + hi);
  const auto failed = [](int64_t total) { return total != 0 ? total : -EFAULT; };
  size_t li = 0;
  uint64_t loff = 0;
  int64_t total = 0;
  uint8_t page[kChunk];
  for (const guest::iovec& r : remote) {
    for (uint64_t roff = 0; roff < r.iov_len;) {
      while (li < local.size() && loff >= local[li].iov_len) {
        ++li;
        loff = 0;
      }
      if (li == local.size()) return total;
      const uint64_t a = r.iov_base + roff;
      uint64_t n = std::min({kChunk, r.iov_len - roff, local[li].iov_len - loff});
      n = r.iov_base < target.size && a < target.size
              ? maps.prefix(target.base + a, std::min(n, target.size - a))
              : 0;
      if (n == 0) return failed(total);
      const uint64_t at = local[li].iov_base + loff;
      if (write && emu::copy_in(t.as(), page, at, n) != 0) return failed(total);
      const int64_t got = host_rw(memfd, page, n, target.base + a, write);
      if (got <= 0) return failed(total);
      if (!write && emu::copy_out(t.as(), at, page, static_cast<size_t>(got)) != 0) return failed(total);
      total += got;
      roff += static_cast<uint64_t>(got);
      loff += static_cast<uint64_t>(got);
    }
  }
  return total;
}

}  // namespace syscalls
