#include "api/einsum_equation.h"

#include <algorithm>
#include <cctype>

#include "api/recording.h"

namespace lazy::api {

namespace {

template <class E, class... Parts>
[[noreturn]] void refuse(std::string_view equation, std::source_location loc,
                         const Parts&... parts) {
  fail<E>(loc, "einsum", "\"", equation, "\": ", parts...);
}

bool is_index(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// "the first operand", "the second operand", ... for errors.
std::string einsum_operand_name(std::size_t operand) {
  constexpr std::string_view kOrdinals[] = {"first", "second", "third",   "fourth",
                                            "fifth", "sixth",  "seventh", "eighth"};
  if (operand < std::size(kOrdinals)) return "the " + std::string(kOrdinals[operand]) + " operand";
  return "operand " + std::to_string(operand + 1);
}

// Where a part's "..." starts (npos: none); a '.' anywhere else, or a second "...", is refused.
std::size_t ellipsis_at(std::string_view equation, const std::string& part,
                        std::source_location loc) {
  const std::size_t at = part.find("...");
  const std::size_t stray = part.find('.', at == std::string::npos ? 0 : at + 3);
  if (stray != std::string::npos || (at == std::string::npos && names_index(part, '.'))) {
    refuse<ValueError>(equation, loc,
                       "a '.' that is not part of one \"...\" per operand and output");
  }
  return at;
}

// NumPy's implicit output: the ellipsis's axes, then the indices that appear once in all the
// operands together, in alphabetical (ASCII) order, so a repeated index ("ii") is summed.
std::string implicit_output(const EinsumEquation& e) {
  std::string all;
  for (const std::string& operand : e.operands)
    for (char c : operand)
      if (!names_index(e.ellipsis, c)) all += c;
  std::string once;
  for (char c : all)
    if (std::count(all.begin(), all.end(), c) == 1) once += c;
  std::sort(once.begin(), once.end());
  return e.ellipsis + once;
}

// Replaces each "..." (`at` per operand, then the output's; npos where none) with letters the
// equation does not use, as many as the operands' shapes leave to it, right-aligned (PyTorch
// broadcasts the operands' ellipsis axes from the last). An output without one sums those axes.
void expand_ellipsis(std::string_view equation, const std::string& text,
                     std::span<const Shape> shapes, const std::vector<std::size_t>& at,
                     EinsumEquation& e, std::source_location loc) {
  std::vector<int> axes(shapes.size(), 0);
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (at[i] == std::string::npos) continue;
    const std::size_t named = e.operands[i].size() - 3;
    axes[i] = shapes[i].rank() - int(named);
    if (axes[i] < 0) {
      refuse<ShapeError>(equation, loc, einsum_operand_name(i), "'s shape ", shapes[i].to_string(),
                         " has fewer axes than its ", named, " indices besides the ellipsis");
    }
  }
  const int count = *std::max_element(axes.begin(), axes.end());
  constexpr std::string_view kLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  for (char c : kLetters)
    if (int(e.ellipsis.size()) < count && !names_index(text, c)) e.ellipsis += c;
  if (int(e.ellipsis.size()) < count) {
    refuse<ValueError>(equation, loc, "uses too many letters to leave ", count,
                       " for the ellipsis's axes");
  }
  for (std::size_t i = 0; i < shapes.size(); ++i)
    if (at[i] != std::string::npos)
      e.operands[i].replace(at[i], 3, e.ellipsis.substr(std::size_t(count - axes[i])));
  if (at.back() != std::string::npos) e.out.replace(at.back(), 3, e.ellipsis);
}

// Each index's size, checked against every operand's shape: a repeated index (a diagonal) has
// one size within its operand; across operands the sizes are equal or 1, which broadcasts.
void size_indices(std::string_view equation, std::span<const Shape> shapes, EinsumEquation& e,
                  std::source_location loc) {
  e.sizes.fill(-1);
  std::array<std::size_t, 128> given_by{};
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const std::string& indices = e.operands[i];
    const Shape& shape = shapes[i];
    if (int(indices.size()) != shape.rank()) {
      refuse<ShapeError>(equation, loc, einsum_operand_name(i), " has shape ", shape.to_string(),
                         " but ", indices.size(), " indices (\"", indices, "\")");
    }
    for (std::size_t axis = 0; axis < indices.size(); ++axis) {
      const char c = indices[axis];
      const std::string what = names_index(e.ellipsis, c) ? std::string("an axis of the ellipsis")
                                                          : std::string("index '") + c + "'";
      const std::int64_t given = shape[int(axis)];
      const std::size_t first = indices.find(c);
      if (first < axis && shape[int(first)] != given) {
        refuse<ShapeError>(equation, loc, what, " repeats in ", einsum_operand_name(i),
                           ", whose shape ", shape.to_string(), " gives it sizes ",
                           shape[int(first)], " and ", given, "; its diagonal needs one size");
      }
      std::int64_t& size = e.sizes[std::size_t(c)];
      if (size >= 0 && size != given && size != 1 && given != 1) {
        refuse<ShapeError>(equation, loc, what, " is ", size, " in ",
                           einsum_operand_name(given_by[std::size_t(c)]), "'s shape ",
                           shapes[given_by[std::size_t(c)]].to_string(), " but ", given, " in ",
                           einsum_operand_name(i), "'s shape ", shape.to_string());
      }
      if (size < 0 || size == 1) {
        size = given;
        given_by[std::size_t(c)] = i;
      }
    }
  }
}

}  // namespace

EinsumEquation read_einsum(std::string_view equation, std::span<const Shape> shapes,
                           std::source_location loc) {
  std::string text;
  for (char c : equation)
    if (!std::isspace(static_cast<unsigned char>(c))) text += c;
  const std::size_t arrow = text.find("->");
  if (arrow == std::string::npos ? text.find_first_of("->") != std::string::npos
                                 : text.find_first_of("->", arrow + 2) != std::string::npos) {
    refuse<ValueError>(equation, loc, "has a stray '-' or '>'; write one '->' before the output");
  }
  EinsumEquation e;
  const std::string inputs = text.substr(0, arrow);
  for (std::size_t start = 0;;) {
    const std::size_t comma = inputs.find(',', start);
    e.operands.push_back(inputs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (e.operands.size() != shapes.size()) {
    refuse<ValueError>(equation, loc, "names the indices of ", e.operands.size(), " operand(s), ",
                       "separated by commas, but ", shapes.size(), " tensor(s) were given");
  }
  if (arrow != std::string::npos) e.out = text.substr(arrow + 2);
  // The user's characters are checked before the ellipsis takes letters of its own.
  std::vector<std::size_t> at;
  for (std::size_t p = 0; p <= e.operands.size(); ++p) {
    const std::string& part = p < e.operands.size() ? e.operands[p] : e.out;
    at.push_back(ellipsis_at(equation, part, loc));
    for (std::size_t i = 0; i < part.size(); ++i) {
      if (!is_index(part[i]) && !(i >= at.back() && i < at.back() + 3))
        refuse<ValueError>(equation, loc, "'", part[i], "' is not an index; indices are letters");
    }
  }
  for (char c : e.out) {
    const bool named =
        std::any_of(e.operands.begin(), e.operands.end(),
                    [c](const std::string& operand) { return names_index(operand, c); });
    if (is_index(c) && !named)
      refuse<ValueError>(equation, loc, "output index '", c, "' is in no operand");
  }
  expand_ellipsis(equation, text, shapes, at, e, loc);
  if (arrow == std::string::npos) e.out = implicit_output(e);
  for (std::size_t i = 0; i < e.out.size(); ++i) {
    if (e.out.find(e.out[i], i + 1) != std::string::npos)
      refuse<ValueError>(equation, loc, "index '", e.out[i], "' repeats in the output");
  }
  size_indices(equation, shapes, e, loc);
  return e;
}

}  // namespace lazy::api
