// What lazyfuse-fuzz prints when it crashes: the signal and the call stack, on stderr, before the
// process dies of the signal as it would have. A crash on the GPU machine, where device time is
// short, then says where it happened without a second run under a debugger; the batch being
// run is the last "batch seed S programs A..B" line before it.
#pragma once

namespace lazy::fuzz {

// Installs the report for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT.
void install_crash_report();

}  // namespace lazy::fuzz
