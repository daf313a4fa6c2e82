#include "codegen/skinny_matmul.h"

#include <set>

#include "codegen/generated_names.h"
#include "codegen/kernel_builder.h"
#include "codegen/op_expressions.h"
#include "codegen/text.h"
#include "ir/integer_math.h"
#include "ir/matmul.h"

namespace lazy::codegen {

namespace {

// 16 bytes of 2-byte elements: the kernel's loads.
constexpr std::int64_t kGroup = 8;
// The kernel's block and the columns it computes (lz_skinny_matmul.cuh's kSkinnyThreads and
// kSkinnyColumns).
constexpr int kThreads = 512;
constexpr std::int64_t kColumnsPerBlock = 16;
// Two blocks an SM keep twice the weight loads in flight; unbounded, ptxas gives the kernel 72
// registers a thread, which fits one.
constexpr int kBlocksPerSm = 2;

// The longest K whose offsets lz_skinny_product may hold in an int, with the warps' stride of spans
// past it.
constexpr std::int64_t kMaxIntOffsetK = std::int64_t(1) << 30;

bool whole_groups(std::int64_t elements) {
  return elements % kGroup == 0;
}

}  // namespace

bool skinny_product(const fuse::Region& region, std::span<const ir::NodePtr> pending, int arch) {
  if (!region.matmul || arch < 80) return false;
  const ir::Node& node = *pending[region.matmul->node];
  if (node.dtype != DType::bf16 && node.dtype != DType::f16) return false;
  const ir::MatmulActivation activation = ir::matmul_epilogue(node).activation;
  if (activation == ir::MatmulActivation::relu) return false;
  if (activation == ir::MatmulActivation::gelu_tanh_grad) return false;  // cuBLASLt's DGELU
  // In the call's column-major terms (ir/matmul_problem.h): problem.a is the weight, K x N with K
  // contiguous and transposed by op(); problem.b is x, K x M; problem.n is M.
  const ir::MatmulProblem& p = region.matmul->problem;
  return p.batch == 1 && p.n <= kSkinnyRows && p.a.transposed && !p.b.transposed &&
         whole_groups(p.k) && whole_groups(p.a.offset) && whole_groups(p.b.offset) &&
         (p.m == 1 || whole_groups(p.a.ld)) && (p.n == 1 || whole_groups(p.b.ld));
}

GeneratedKernel generate_skinny_matmul(const fuse::Region& region,
                                       std::span<const ir::NodePtr> pending,
                                       std::span<const ir::NodePtr> externals,
                                       const CodegenOptions& options) {
  const ir::Node& node = *pending[region.matmul->node];
  const ir::MatmulEpilogue epilogue = ir::matmul_epilogue(node);
  const ir::MatmulProblem& p = region.matmul->problem;
  const std::vector<std::int32_t>& inputs = region.matmul->input_terms;
  KernelBuilder builder(region, pending, externals, {});
  builder.constant("rows", std::uint64_t(p.n));
  builder.constant("x_at", std::uint64_t(p.b.offset));
  builder.constant("w_at", std::uint64_t(p.a.offset));
  // A size is an argument (a.name) or a literal. Compiled in, the index arithmetic folds and the
  // kernel spills less at its 64-register cap (12 bytes against 28 for a decode step's product
  // [16, 4096] x [4096, 4096]^T); in a probe that product took 19.6 us after a flush memset on
  // H100 against 21.4 with its sizes at run time.
  const auto size = [&](const char* name, std::int64_t value) {
    if (!options.sizes_at_run_time) return cat(value, "LL");
    builder.constant(name, std::uint64_t(value));
    return cat("a.", name);
  };
  const std::string n = size("n", p.m), k = size("k", p.k);
  const std::string x_ld = size("x_ld", p.b.ld), w_ld = size("w_ld", p.a.ld);
  // Offsets along K in 32 bits when K, compiled in, leaves them room: two registers fewer each.
  const char* offset = !options.sizes_at_run_time && p.k <= kMaxIntOffsetK ? "int" : "long long";
  std::set<std::int32_t> declared;  // x @ x^T reads one input through one term
  for (const std::int32_t t : inputs)
    if (declared.insert(t).second) builder.input_pointer(std::size_t(t));
  const DType dtype = node.dtype;
  std::vector<std::string> leading = {"skinny", "matmul"};
  std::string epilogue_text;
  if (const int bias = ir::matmul_bias_input(epilogue); bias >= 0) {
    const std::int32_t t = inputs[std::size_t(bias)];
    builder.constant("bias_at", std::uint64_t(region.terms[std::size_t(t)].layout.offset));
    append(epilogue_text, "  v += ",
           load_conversion(builder.term_dtype(std::size_t(t)),
                           cat(input_name(std::size_t(t)), "[a.bias_at + col]")),
           ";\n");
    leading.push_back("bias");
  }
  if (const int residual = ir::matmul_residual_input(epilogue); residual >= 0) {
    const std::int32_t t = inputs[std::size_t(residual)];
    builder.constant("residual_at", std::uint64_t(p.c->offset));
    builder.constant("residual_ld", std::uint64_t(p.c->ld));
    append(epilogue_text, "  v += ",
           load_conversion(
               builder.term_dtype(std::size_t(t)),
               cat(input_name(std::size_t(t)), "[a.residual_at + row * a.residual_ld + col]")),
           ";\n");
    leading.push_back("residual");
  }
  if (epilogue.activation == ir::MatmulActivation::gelu_tanh) {
    append(epilogue_text, "  v = lz_gelu_tanh(v);\n");
    leading.push_back("gelu_tanh");
  }
  builder.output_pointer(0);
  const std::string x = input_name(std::size_t(inputs[0]));
  const std::string w = input_name(std::size_t(inputs[1]));
  const std::string body =
      cat("// lazyfuse: a product of at most ", kSkinnyRows, " rows as tensor-core tiles of ",
          kColumnsPerBlock, " columns, the epilogue before one rounding\n",
          "#include \"lz_skinny_matmul.cuh\"\n\nstruct Args {\n", builder.args_text(), "};\n\n",
          "extern \"C\" __global__ void __launch_bounds__(", kThreads, ", ", kBlocksPerSm,
          ") $NAME(const Args a) {\n", "  float sum;\n  int row;\n  long long col;\n",
          "  if (!lz_skinny_product<", dtype == DType::bf16 ? "true" : "false", ", ", offset, ">(",
          x, " + a.x_at, ", x_ld, ", ", w, " + a.w_at, ", w_ld, ", (int)a.rows, ", n, ", ", k,
          ", sum, row, col))\n    return;\n", "  float v = sum;\n", epilogue_text, "  ",
          output_name(0), "[row * ", n, " + col] = ", store_conversion(dtype, "v"), ";\n}\n");
  GeneratedKernel kernel = builder.finish(body, "lz_", std::move(leading));
  kernel.numel = kernel.written = node.shape.numel();
  kernel.vector_width = 1;
  kernel.blocks = std::max<std::int64_t>(ir::ceil_div(p.m, kColumnsPerBlock), 1);
  kernel.threads = kThreads;
  return kernel;
}

}  // namespace lazy::codegen
