#include "tools/fuzz/printer.h"

#include <cmath>
#include <sstream>

#include "tools/fuzz/builder.h"
#include "tools/fuzz/guard_rules.h"
#include "tools/fuzz/input_values.h"

namespace lazy::fuzz {

namespace {

std::string dtype_literal(DType d) {
  return std::string("lazy::") + (d == DType::bool_ ? "bool_" : std::string(dtype_name(d)));
}

std::string number(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  std::string text = s.str();
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}

// A norm's order, infinities included.
std::string order_text(double p) {
  if (!std::isinf(p)) return number(p);
  return p > 0 ? "std::numeric_limits<double>::infinity()"
               : "-std::numeric_limits<double>::infinity()";
}

std::string arg_text(const Arg& a, const std::string& prefix) {
  if (a.is_tensor()) return prefix + "t" + std::to_string(a.step);
  switch (a.kind) {
    case Scalar::Kind::boolean:
      return a.number != 0 ? "true" : "false";
    case Scalar::Kind::integer:
      return std::to_string(std::int64_t(a.number));
    case Scalar::Kind::floating:
      return number(a.number);
  }
  return "?";
}

std::string list(const std::vector<std::int64_t>& v) {
  std::string s = "{";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "}";
}

std::string int_list(const std::vector<int>& v) {
  return list(std::vector<std::int64_t>(v.begin(), v.end()));
}

std::string shape_text(const Shape& shape) {
  return "lazy::Shape" + list(std::vector<std::int64_t>(shape.begin(), shape.end()));
}

std::string optional_text(bool has, std::int64_t v) {
  return has ? std::to_string(v) : "std::nullopt";
}

// An order-statistic step's call on x, as Op::order_statistic names it.
std::string order_statistic_expression(const Step& s, const std::string& x) {
  std::ostringstream e;
  const char* keepdim = s.keepdim ? "true" : "false";
  const std::size_t cut = s.name.find('_');
  const std::string op = s.name.substr(0, cut);
  if (s.name == "cdist") {
    e << "lazy::cdist(" << x << ", " << x << ", " << order_text(s.q) << ")";
  } else if (s.name.ends_with("_all")) {
    e << "lazy::" << op << "(" << x << ")";
  } else if (op == "quantile" || op == "nanquantile") {
    e << "lazy::" << op << "(" << x << ", " << number(s.q) << ", ";
    if (s.no_axis) {
      e << "std::nullopt";
    } else {
      e << s.axis;
    }
    e << ", " << keepdim << ", lazy::QuantileInterpolation::" << s.name.substr(cut + 1) << ")";
  } else {
    e << "lazy::" << op << "(" << x << ", ";
    if (op == "kthvalue") {
      e << "std::min<std::int64_t>(" << s.k << ", " << x << ".rank() == 0 ? 1 : " << x
        << ".shape()[(" << s.axis << " + " << x << ".rank()) % " << x << ".rank()]), ";
    }
    e << s.axis << ", " << keepdim << ")"
      << (s.name.ends_with("_indices") ? ".indices" : ".values");
  }
  return e.str();
}

std::string step_expression(const Program& program, const Step& s, const std::string& p,
                            const Shape& out_shape) {
  auto a = [&](int k) { return arg_text(s.args[k], p); };
  Shape target = concrete_shape(program, s.shape);
  std::int64_t n = target.numel();
  std::ostringstream e;
  switch (s.op) {
    case Op::data:
      e << (s.data.external ? "fz_external(" : "lazy::from_data(");
      if (is_floating(s.dtype))
        e << "fz_floats(0x" << std::hex << s.data.key << std::dec << "ull, " << n << ", "
          << number(s.data.lo) << ", " << number(s.data.hi) << ", " << s.data.quantum << ", "
          << s.data.special << "), ";
      else if (s.dtype == DType::bool_)
        e << "fz_bools(0x" << std::hex << s.data.key << std::dec << "ull, " << n << ", "
          << s.data.bool_percent << "), ";
      else
        e << "fz_ints(0x" << std::hex << s.data.key << std::dec << "ull, " << n << ", "
          << std::int64_t(s.data.lo) << ", " << std::int64_t(s.data.hi) << "), ";
      e << shape_text(target) << ", " << dtype_literal(s.dtype);
      if (s.data.external) e << ", " << s.data.external;
      e << ")";
      break;
    case Op::full:
      if (s.name == "full")
        e << "lazy::full(" << shape_text(target) << ", " << a(0) << ", " << dtype_literal(s.dtype)
          << ")";
      else
        e << "lazy::" << s.name << "(" << shape_text(target) << ", " << dtype_literal(s.dtype)
          << ")";
      break;
    case Op::arange: {
      std::int64_t count = dim_value(program, s.shape[0]);
      e << "lazy::arange(" << s.start << ", " << s.start + s.step * count << ", " << s.step << ", "
        << dtype_literal(s.dtype) << ")";
      break;
    }
    case Op::rand:
    case Op::randn:
      e << "lazy::" << (s.op == Op::rand ? "rand(" : "randn(") << shape_text(target) << ", 0x"
        << std::hex << s.data.key << std::dec << "ull, " << dtype_literal(s.dtype) << ")";
      break;
    case Op::unary:
      e << "lazy::" << s.name << "(" << a(0);
      if (s.name == "logit") e << ", " << number(kLogitEps);
      if (s.name == "threshold") e << ", " << number(kThreshold) << ", " << number(kThresholdValue);
      e << ")";
      break;
    case Op::binary:
      e << "lazy::" << s.name << "(" << a(0) << ", " << a(1) << ")";
      break;
    case Op::gather:
      if (s.name == "embedding") {
        e << "lazy::embedding(" << a(0) << ", " << a(1) << ")";
      } else if (s.name == "take_along_axis") {
        e << "lazy::take_along_axis(" << a(0) << ", " << a(1) << ", " << s.axis << ")";
      } else {
        e << "lazy::" << s.name << "(" << a(0) << ", " << s.axis << ", " << a(1) << ")";
      }
      break;
    case Op::scatter:
      e << "lazy::" << s.name << "(" << a(0) << ", " << s.axis << ", " << a(1) << ", " << a(2)
        << ")";
      break;
    case Op::scan: {
      const bool indices = s.name.ends_with("_indices");
      const bool running_extreme = s.name.starts_with("cummax") || s.name.starts_with("cummin");
      e << "lazy::" << (running_extreme ? s.name.substr(0, 6) : s.name) << "(" << a(0) << ", "
        << s.axis << ")";
      if (running_extreme) e << (indices ? ".indices" : ".values");
      break;
    }
    case Op::top_k:
      if (s.name.starts_with("sort")) {
        e << "lazy::sort(" << a(0) << ", " << s.axis << ", " << (s.largest ? "true" : "false")
          << ")." << (s.name == "sort_indices" ? "indices" : "values");
        break;
      }
      e << "lazy::topk(" << a(0) << ", std::min<std::int64_t>(" << s.k << ", " << a(0)
        << ".rank() == 0 ? 1 : " << a(0) << ".shape()[(" << s.axis << " + " << a(0) << ".rank()) % "
        << a(0) << ".rank()]), " << s.axis << ", " << (s.largest ? "true" : "false") << ")."
        << (s.name == "topk_indices" ? "indices" : "values");
      break;
    case Op::join:
      e << "lazy::" << s.name << "({";
      for (std::size_t k = 0; k < s.args.size(); ++k) e << (k ? ", " : "") << a(int(k));
      e << "}, " << s.axis << ")";
      break;
    case Op::where:
      e << "lazy::where(" << a(0) << ", " << a(1) << ", " << a(2) << ")";
      break;
    case Op::triangle:
      e << "lazy::" << s.name << "(" << a(0) << ", " << s.k << ")";
      break;
    case Op::masked_fill:
      e << "lazy::masked_fill(" << a(0) << ", " << a(1) << ", " << a(2) << ")";
      break;
    case Op::tiling:
      if (s.name == "roll") {
        e << "lazy::roll(" << a(0) << ", std::vector<std::int64_t>" << list(s.counts)
          << ", std::vector<int>" << int_list(s.axes) << ")";
      } else if (s.name == "repeat" || s.name == "tile") {
        e << "lazy::" << s.name << "(" << a(0) << ", std::vector<std::int64_t>" << list(s.counts)
          << ")";
      } else {
        e << "lazy::pad(" << a(0) << ", std::vector<std::int64_t>" << list(s.counts)
          << ", lazy::PadMode::" << s.name.substr(4);
        if (s.name == "pad_constant") e << ", " << a(1);
        e << ")";
      }
      break;
    case Op::order_statistic:
      e << order_statistic_expression(s, a(0));
      break;
    case Op::statistic:
      if (s.name == "trace") {
        e << "lazy::trace(" << a(0) << ")";
        break;
      }
      e << "lazy::" << s.name << "(" << a(0) << ", ";
      if (s.name == "vector_norm") e << order_text(s.q) << ", ";
      e << "lazy::Axes" << int_list(s.axes);
      if (s.name != "count_nonzero") e << ", " << (s.keepdim ? "true" : "false");
      e << ")";
      break;
    case Op::row_op:
      if (s.name == "glu")
        e << "lazy::glu(" << a(0) << ", " << s.axis << ")";
      else if (s.name == "normalize")
        e << "lazy::normalize(" << a(0) << ", 2.0, " << s.axis << ", 1e-12)";
      else
        e << "lazy::cosine_similarity(" << a(0) << ", " << a(1) << ", " << s.axis << ", 1e-8)";
      break;
    case Op::pair:
      if (s.name == "outer") {
        e << "lazy::outer(" << a(0) << ", " << a(1) << ")";
      } else if (s.name == "isclose") {
        e << "lazy::isclose(" << a(0) << ", " << a(1) << ", " << number(s.q) << ", "
          << number(s.eps) << ", " << (s.largest ? "true" : "false") << ")";
      } else {
        e << "lazy::pairwise_distance(" << a(0) << ", " << a(1) << ", " << number(s.q) << ", 1e-6, "
          << (s.keepdim ? "true" : "false") << ")";
      }
      break;
    case Op::one_hot:
      e << "lazy::one_hot(" << a(0) << ", " << dim_value(program, s.shape[0]) << ", "
        << dtype_literal(s.dtype) << ")";
      break;
    case Op::strided_view:
      if (s.name == "flip") {
        e << "lazy::flip(" << a(0) << ", " << int_list(s.axes) << ")";
      } else if (s.name == "diagonal") {
        e << "lazy::diagonal(" << a(0) << ", " << s.k << ", " << s.axes[0] << ", " << s.axes[1]
          << ")";
      } else if (s.name == "narrow") {
        e << "lazy::narrow(" << a(0) << ", " << s.axis << ", " << s.start << ", " << s.stop << ")";
      } else {
        e << "lazy::" << s.name << "(" << a(0);
        if (s.name != "unbind") e << ", " << s.k;
        e << ", " << s.axis << ")[" << s.start << "]";
      }
      break;
    case Op::loss: {
      const std::size_t dot = s.name.find('.');
      const std::string loss = s.name.substr(0, dot);
      const std::string reduction = "lazy::Reduction::" + s.name.substr(dot + 1);
      if (loss.starts_with("cross_entropy") || loss == "nll_loss") {
        e << "lazy::" << (loss == "nll_loss" ? "nll_loss" : "cross_entropy") << "(" << a(0) << ", "
          << a(1) << ", lazy::CrossEntropyOptions{";
        if (s.weight_arg >= 0) e << ".weight = " << a(s.weight_arg) << ", ";
        e << ".ignore_index = " << s.k << ", .reduction = " << reduction
          << ", .label_smoothing = " << number(s.q) << "})";
      } else if (loss.starts_with("binary_cross_entropy")) {
        const auto optional = [&](int arg) { return arg >= 0 ? a(arg) : "lazy::Tensor()"; };
        e << "lazy::" << loss << "(" << a(0) << ", " << a(1) << ", " << optional(s.weight_arg)
          << ", " << reduction;
        if (s.pos_weight_arg >= 0) e << ", " << a(s.pos_weight_arg);
        e << ")";
      } else {
        e << "lazy::" << (loss == "kl_div_log_target" ? "kl_div" : loss) << "(" << a(0) << ", "
          << a(1) << ", " << reduction << (loss == "kl_div_log_target" ? ", true)" : ")");
      }
      break;
    }
    case Op::clamp:
      e << "lazy::clamp(" << a(0) << ", " << a(1) << ", " << a(2) << ")";
      break;
    case Op::lerp:
      e << "lazy::lerp(" << a(0) << ", " << a(1) << ", " << a(2) << ")";
      break;
    case Op::cast:
      if (s.name == "to")
        e << a(0) << ".to(" << dtype_literal(s.dtype) << ")";
      else
        e << "lazy::cast(" << a(0) << ", " << dtype_literal(s.dtype) << ")";
      break;
    case Op::reshape:
      if (s.name == "flatten") {
        e << a(0) << ".flatten(" << s.axes[0] << ", " << s.axes[1] << ")";
      } else {
        if (s.name == "reshape_infer") target[s.axis] = -1;
        e << a(0) << ".reshape(" << shape_text(target) << ")";
      }
      break;
    case Op::permute:
      if (s.name == "transpose")
        e << a(0) << ".transpose(" << s.axes[0] << ", " << s.axes[1] << ")";
      else
        e << a(0) << ".permute(" << int_list(s.axes) << ")";
      break;
    case Op::expand:
      e << a(0) << "." << s.name << "(" << shape_text(target) << ")";
      break;
    case Op::slice:
      e << a(0) << ".slice(" << s.axis << ", " << optional_text(s.has_start, s.start) << ", "
        << optional_text(s.has_stop, s.stop) << ", " << s.step << ")";
      break;
    case Op::squeeze:
      if (s.name == "squeeze_all")
        e << a(0) << ".squeeze()";
      else
        e << a(0) << ".squeeze(" << s.axis << ")";
      break;
    case Op::unsqueeze:
      e << a(0) << ".unsqueeze(" << s.axis << ")";
      break;
    case Op::contiguous:
      if (s.name == "stop_gradient")
        e << "lazy::stop_gradient(" << a(0) << ")";
      else
        e << a(0) << ".contiguous()";
      break;
    case Op::reduce:
      e << "lazy::" << s.name << "(" << a(0) << ", lazy::Axes" << int_list(s.axes) << ", "
        << (s.keepdim ? "true" : "false") << ")";
      break;
    case Op::arg_reduce:
      e << "lazy::" << s.name << "(" << a(0) << ", "
        << (s.no_axis ? std::string("std::nullopt") : std::to_string(s.axis)) << ", "
        << (s.keepdim ? "true" : "false") << ")";
      break;
    case Op::var:
    case Op::std_dev:
      e << "lazy::" << (s.op == Op::var ? "var(" : "std(") << a(0) << ", lazy::Axes"
        << int_list(s.axes) << ", " << number(s.correction) << ", "
        << (s.keepdim ? "true" : "false") << ")";
      break;
    case Op::softmax:
    case Op::log_softmax:
      e << "lazy::" << (s.op == Op::softmax ? "softmax(" : "log_softmax(") << a(0) << ", " << s.axis
        << ")";
      break;
    case Op::layer_norm:
      e << "lazy::layer_norm(" << a(0) << ", " << a(1) << ", " << a(2) << ", " << number(s.eps)
        << ")";
      break;
    case Op::rms_norm:
      e << "lazy::rms_norm(" << a(0) << ", " << a(1) << ", " << number(s.eps) << ")";
      break;
    case Op::product:
      // matmul(a, b), bmm(a, b), linear(x, w[, bias]), addmm(c, a, b, beta, alpha), einsum(eq, a
      // [, b]) or einsum(eq, {a, b, c, ...})
      e << "lazy::" << s.name << "(";
      if (s.name == "einsum") e << "\"" << s.equation << "\", " << (s.args.size() > 2 ? "{" : "");
      for (std::size_t k = 0; k < s.args.size(); ++k) e << (k ? ", " : "") << a(int(k));
      e << (s.name == "einsum" && s.args.size() > 2 ? "})" : ")");
      break;
  }
  (void)out_shape;
  return e.str();
}

constexpr const char* kShowFunction = R"(
static void fz_show(const char* name, const lazy::Tensor& t) {
  std::vector<double> v;
  if (lazy::is_floating(t.dtype())) v = t.to_vector<double>();
  else for (std::int64_t x : t.to_vector<std::int64_t>()) v.push_back(static_cast<double>(x));
  double sum = 0;
  for (double x : v) sum += x;
  std::printf("%s %s %s sum %.17g:", name, std::string(lazy::dtype_name(t.dtype())).c_str(),
              t.shape().to_string().c_str(), sum);
  for (std::size_t i = 0; i < v.size() && i < 64; ++i) std::printf(" %.9g", v[i]);
  std::printf(v.size() > 64 ? " ...\n" : "\n");
}
)";

}  // namespace

std::string print_program(std::vector<Program>& programs) {
  std::ostringstream out;
  out << "// lazyfuse fuzz reproducer: seed " << programs.front().seed << ", programs";
  for (const Program& p : programs) out << " " << p.index;
  out << ", recorded together and synced once.\n"
      << "// g++ -std=c++20 repro.cpp -I$P/include -L$P/lib -llazyfuse -Wl,-rpath,$P/lib\n"
      << "#include <lazy/lazy.h>\n\n#include <cmath>\n#include <cstdint>\n#include <cstdio>\n"
      << "#include <limits>\n#include <optional>\n#include <string>\n#include <vector>\n\n"
      << kInputValuesText << "\n"
      << kShowFunction << "\nint main() {\n";
  // The bounds of f32 products were TF32's (product_rules.h).
  if (matmul_precision() == "tf32") out << "  lazy::set_matmul_precision(\"tf32\");\n";
  std::vector<std::string> shows;
  for (int q = 0; q < int(programs.size()); ++q) {
    Program& program = programs[q];
    Builder builder(program);
    try {
      builder.apply_all();
    } catch (const std::exception& e) {
      out << "  // this program no longer records: " << e.what() << "\n";
      continue;
    }
    const std::string p = "p" + std::to_string(program.index).append("_");
    out << "  // program " << program.index << "\n  lazy::Tensor";
    bool first = true;
    for (int i = 0; i < int(program.steps.size()); ++i)
      if (program.steps[i].held) out << (first ? " " : ", ") << p << "out" << i, first = false;
    out << ";\n  {\n";
    for (int i = 0; i < int(program.steps.size()); ++i) {
      const Bounds& b = builder.bounds(i);
      const Tensor& t = builder.tensor(i);
      out << "    lazy::Tensor " << p << "t" << i << " = "
          << step_expression(program, program.steps[i], p, t.shape()) << ";  // "
          << dtype_name(t.dtype()) << " " << t.shape().to_string() << " in [" << b.lo << ", "
          << b.hi << "]"
          << (b.unchecked  ? " unchecked"
              : b.err == 0 ? " exact"
                           : "")
          << (b.err > 0 ? " err " + std::to_string(b.err) : "") << (b.special ? " special" : "")
          << "\n";
    }
    for (int i = 0; i < int(program.steps.size()); ++i) {
      if (!program.steps[i].held) continue;
      out << "    " << p << "out" << i << " = " << p << "t" << i << ";\n";
      shows.push_back(p + "out" + std::to_string(i));
    }
    out << "  }\n";
  }
  discard_recording();
  out << "  lazy::eval({";
  for (std::size_t i = 0; i < shows.size(); ++i) out << (i ? ", " : "") << shows[i];
  out << "});\n";
  for (const std::string& s : shows) out << "  fz_show(\"" << s << "\", " << s << ");\n";
  out << "  return 0;\n}\n";
  return out.str();
}

}  // namespace lazy::fuzz
