// Security module syscalls: the LSM attribute calls (lsm_get_self_attr(2) and friends) and Landlock
// (landlock_create_ruleset(2) and friends), on the host's.
#pragma once

#include "syscalls/dispatch.h"

namespace syscalls {

SysResult sys_lsm_get_self_attr(Task& t, uint32_t attr, uint64_t ctx, uint64_t size, uint32_t flags);
SysResult sys_lsm_set_self_attr(Task& t, uint32_t attr, uint64_t ctx, uint32_t size, uint32_t flags);
SysResult sys_lsm_list_modules(Task& t, uint64_t ids, uint64_t size, uint32_t flags);
SysResult sys_landlock_create_ruleset(Task& t, uint64_t attr, uint64_t size, uint32_t flags);
SysResult sys_landlock_add_rule(Task& t, int ruleset_fd, uint32_t rule_type, uint64_t attr, uint32_t flags);
SysResult sys_landlock_restrict_self(Task& t, int ruleset_fd, uint32_t flags);

}  // namespace syscalls
