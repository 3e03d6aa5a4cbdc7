#pragma once
// A prompt's block ids as one list, whether stored in Request::block_hashes or
// implied by the request (Request::own_ids_implied, Request::system_ids_implied):
// the engine reads them through this view, so the ids a request never needs are
// never written.
#include <algorithm>
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
      : data_(ids.data()), stored_(ids.size()), system_end_(ids.size()), size_(ids.size()) {}
  explicit PromptIds(const Request& r) : PromptIds(r.block_hashes) {
    if (r.hash_block_tokens <= 0) return;
    if (r.system_ids_implied && stored_ > 0) {
      system_end_ = static_cast<std::size_t>(r.unique_hashes_from);
      system_base_ = prefix_hash_unmix(data_[0]);
      size_ = system_end_;
    }
    if (r.own_ids_implied) {
      size_ = static_cast<std::size_t>(r.input_tokens / r.hash_block_tokens);
      own_base_ = prefix_owner_base(HashOwner::request, static_cast<std::uint64_t>(r.id));
    }
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::uint64_t operator[](std::size_t j) const {
    if (j < stored_) return data_[j];
    return prefix_owner_id(j < system_end_ ? system_base_ : own_base_, static_cast<std::uint64_t>(j));
  }
  std::uint64_t front() const { return (*this)[0]; }
  // Goes on past the list with the ids its owner's later prompts have there, up to
  // `size` of them: id j is prefix_owner_id(base, j), base recovered from the last
  // stored id j0 (prefix_hash_unmix(id) ^ j0). Only for a list whose ids are all
  // stored and whose last one is its owner's (Request::extended_later, past
  // unique_hashes_from); false, and nothing changed, otherwise.
  bool extend_by_owner(std::size_t size, std::size_t owner_from) {
    if (size_ != stored_ || stored_ == 0 || stored_ - 1 < owner_from) return false;
    own_base_ = prefix_hash_unmix(data_[stored_ - 1]) ^ static_cast<std::uint64_t>(stored_ - 1);
    system_end_ = stored_;
    size_ = std::max(size_, size);
    return true;
  }
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
  std::size_t stored_;
  std::size_t system_end_;  // ids [stored_, system_end_) follow from system_base_, the rest from own_base_
  std::size_t size_;
  std::uint64_t system_base_ = 0, own_base_ = 0;
};

// Writes r's implied ids into r.block_hashes and clears the marks; a request
// whose ids are all stored is left as it is.
inline void materialize_block_ids(Request& r) {
  if (!r.own_ids_implied && !r.system_ids_implied) return;
  const PromptIds ids(r);
  const std::size_t stored = r.block_hashes.size(), n = ids.size();
  r.block_hashes.reserve(n);
  for (std::size_t j = stored; j < n; ++j) r.block_hashes.push_back(ids[j]);
  r.own_ids_implied = r.system_ids_implied = false;
}

// The ids of a synthetic prompt that opens with `group`'s system prompt of
// `prefix_tokens` tokens and goes on with r's own question (HashOwner::request,
// owner r.id), as prompt_block_hashes gives them, implied: r.block_hashes holds
// only the system prompt's first id, which names it (r.unique_hashes_from: where
// r's own ids start). r.input_tokens and r.hash_block_tokens (> 0) must be set.
// False, and r untouched, when the prompt has no full system-prompt block (then
// there is no name: the caller stores the ids).
inline bool imply_prompt_ids(Request& r, std::int64_t group, std::int64_t prefix_tokens) {
  if (group < 0 || r.hash_block_tokens <= 0) return false;
  const std::int64_t full = r.input_tokens / r.hash_block_tokens;
  const std::int64_t shared = std::min(full, prefix_tokens / r.hash_block_tokens);
  if (shared <= 0) return false;
  r.block_hashes.assign(1, prefix_block_hash(HashOwner::group, static_cast<std::uint64_t>(group), 0));
  r.unique_hashes_from = static_cast<std::int32_t>(shared);
  r.system_ids_implied = shared > 1;
  r.own_ids_implied = shared < full;
  return true;
}

}  // namespace servesim
