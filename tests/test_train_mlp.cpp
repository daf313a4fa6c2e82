// The train_mlp sample trains: its loss falls well below the first step's, and it classifies the
// points it trained on.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "helper_programs.h"

namespace {

TEST(TrainMlp, TheLossFallsAndThePointsAreClassified) {
  const std::string command = lazy_test::helper_program(LAZY_TRAIN_MLP) + " 100 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  ASSERT_NE(pipe, nullptr);
  std::vector<double> losses;
  double accuracy = -1;
  char line[256];
  while (fgets(line, sizeof line, pipe.get()) != nullptr) {
    int step;
    double value;
    if (std::sscanf(line, "step %d loss %lf", &step, &value) == 2) losses.push_back(value);
    if (std::sscanf(line, "accuracy %lf%%", &value) == 1) accuracy = value;
  }
  ASSERT_EQ(losses.size(), 3u);  // steps 1, 50 and 100
  EXPECT_GT(losses.front(), 1.0);  // about log(4) for an untrained classifier of 4 classes
  EXPECT_LT(losses.back(), 0.5 * losses.front());
  EXPECT_GT(accuracy, 80);
}

}  // namespace
