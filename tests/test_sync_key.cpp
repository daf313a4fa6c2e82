// The sync key: the same program gives the same key (in this process and another), changed
// scalar values give the same key, and any change of structure, shape, dtype or live outputs
// gives a different one.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include <lazy/lazy.h>

#include "helper_programs.h"
#include "ir/trace.h"
#include "key_program.h"

namespace {

using lazy::ir::Hash128;
using lazy::ir::Trace;

// The key of what the thread has pending, after which the pending work is dropped unsynced.
Hash128 key_and_forget() {
  Hash128 key = Trace::current().sync_key();
  Trace::current().clear();
  return key;
}

class SyncKey : public ::testing::Test {
 protected:
  void SetUp() override { lazy::sync(); }
  void TearDown() override { Trace::current().clear(); }
};

TEST_F(SyncKey, SameProgramRecordedTwiceGivesSameKey) {
  Hash128 first, second;
  {
    auto p = lazy_test::record_key_program(1.2f, 4);
    first = key_and_forget();
  }
  {
    auto p = lazy_test::record_key_program(1.2f, 4);
    second = key_and_forget();
  }
  EXPECT_EQ(first, second);
}

TEST_F(SyncKey, ChangedScalarValueGivesSameKey) {
  Hash128 first, second;
  {
    auto p = lazy_test::record_key_program(1.2f, 4);
    first = key_and_forget();
  }
  {
    auto p = lazy_test::record_key_program(0.7f, 4);
    second = key_and_forget();
  }
  EXPECT_EQ(first, second);
}

TEST_F(SyncKey, ChangedSeedGivesSameKey) {
  Hash128 first, second;
  {
    lazy::Tensor r = lazy::randn({4, 4}, 1) * 2.0f;
    first = key_and_forget();
  }
  {
    lazy::Tensor r = lazy::randn({4, 4}, 99) * 2.0f;
    second = key_and_forget();
  }
  EXPECT_EQ(first, second);
}

TEST_F(SyncKey, DifferentShapeGivesDifferentKey) {
  Hash128 first, second;
  {
    auto p = lazy_test::record_key_program(1.2f, 4);
    first = key_and_forget();
  }
  {
    auto p = lazy_test::record_key_program(1.2f, 6);
    second = key_and_forget();
  }
  EXPECT_NE(first, second);
}

TEST_F(SyncKey, DifferentDTypeGivesDifferentKey) {
  Hash128 first, second;
  {
    lazy::Tensor y = lazy::exp(lazy::randn({4}, 1, lazy::f32));
    first = key_and_forget();
  }
  {
    lazy::Tensor y = lazy::exp(lazy::randn({4}, 1, lazy::bf16));
    second = key_and_forget();
  }
  EXPECT_NE(first, second);
}

TEST_F(SyncKey, DifferentLiveOutputsGiveDifferentKey) {
  Hash128 both, last_only;
  {
    lazy::Tensor x = lazy::randn({4}, 1);
    lazy::Tensor h = x + 1.0f;
    lazy::Tensor y = h * 2.0f;
    both = key_and_forget();
  }
  {
    lazy::Tensor x = lazy::randn({4}, 1);
    lazy::Tensor y = (x + 1.0f) * 2.0f;
    last_only = key_and_forget();
  }
  EXPECT_NE(both, last_only);
}

TEST_F(SyncKey, DifferentOpGivesDifferentKey) {
  Hash128 first, second;
  {
    lazy::Tensor y = lazy::exp(lazy::randn({4}, 1));
    first = key_and_forget();
  }
  {
    lazy::Tensor y = lazy::log(lazy::randn({4}, 1));
    second = key_and_forget();
  }
  EXPECT_NE(first, second);
}

TEST_F(SyncKey, WhichInputFeedsWhichOpIsPartOfKey) {
  // Same nodes, wired differently: a + a against a + b over two computed inputs.
  lazy::Tensor a = lazy::ones({4});
  lazy::Tensor b = lazy::ones({4});
  lazy::eval({a, b});
  Hash128 same, different;
  {
    lazy::Tensor y = a + a;
    same = key_and_forget();
  }
  {
    lazy::Tensor y = a + b;
    different = key_and_forget();
  }
  EXPECT_NE(same, different);
}

TEST_F(SyncKey, SwappedScalarUsesGiveDifferentKey) {
  // Two scalars hash alike by design; what tells these apart is which op reads which.
  lazy::Tensor x = lazy::ones({4});
  lazy::eval({x});
  Hash128 first, second;
  {
    lazy::Tensor s = lazy::full({}, 2.0f);
    lazy::Tensor t = lazy::full({}, 3.0f);
    lazy::Tensor y = x * s;
    lazy::Tensor z = x + t;
    first = key_and_forget();
  }
  {
    lazy::Tensor s = lazy::full({}, 2.0f);
    lazy::Tensor t = lazy::full({}, 3.0f);
    lazy::Tensor y = x * t;
    lazy::Tensor z = x + s;
    second = key_and_forget();
  }
  EXPECT_NE(first, second);
}

TEST_F(SyncKey, SameKeyInASecondProcess) {
  Hash128 here;
  {
    auto p = lazy_test::record_key_program(1.2f, 4);
    here = key_and_forget();
  }
  const std::string key_printer = lazy_test::helper_program(LAZY_KEY_PRINTER);
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(key_printer.c_str(), "r"), pclose);
  ASSERT_NE(pipe, nullptr);
  std::array<char, 128> line{};
  ASSERT_NE(fgets(line.data(), line.size(), pipe.get()), nullptr);
  std::string there(line.data());
  while (!there.empty() && there.back() == '\n') there.pop_back();
  EXPECT_EQ(there, here.to_hex());
}

// A node of many inputs (cat) is keyed by every one of them, pending or computed, in order.
TEST_F(SyncKey, EveryInputOfAManyInputNodeIsInTheKey) {
  std::vector<lazy::Tensor> parts;
  for (std::int64_t n = 1; n <= 6; ++n) parts.push_back(lazy::randn({n}, n));
  lazy::eval(parts);
  auto key_of_cat = [&](std::vector<lazy::Tensor> inputs) {
    inputs.push_back(lazy::exp(parts[0]));  // a pending input among computed ones
    lazy::Tensor joined = lazy::cat(inputs, 0);
    return key_and_forget();
  };
  const Hash128 in_order = key_of_cat(parts);
  EXPECT_EQ(key_of_cat(parts), in_order);
  std::vector<lazy::Tensor> swapped = parts;
  std::swap(swapped[4], swapped[5]);
  EXPECT_NE(key_of_cat(swapped), in_order);
  std::vector<lazy::Tensor> repeated = parts;
  repeated[5] = parts[1];
  EXPECT_NE(key_of_cat(repeated), in_order);
}

TEST_F(SyncKey, AGatherOnAnotherLineGivesAnotherKey) {
  // A plan names the line of each index check in the error a bad index raises.
  lazy::Tensor table = lazy::from_data<float>({1, 2, 3, 4}, {4});
  lazy::Tensor ids = lazy::from_data<std::int64_t>({1, 3}, {2});
  Hash128 keys[3];
  for (int i = 0; i < 2; ++i) {
    lazy::Tensor picked = lazy::index_select(table, 0, ids);
    keys[i] = key_and_forget();
  }
  {
    lazy::Tensor picked = lazy::index_select(table, 0, ids);
    keys[2] = key_and_forget();
  }
  EXPECT_EQ(keys[0], keys[1]);
  EXPECT_NE(keys[0], keys[2]);
}

}  // namespace
