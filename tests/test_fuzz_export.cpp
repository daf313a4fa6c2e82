// lazyfuse-fuzz --export (tools/fuzz/export.h): what tools/fuzz/torch_check.py reads must hold
// every step of every program, with the values lazyfuse computed where the JSON says they are.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <lazy/lazy.h>

#include "tools/fuzz/builder.h"
#include "tools/fuzz/export.h"
#include "tools/fuzz/generator.h"
#include "tools/fuzz/step_gradients.h"

namespace {

using namespace lazy::fuzz;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<std::string> lines_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The number after `"key":` at or after `from` in `json`.
std::int64_t number_after(const std::string& json, const std::string& key, std::size_t& from) {
  from = json.find("\"" + key + "\":", from);
  if (from == std::string::npos) return -1;
  from += key.size() + 3;
  return std::stoll(json.substr(from));
}

std::vector<double> values_at(const std::filesystem::path& path, std::int64_t offset,
                              std::int64_t count) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(offset);
  std::vector<double> v(static_cast<std::size_t>(count));
  in.read(reinterpret_cast<char*>(v.data()), std::streamsize(count * 8));
  return v;
}

class FuzzExport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("lazyfuse-export-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(FuzzExport, WritesEveryStepOfEveryProgramWithItsValues) {
  SessionOptions options;
  options.seed = 17399;
  options.start = 3;
  options.count = 6;
  options.max_elements = 4096;
  std::ostringstream log;
  const ExportSummary summary = export_programs(options, dir_.string(), log);
  EXPECT_EQ(summary.programs + summary.failed, options.count) << log.str();
  EXPECT_EQ(summary.failed, 0);

  const std::vector<std::string> lines = lines_of(dir_ / "programs.jsonl");
  ASSERT_EQ(lines.size(), std::size_t(options.count));
  std::int64_t bytes = 0;
  for (std::int64_t p = 0; p < options.count; ++p) {
    const std::string& json = lines[std::size_t(p)];
    EXPECT_THAT(json, HasSubstr("\"index\":" + std::to_string(options.start + p) + ","));
    // The same program again: each step's values must be where the JSON says, in order.
    Program program = generate(options.seed, options.start + p, generate_options_of(options));
    Builder builder(program);
    builder.apply_all();
    std::vector<lazy::Tensor> all;
    for (int i = 0; i < builder.size(); ++i) all.push_back(builder.tensor(i));
    lazy::eval(all);
    std::size_t at = 0;
    for (int i = 0; i < builder.size(); ++i) {
      const lazy::Tensor& t = builder.tensor(i);
      const std::int64_t offset = number_after(json, "offset", at);
      ASSERT_EQ(offset, bytes) << "program " << p << " step " << i;
      bytes += t.numel() * 8;
      if (!lazy::is_floating(t.dtype()) || t.numel() == 0) continue;
      const std::vector<double> want = t.to_vector<double>();
      const std::vector<double> got = values_at(dir_ / "values.bin", offset, t.numel());
      EXPECT_EQ(std::memcmp(want.data(), got.data(), want.size() * 8), 0)
          << "program " << p << " step " << i;
    }
    EXPECT_EQ(number_after(json, "offset", at), -1) << "more steps written than recorded";
  }
  EXPECT_EQ(std::int64_t(std::filesystem::file_size(dir_ / "values.bin")), bytes);
}

TEST_F(FuzzExport, NamesTheStepsOpAndResult) {
  SessionOptions options;
  options.seed = 11;
  options.count = 1;
  std::ostringstream log;
  ASSERT_EQ(export_programs(options, dir_.string(), log).programs, 1);
  const std::string json = lines_of(dir_ / "programs.jsonl").at(0);
  // A data leaf first, then steps reading earlier ones, each with a result dtype and bounds.
  EXPECT_THAT(json, HasSubstr("{\"op\":\"data\""));
  EXPECT_THAT(json, HasSubstr("\"args\":[{\"step\":0}"));
  EXPECT_THAT(json, HasSubstr("\"result\":{\"dtype\":"));
  EXPECT_THAT(json, HasSubstr("\"bounds\":{\"lo\":"));
}

Step data_step(std::vector<Dim> shape, lazy::DType dtype, std::uint64_t key) {
  Step s;
  s.dtype = dtype;
  s.shape = std::move(shape);
  s.data.key = key;
  s.data.lo = -2;
  s.data.hi = 2;
  return s;
}

Step mul_step(int a, int b) {
  Step s;
  s.op = Op::binary;
  s.name = "mul";
  s.args = {Arg{a}, Arg{b}};
  return s;
}

// Each step's gradient is taken alone, at the values the forward computed for its arguments, with
// respect to each floating argument once, in that argument's dtype: a * b for a [3, 4] f32 and a
// [4] bf16, then t2 * t2.
TEST(StepGradients, AreEachStepsVjpAtItsArgumentsValues) {
  Program program;
  program.steps = {data_step({Dim{{}, 3}, Dim{{}, 4}}, lazy::DType::f32, 5),
                   data_step({Dim{{}, 4}}, lazy::DType::bf16, 6), mul_step(0, 1), mul_step(2, 2)};
  Builder forward(program);
  forward.apply_all();
  std::vector<lazy::Tensor> all;
  for (int i = 0; i < forward.size(); ++i) all.push_back(forward.tensor(i));
  lazy::eval(all);
  const std::vector<StepGradient> gradients = record_step_gradients(program, forward, 99);
  ASSERT_EQ(gradients.size(), 2u);
  const StepGradient& product = gradients[0];
  const StepGradient& square = gradients[1];
  ASSERT_EQ(product.step, 2);
  ASSERT_EQ(square.step, 3);
  EXPECT_EQ(product.wrt, (std::vector<int>{0, 1}));
  EXPECT_EQ(square.wrt, (std::vector<int>{2}));
  ASSERT_TRUE(product.refused.empty() && square.refused.empty());
  EXPECT_EQ(product.gradients[1].dtype(), lazy::DType::bf16);
  EXPECT_EQ(product.gradients[1].shape(), lazy::Shape({4}));

  const std::vector<double> a = forward.tensor(0).to_vector<double>();
  const std::vector<double> b = forward.tensor(1).to_vector<double>();
  const std::vector<double> t2 = forward.tensor(2).to_vector<double>();
  const std::vector<double> c = product.cotangent.to_vector<double>();
  const std::vector<double> da = product.gradients[0].to_vector<double>();
  const std::vector<double> db = product.gradients[1].to_vector<double>();
  const std::vector<double> c3 = square.cotangent.to_vector<double>();
  const std::vector<double> d2 = square.gradients[0].to_vector<double>();
  for (int j = 0; j < 4; ++j) {
    double want_db = 0;
    for (int i = 0; i < 3; ++i) {
      const std::size_t k = std::size_t(i * 4 + j);
      EXPECT_NEAR(da[k], c[k] * b[std::size_t(j)], 1e-6) << k;
      EXPECT_NEAR(d2[k], 2 * c3[k] * t2[k], 1e-5 * std::abs(2 * c3[k] * t2[k]) + 1e-6) << k;
      want_db += c[k] * a[k];
    }
    EXPECT_NEAR(db[std::size_t(j)], want_db, 1e-2 * std::abs(want_db) + 1e-2) << j;  // bf16
  }
}

TEST_F(FuzzExport, WritesEachStepsGradientWhenAsked) {
  SessionOptions options;
  options.seed = 5;
  options.start = 1;
  options.count = 1;
  options.gradients = true;
  std::ostringstream log;
  ASSERT_EQ(export_programs(options, dir_.string(), log).programs, 1);
  const std::string json = lines_of(dir_ / "programs.jsonl").at(0);
  EXPECT_THAT(json, HasSubstr("\"grad\":{\"cotangent\":"));
  EXPECT_THAT(json, ::testing::ContainsRegex("\"wrt\":\\[\\{\"step\":[0-9]+,\"dtype\":\"f32\""));
  EXPECT_THAT(json, Not(HasSubstr("grad_error")));
}

TEST_F(FuzzExport, SaysWhenItCannotWrite) {
  SessionOptions options;
  std::ostringstream log;
  EXPECT_EQ(export_programs(options, (dir_ / "missing" / "dir").string(), log).programs, 0);
  EXPECT_THAT(log.str(), HasSubstr("cannot write"));
}

}  // namespace
