// A bounded map that forgets its least recently used entry when full. Not thread-safe: owners
// hold a lock around it.
#pragma once

#include <cstddef>
#include <list>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

namespace lazy::jit {

template <class Key, class Value>
class LruCache {
 public:
  explicit LruCache(std::size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  // The value for key, now the most recently used; nullptr when absent.
  Value* find(const Key& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->second;
  }

  // Inserts or replaces, evicting the least recently used entries past the capacity. Returns
  // the evicted values, for an owner to drop once it has let go of its lock.
  std::vector<Value> insert(const Key& key, Value value) {
    std::vector<Value> evicted;
    if (Value* existing = find(key)) {
      *existing = std::move(value);
      return evicted;
    }
    order_.emplace_front(key, std::move(value));
    index_[key] = order_.begin();
    while (order_.size() > capacity_) {
      evicted.push_back(std::move(order_.back().second));
      index_.erase(order_.back().first);
      order_.pop_back();
    }
    return evicted;
  }

  std::size_t size() const { return order_.size(); }
  void clear() {
    order_.clear();
    index_.clear();
  }

 private:
  using Entry = std::pair<Key, Value>;
  std::size_t capacity_;
  std::list<Entry> order_;  // most recently used first
  absl::flat_hash_map<Key, typename std::list<Entry>::iterator> index_;
};

}  // namespace lazy::jit
