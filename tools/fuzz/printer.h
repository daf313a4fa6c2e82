// A fuzz program as a standalone C++ program against the public API, which prints every held
// value: run it on a GPU and with LAZY_DEVICE=cpu (the reference) to compare.
#pragma once

#include <string>
#include <vector>

#include "tools/fuzz/program.h"

namespace lazy::fuzz {

std::string print_program(std::vector<Program>& programs);

}  // namespace lazy::fuzz
