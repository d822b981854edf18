#include "thread_buffer.h"

namespace flopspy::interpose {

ThreadBuffer::ThreadBuffer(uint8_t* memory, size_t capacity)
    : data_(memory), capacity_(capacity), mask_(capacity - 1) {}

}  // namespace flopspy::interpose
