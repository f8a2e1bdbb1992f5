// The chained jumps between translated blocks: a slot is not a taken branch until it is chained
// (emu/block_chain.cpp).
#pragma once

#include <cstdint>

namespace emu {

// Called for each new block before Unicorn adds it to its host-PC index (the link wraps tcg_tb_insert):
// its unchained jump slots become `test $0,%eax` (falling through to the block's exit, as QEMU's `jmp` to
// the next instruction does). No-op without the wrapped translator, under A64RUN_TAKEN_CHAIN_SLOTS=1, or
// where a slot's bytes are not QEMU's.
void prepare_chain_slots(void* tb);

// How many prepared slots this process has chained (turned from `test` into `jmp`): tests check with it
// that the link put a64run's tb_set_jmp_target in Unicorn's place.
uint64_t chained_slots();

}  // namespace emu
