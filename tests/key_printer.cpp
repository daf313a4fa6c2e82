// Prints the sync key of tests/key_program.h's program: run as a separate process by
// test_sync_key to check that keys do not depend on the process.
#include <cstdio>

#include "ir/trace.h"
#include "key_program.h"

int main() {
  lazy_test::KeyProgram program = lazy_test::record_key_program(1.2f, 4);
  std::printf("%s\n", lazy::ir::Trace::current().sync_key().to_hex().c_str());
  return 0;
}
