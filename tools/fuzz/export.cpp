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
#include "tools/fuzz/input_values.h"
#include "tools/fuzz/step_gradients.h"

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
      "data",       "full",         "arange",    "rand",        "randn",     "unary",
      "binary",     "where",        "clamp",     "lerp",        "cast",      "reshape",
      "permute",    "expand",       "slice",     "squeeze",     "unsqueeze", "contiguous",
      "reduce",     "arg_reduce",   "var",       "std_dev",     "softmax",   "log_softmax",
      "layer_norm", "rms_norm",     "join",      "gather",      "scan",      "top_k",
      "scatter",    "product",      "triangle",  "masked_fill", "tiling",    "order_statistic",
      "loss",       "strided_view", "statistic", "row_op",      "pair",      "one_hot"};
  static_assert(std::size(kNames) == static_cast<int>(Op::one_hot) + 1, "a name for every Op");
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
                      std::int64_t offset, const std::string& gradient) {
  std::ostringstream j;
  j << "{\"op\":\"" << op_name(s.op) << "\",\"name\":" << json_string(s.name)
    << ",\"args\":" << args_json(s) << ",\"dtype\":\"" << dtype_text(s.dtype) << "\""
    << ",\"shape\":" << shape_json(concrete_shape(program, s.shape))
    << ",\"axes\":" << json_list(s.axes) << ",\"counts\":" << json_list(s.counts)
    << ",\"axis\":" << s.axis << ",\"keepdim\":" << (s.keepdim ? "true" : "false")
    << ",\"no_axis\":" << (s.no_axis ? "true" : "false") << ",\"start\":" << s.start
    << ",\"stop\":" << s.stop << ",\"step\":" << s.step
    << ",\"has_start\":" << (s.has_start ? "true" : "false")
    << ",\"has_stop\":" << (s.has_stop ? "true" : "false")
    << ",\"correction\":" << json_number(s.correction) << ",\"eps\":" << json_number(s.eps)
    << ",\"equation\":" << json_string(s.equation) << ",\"k\":" << s.k
    << ",\"q\":" << json_number(s.q) << ",\"largest\":" << (s.largest ? "true" : "false")
    << ",\"weight_arg\":" << s.weight_arg << ",\"pos_weight_arg\":" << s.pos_weight_arg
    << ",\"result\":{\"dtype\":\"" << dtype_text(t.dtype())
    << "\",\"shape\":" << shape_json(t.shape()) << ",\"offset\":" << offset
    << ",\"bounds\":" << bounds_json(b) << "}" << gradient << "}";
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

// A step's gradient as JSON (a field to append to its object): the cotangent's values and, per
// argument differentiated, the gradient's dtype, shape and values; or why vjp refused the step.
std::string gradient_json(const StepGradient& g, std::ofstream& values) {
  if (!g.refused.empty()) return ",\"grad\":{\"refused\":" + json_string(g.refused) + "}";
  std::string out =
      ",\"grad\":{\"cotangent\":" + std::to_string(write_values(g.cotangent, values)) +
      ",\"wrt\":[";
  for (std::size_t k = 0; k < g.wrt.size(); ++k) {
    const Tensor& t = g.gradients[k];
    out += std::string(k ? "," : "") + "{\"step\":" + std::to_string(g.wrt[k]) + ",\"dtype\":\"" +
           dtype_text(t.dtype()) + "\",\"shape\":" + shape_json(t.shape()) +
           ",\"offset\":" + std::to_string(write_values(t, values)) + "}";
  }
  return out + "]}";
}

// Each step's gradient alone (step_gradients.h), computed in one sync; an error that sync throws
// is the program's "grad_error".
std::vector<StepGradient> step_gradients(const Program& program, const Builder& forward,
                                         std::string& error) {
  std::vector<StepGradient> gradients = record_step_gradients(
      program, forward, fz_mix(program.seed ^ fz_mix(std::uint64_t(program.index))));
  std::vector<Tensor> all;
  for (const StepGradient& g : gradients) {
    all.push_back(g.cotangent);
    all.insert(all.end(), g.gradients.begin(), g.gradients.end());
  }
  try {
    lazy::eval(all);
  } catch (const std::exception& e) {
    error = e.what();
    discard_recording();
    return {};
  }
  return gradients;
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
    std::string gradient_error;
    std::vector<StepGradient> gradients;
    if (options.gradients) gradients = step_gradients(program, builder, gradient_error);
    if (!gradient_error.empty()) programs << ",\"grad_error\":" << json_string(gradient_error);
    programs << ",\"steps\":[";
    auto gradient = gradients.begin();
    for (int i = 0; i < builder.size(); ++i) {
      const std::int64_t offset = write_values(builder.tensor(i), values);
      std::string gradient_text;
      if (gradient != gradients.end() && gradient->step == i)
        gradient_text = gradient_json(*gradient++, values);
      programs << (i ? "," : "")
               << step_json(program, program.steps[i], builder.tensor(i), builder.bounds(i), offset,
                            gradient_text);
    }
    programs << "]}\n";
    ++summary.programs;
  }
  return summary;
}

}  // namespace lazy::fuzz
