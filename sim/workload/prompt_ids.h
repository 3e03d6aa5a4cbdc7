#pragma once
// A prompt's block ids as one list, whether stored in Request::block_hashes or
// implied by the request (Request::own_ids_implied): the engine reads them
// through this view, so the ids a request never needs are never written.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "workload/prefix_hash.h"
#include "workload/request.h"

namespace servesim {

class PromptIds {
 public:
  // All of them stored (traces, tests, any list).
  PromptIds(const std::vector<std::uint64_t>& ids)  // NOLINT: a list is a PromptIds
      : data_(ids.data()), stored_(ids.size()), size_(ids.size()) {}
  explicit PromptIds(const Request& r) : PromptIds(r.block_hashes) {
    if (r.own_ids_implied && r.hash_block_tokens > 0) {
      size_ = static_cast<std::size_t>(r.input_tokens / r.hash_block_tokens);
      own_base_ = prefix_owner_base(HashOwner::request, static_cast<std::uint64_t>(r.id));
    }
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::uint64_t operator[](std::size_t j) const {
    return j < stored_ ? data_[j] : prefix_owner_id(own_base_, static_cast<std::uint64_t>(j));
  }
  std::uint64_t front() const { return (*this)[0]; }
  // All of them into `out` (its capacity reused).
  void assign_to(std::vector<std::uint64_t>& out) const {
    out.assign(data_, data_ + stored_);
    out.reserve(size_);
    for (std::size_t j = stored_; j < size_; ++j) out.push_back((*this)[j]);
  }
  std::vector<std::uint64_t> to_vector() const {
    std::vector<std::uint64_t> out;
    assign_to(out);
    return out;
  }

 private:
  const std::uint64_t* data_;
  std::size_t stored_, size_;
  std::uint64_t own_base_ = 0;
};

// Writes r's implied ids into r.block_hashes (the room reserved for them: no
// reallocation) and clears the mark; a request whose ids are all stored is left as it is.
inline void materialize_block_ids(Request& r) {
  if (!r.own_ids_implied) return;
  const PromptIds ids(r);
  const std::size_t stored = r.block_hashes.size(), n = ids.size();
  r.block_hashes.reserve(n);
  for (std::size_t j = stored; j < n; ++j) r.block_hashes.push_back(ids[j]);
  r.own_ids_implied = false;
}

}  // namespace servesim
