// Names in generated source, one place for both kernel emitters. Short, and telling a reader of
// LAZY_DEBUG output what each is; the number is the term's index t in the region (each term is
// one statement, in order), r an output's, j a reduction's in a row kernel:
//
//   ld<t>    the element load t read, as a value    a.in<t>   the pointer load t reads
//   s<t>     scalar t's value                       a.s<t>    its kernel argument
//   v<t>     a value an op or generator computed
//   red<t>   a reduction's result, once per row     acc, acc<j> (and at, at<j>): accumulators
//   outv<r>  output r's elements a thread stores    a.out<r>  the pointer output r is written to
//   ldv<t>   one vector load of load t's group (ld<t> is an element of it)
//   held<t>  load t's groups held in registers across a row kernel's phases
//   kept<t>  value t kept in registers for a later phase of a row kernel
//   rcp<t>   the reciprocal of division t's divisor, once for the elements that share it
//
// Index arithmetic keeps its own short names: a.off<t> and the strides a.st<t>_<d> (per dim),
// a.sr<t> (per row), a.se<t> (per element), a.fs<t> (per folded element); o<t> is access t's
// offset for the current element, b<t> its base for the current row or kept results. A
// concatenation t has its element's position p<t>, that position within a period r<t>, the
// period a.cp<t> (a.cpd<t>: constants to divide by it) and where each part k ends, a.ce<t>_<k>.
#pragma once

#include <cstddef>
#include <string>

#include "codegen/text.h"
#include "fuse/partition.h"

namespace lazy::codegen {

// Term t's value: ld<t>, s<t>, v<t> or red<t> by what the term is.
inline std::string value_name(const fuse::Term& term, std::size_t t) {
  switch (term.kind) {
    case fuse::Term::Kind::load:
      return cat("ld", t);
    case fuse::Term::Kind::scalar:
      return cat("s", t);
    case fuse::Term::Kind::reduced:
      return cat("red", t);
    case fuse::Term::Kind::generator:
    case fuse::Term::Kind::op:
      break;
  }
  return cat("v", t);
}

// Kernel arguments (fields of `Args a`) and how the source reads them.
inline std::string scalar_field(std::size_t t) {
  return cat("s", t);
}
inline std::string input_field(std::size_t t) {
  return cat("in", t);
}
inline std::string output_field(std::size_t r) {
  return cat("out", r);
}
inline std::string input_name(std::size_t t) {
  return cat("a.", input_field(t));
}
inline std::string output_name(std::size_t r) {
  return cat("a.", output_field(r));
}

inline std::string vector_load_name(std::size_t t) {
  return cat("ldv", t);
}
inline std::string held_name(std::size_t t) {
  return cat("held", t);
}
inline std::string kept_name(std::size_t t) {
  return cat("kept", t);
}
inline std::string reciprocal_name(std::size_t t) {
  return cat("rcp", t);
}
inline std::string stored_name(std::size_t r) {
  return cat("outv", r);
}

}  // namespace lazy::codegen
