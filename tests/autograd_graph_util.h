// What a test reads from an autograd graph: which backward nodes a computation recorded, so a
// case can tell which kernel ran (FlashAttentionBackward0, AddmmBackward0, ...) or that an op
// (a cast, a repeat) is gone.
#pragma once
#include <deque>
#include <set>
#include <string>

#include <ATen/core/Tensor.h>
#include <torch/csrc/autograd/function.h>

namespace runner::testing {

// How many nodes of `root`'s autograd graph satisfy `match(name)`.
template <class Match>
int graph_count_if(const at::Tensor& root, Match&& match) {
  std::deque<torch::autograd::Node*> todo{root.grad_fn().get()};
  std::set<torch::autograd::Node*> seen;
  int count = 0;
  while (!todo.empty()) {
    torch::autograd::Node* n = todo.front();
    todo.pop_front();
    if (!n || !seen.insert(n).second) continue;
    count += match(n->name()) ? 1 : 0;
    for (const auto& e : n->next_edges()) todo.push_back(e.function.get());
  }
  return count;
}

// How many nodes of this name `root`'s autograd graph has.
inline int graph_count(const at::Tensor& root, const std::string& name) {
  return graph_count_if(root, [&](const std::string& n) { return n == name; });
}

// Nodes whose name contains `part`: a C++ autograd function's node is named after its class,
// namespaces included ("runner::kernels::(anonymous namespace)::LayerNormToFn").
inline int graph_count_containing(const at::Tensor& root, const std::string& part) {
  return graph_count_if(root, [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

inline bool graph_has(const at::Tensor& root, const std::string& name) { return graph_count(root, name) > 0; }

}  // namespace runner::testing
