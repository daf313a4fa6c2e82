#include "tools/fuzz/crash_report.h"

#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

namespace lazy::fuzz {

namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr int kMaxFrames = 64;

void write_text(const char* text) {
  ssize_t ignored = ::write(STDERR_FILENO, text, ::strlen(text));
  (void)ignored;
}

// Only async-signal-safe calls: write, backtrace_symbols_fd (after backtrace was warmed up by
// install_crash_report, so it does not allocate here), and re-raising with the default action.
void report(int signal) {
  write_text("lazyfuse-fuzz: crashed with ");
  write_text(::sigabbrev_np(signal) != nullptr ? ::sigabbrev_np(signal) : "a signal");
  write_text("; call stack:\n");
  void* frames[kMaxFrames];
  const int count = ::backtrace(frames, kMaxFrames);
  ::backtrace_symbols_fd(frames, count, STDERR_FILENO);
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

}  // namespace

void install_crash_report() {
  void* warm_up[1];
  ::backtrace(warm_up, 1);  // loads libgcc's unwinder now, not inside the handler
  for (int signal : kSignals) ::signal(signal, report);
}

}  // namespace lazy::fuzz
