#include "fuse/kernel_arguments.h"

namespace lazy::fuse {

std::int64_t argument_bytes(const Region& region) {
  constexpr std::int64_t kWord = 8;  // a pointer, an offset, a stride, a size or a number
  std::int64_t bytes = 0;
  for (const Term& term : region.terms) {
    // An access's offset and a stride per axis (merged dims are at most as many).
    const std::int64_t access = kWord * (1 + term.layout.shape.rank());
    if (term.kind == Term::Kind::scalar) bytes += kWord;
    if (term.kind == Term::Kind::load) bytes += kWord + access;
    if (term.kind == Term::Kind::generator) bytes += access;
    if (term.gather) bytes += 4 * kWord;
    if (term.concat) bytes += access + kWord * (2 + std::int64_t(term.concat->ends.size()));
  }
  return bytes;
}

}  // namespace lazy::fuse
