#include "tools/fuzz/export.h"

#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <lazy/lazy.h>

#include "tools/fuzz/builder.h"
#include "tools/fuzz/generator.h"

namespace lazy::fuzz {

namespace {

// JSON numbers; NaN and the infinities as Python's json module reads them.
std::string json_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

// A JSON string; control characters (an error message's newlines) become spaces.
std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Sizes and axes are small integers, exact as doubles.
template <class T>
std::string json_list(const std::vector<T>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ",";
    out += json_number(double(values[i]));
  }
  return out + "]";
}

std::string shape_json(const Shape& shape) {
  return json_list(std::vector<std::int64_t>(shape.begin(), shape.end()));
}

const char* op_name(Op op) {
  static constexpr const char* kNames[] = {
      "data",    "full",    "arange",      "rand",       "randn",    "unary",      "binary",
      "where",   "clamp",   "lerp",        "cast",       "reshape",  "permute",    "expand",
      "slice",   "squeeze", "unsqueeze",   "contiguous", "reduce",   "arg_reduce", "var",
      "std_dev", "softmax", "log_softmax", "layer_norm", "rms_norm", "join",       "gather",
      "scan",    "top_k",   "scatter",     "product"};
  static_assert(std::size(kNames) == static_cast<int>(Op::product) + 1, "a name for every Op");
  return kNames[static_cast<int>(op)];
}

const char* kind_name(Scalar::Kind kind) {
  switch (kind) {
    case Scalar::Kind::boolean:
      return "bool";
    case Scalar::Kind::integer:
      return "int";
    case Scalar::Kind::floating:
      return "float";
  }
  return "float";
}

std::string args_json(const Step& step) {
  std::string out = "[";
  for (std::size_t k = 0; k < step.args.size(); ++k) {
    const Arg& a = step.args[k];
    out += k ? "," : "";
    out += a.is_tensor() ? "{\"step\":" + std::to_string(a.step) + "}"
                         : "{\"number\":" + json_number(a.number) + ",\"kind\":\"" +
                               kind_name(a.kind) + "\"}";
  }
  return out + "]";
}

std::string bounds_json(const Bounds& b) {
  return "{\"lo\":" + json_number(b.lo) + ",\"hi\":" + json_number(b.hi) +
         ",\"err\":" + json_number(b.err) + ",\"special\":" + (b.special ? "true" : "false") +
         ",\"unchecked\":" + (b.unchecked ? "true" : "false") +
         ",\"specials_may_differ\":" + (b.specials_may_differ ? "true" : "false") + "}";
}

std::string dtype_text(DType d) {
  return d == DType::bool_ ? "bool" : std::string(dtype_name(d));
}

// One step: what it does, as Step holds it, and what it gave.
std::string step_json(const Program& program, const Step& s, const Tensor& t, const Bounds& b,
                      std::int64_t offset) {
  std::ostringstream j;
  j << "{\"op\":\"" << op_name(s.op) << "\",\"name\":" << json_string(s.name)
    << ",\"args\":" << args_json(s) << ",\"dtype\":\"" << dtype_text(s.dtype) << "\""
    << ",\"shape\":" << shape_json(concrete_shape(program, s.shape))
    << ",\"axes\":" << json_list(s.axes) << ",\"axis\":" << s.axis
    << ",\"keepdim\":" << (s.keepdim ? "true" : "false")
    << ",\"no_axis\":" << (s.no_axis ? "true" : "false") << ",\"start\":" << s.start
    << ",\"stop\":" << s.stop << ",\"step\":" << s.step
    << ",\"has_start\":" << (s.has_start ? "true" : "false")
    << ",\"has_stop\":" << (s.has_stop ? "true" : "false")
    << ",\"correction\":" << json_number(s.correction) << ",\"eps\":" << json_number(s.eps)
    << ",\"equation\":" << json_string(s.equation) << ",\"k\":" << s.k
    << ",\"largest\":" << (s.largest ? "true" : "false") << ",\"result\":{\"dtype\":\""
    << dtype_text(t.dtype()) << "\",\"shape\":" << shape_json(t.shape()) << ",\"offset\":" << offset
    << ",\"bounds\":" << bounds_json(b) << "}}";
  return j.str();
}

// Appends the values of `t` to `values` (f64 or i64, 8 bytes each); returns where they start.
std::int64_t write_values(const Tensor& t, std::ofstream& values) {
  const std::int64_t offset = values.tellp();
  if (is_floating(t.dtype())) {
    const std::vector<double> v = t.to_vector<double>();
    values.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * 8));
  } else {
    const std::vector<std::int64_t> v = t.to_vector<std::int64_t>();
    values.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * 8));
  }
  return offset;
}

}  // namespace

ExportSummary export_programs(const SessionOptions& options, const std::string& dir,
                              std::ostream& log) {
  std::ofstream programs(dir + "/programs.jsonl");
  std::ofstream values(dir + "/values.bin", std::ios::binary);
  if (!programs || !values) {
    log << "lazyfuse-fuzz: cannot write to " << dir << "\n";
    return {};
  }
  ExportSummary summary;
  for (std::int64_t index = options.start; index < options.start + options.count; ++index) {
    Program program = generate(options.seed, index, generate_options_of(options));
    Builder builder(program);
    std::string error;
    try {
      builder.apply_all();
      std::vector<Tensor> all;
      for (int i = 0; i < builder.size(); ++i) all.push_back(builder.tensor(i));
      lazy::eval(all);
    } catch (const std::exception& e) {
      error = e.what();
      discard_recording();
    }
    programs << "{\"seed\":" << options.seed << ",\"index\":" << index;
    if (!error.empty()) {
      programs << ",\"error\":" << json_string(error) << "}\n";
      ++summary.failed;
      continue;
    }
    programs << ",\"steps\":[";
    for (int i = 0; i < builder.size(); ++i) {
      const std::int64_t offset = write_values(builder.tensor(i), values);
      programs << (i ? "," : "")
               << step_json(program, program.steps[i], builder.tensor(i), builder.bounds(i),
                            offset);
    }
    programs << "]}\n";
    ++summary.programs;
  }
  return summary;
}

}  // namespace lazy::fuzz
