// Arm64's memory order on the x86-64 host (emu/memory_order.cpp): where translated code needs a fence.
#pragma once

namespace emu {

// A new translation starts on this thread (from the translator's wrapper): no release store is pending.
void memory_order_translation_start();

}  // namespace emu
