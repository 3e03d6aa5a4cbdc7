#pragma once
// The smallest of n values and the lowest index holding it, kept up to date under
// single-value changes: a complete binary tree whose every inner node names the
// better of its two children (ties to the lower index). set() is O(log n), best()
// O(1). The router (router.h) keeps each replica's load in one, so routing a
// request no longer scans every replica.
#include <cstddef>
#include <vector>

namespace servesim {

template <typename T>
class MinTree {
 public:
  void resize(std::size_t n, T value) {
    leaves_ = 1;
    while (leaves_ < n) leaves_ *= 2;
    n_ = n;
    values_.assign(n, value);
    // Padding leaves (index >= n) never win: best_of prefers a real index.
    node_.assign(2 * leaves_, 0);
    for (std::size_t i = 0; i < leaves_; ++i) node_[leaves_ + i] = i < n ? i : n;  // n: "none"
    for (std::size_t i = leaves_ - 1; i >= 1; --i) node_[i] = best_of(node_[2 * i], node_[2 * i + 1]);
  }
  void set(std::size_t i, T value) {
    if (values_[i] == value) return;
    values_[i] = value;
    for (std::size_t p = (leaves_ + i) / 2; p >= 1; p /= 2) {
      const std::size_t b = best_of(node_[2 * p], node_[2 * p + 1]);
      if (node_[p] == b && b != i) break;  // nothing above can change
      node_[p] = b;
    }
  }
  const T& value(std::size_t i) const { return values_[i]; }
  // The lowest index of the smallest value (0 for n <= 1).
  std::size_t best() const { return n_ <= 1 ? 0 : node_[1]; }
  std::size_t size() const { return n_; }

 private:
  std::size_t best_of(std::size_t a, std::size_t b) const {
    if (a >= n_) return b;
    if (b >= n_) return a;
    // a < b always (a is in the left subtree): b wins only when strictly smaller.
    return values_[b] < values_[a] ? b : a;
  }

  std::size_t n_ = 0, leaves_ = 1;
  std::vector<T> values_;
  std::vector<std::size_t> node_;
};

}  // namespace servesim
