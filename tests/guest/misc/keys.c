// Key management: add_key, keyctl (READ with a short and a long buffer, DESCRIBE, UPDATE, SEARCH, REVOKE,
// INSTANTIATE errors), request_key, and the fault answers. The keys live in the host kernel's keyrings.
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define KEY_SPEC_PROCESS_KEYRING -2
#define KEYCTL_UPDATE 2
#define KEYCTL_REVOKE 3
#define KEYCTL_DESCRIBE 6
#define KEYCTL_SEARCH 10
#define KEYCTL_READ 11
#define KEYCTL_DH_COMPUTE 23

static long add_key(const char* type, const char* desc, const void* payload, size_t len, int ring) {
  return syscall(SYS_add_key, type, desc, payload, len, ring);
}
static long keyctl(int cmd, long a2, long a3, long a4, long a5) {
  return syscall(SYS_keyctl, cmd, a2, a3, a4, a5);
}

int main(void) {
  char desc[64];
  snprintf(desc, sizeof desc, "a64run:test:%d", getpid());
  long key = add_key("user", desc, "secret-payload", 14, KEY_SPEC_PROCESS_KEYRING);
  if (key == -1 && errno == ENOSYS) {
    CHECK(on_reference_qemu());  // qemu-aarch64 7.2 has no key management calls
    return check_done();
  }
  CHECK_GT(key, 0);

  char buf[64];
  memset(buf, 0, sizeof buf);
  CHECK_EQ(keyctl(KEYCTL_READ, key, (long)buf, sizeof buf, 0), 14);
  CHECK_STREQ(buf, "secret-payload");
  // A short buffer is left alone; the result is still the whole length.
  memset(buf, 0, sizeof buf);
  CHECK_EQ(keyctl(KEYCTL_READ, key, (long)buf, 6, 0), 14);
  CHECK_STREQ(buf, "");
  CHECK_EQ(keyctl(KEYCTL_READ, key, 0, 0, 0), 14);  // the length only

  // DESCRIBE: "type;uid;gid;perm;description", written only when it all fits.
  memset(buf, 'Z', sizeof buf);
  long n = keyctl(KEYCTL_DESCRIBE, key, (long)buf, sizeof buf, 0);
  CHECK_GT(n, 0);
  CHECK(strncmp(buf, "user;", 5) == 0);
  CHECK(strstr(buf, desc) != NULL);
  memset(buf, 'Z', sizeof buf);
  CHECK_EQ(keyctl(KEYCTL_DESCRIBE, key, (long)buf, 4, 0), n);
  CHECK_EQ(buf[0], 'Z');

  CHECK_SYS(keyctl(KEYCTL_UPDATE, key, (long)"new", 3, 0));
  memset(buf, 0, sizeof buf);
  CHECK_EQ(keyctl(KEYCTL_READ, key, (long)buf, sizeof buf, 0), 3);
  CHECK_STREQ(buf, "new");
  CHECK_EQ(keyctl(KEYCTL_SEARCH, KEY_SPEC_PROCESS_KEYRING, (long)"user", (long)desc, 0), key);
  CHECK_EQ(syscall(SYS_request_key, "user", desc, NULL, 0), key);

  // Faults and bad values.
  CHECK_ERRNO(keyctl(KEYCTL_READ, key, 8, sizeof buf, 0), EFAULT);
  CHECK_ERRNO(add_key("user", desc, (void*)8, 4, KEY_SPEC_PROCESS_KEYRING), EFAULT);
  CHECK_ERRNO(add_key((char*)8, desc, "x", 1, KEY_SPEC_PROCESS_KEYRING), EFAULT);
  CHECK_ERRNO(add_key("user", desc, "x", 1024 * 1024, KEY_SPEC_PROCESS_KEYRING), EINVAL);
  CHECK_ERRNO(add_key("no_such_type", desc, "x", 1, KEY_SPEC_PROCESS_KEYRING), ENODEV);
  CHECK_ERRNO(syscall(SYS_request_key, "user", "a64run:absent", NULL, 0), ENOKEY);

  CHECK_SYS(keyctl(KEYCTL_REVOKE, key, 0, 0, 0));
  CHECK_ERRNO(keyctl(KEYCTL_READ, key, (long)buf, sizeof buf, 0), EKEYREVOKED);
  return check_done();
}
