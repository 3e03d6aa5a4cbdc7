// Kubernetes: a Deployment of `replicas` pods, each one replica of the candidate, running
// vLLM's OpenAI server image (vllm/vllm-openai) as `vllm serve MODEL [engine args]`
// (the command is set, so the image's entrypoint of the day does not matter;
// docs.vllm.ai/en/latest/deployment/k8s.html) with tp x pp GPUs (`nvidia.com/gpu`, the NVIDIA device plugin's
// resource), shared memory for the workers (an in-memory emptyDir at /dev/shm), a
// readiness probe on /health, and a Service in front of the pods.
#include <fmt/format.h>

#include <cctype>

#include "deploy/deployment.h"

namespace servesim::deploy {
namespace {

// A DNS-1123 name from the model: lower case, [a-z0-9-], at most 63 characters.
std::string dns_name(const std::string& s) {
  std::string out;
  for (const char c : s) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const char k = std::isalnum(static_cast<unsigned char>(l)) ? l : '-';
    if (k == '-' && (out.empty() || out.back() == '-')) continue;  // no leading or doubled dashes
    out.push_back(k);
  }
  if (out.size() > 50) out.resize(50);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return "servesim-" + (out.empty() ? std::string("model") : out);
}

// A YAML flow-sequence string item, double-quoted with JSON escapes (a control
// character as \xNN, so a name from the inputs stays one item on one line).
std::string yaml_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::vector<EmittedFile> emit_kubernetes(const DeploymentPlan& plan) {
  const Scenario& sc = *plan.scenario;
  const std::string name = dns_name(sc.model.name);
  const int gpus = sc.parallelism.gpus_per_replica();
  std::string args = "        - " + yaml_string(detail::model_id(sc)) + "\n";
  for (const auto& [flag, value] : vllm_args(sc)) {
    args += "        - " + yaml_string(flag) + "\n";
    if (!value.empty()) args += "        - " + yaml_string(value) + "\n";
  }
  std::string y = detail::header_comment(
      plan, fmt::format("{} pods of {} GPU(s), vLLM's OpenAI server (image vllm/vllm-openai), behind the Service below.",
                        plan.replicas, gpus));
  y += detail::checkpoint_note(sc, "vLLM");
  y += detail::speculative_note(sc);
  y += fmt::format(R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: {0}
  labels:
    app: {0}
spec:
  replicas: {1}
  selector:
    matchLabels:
      app: {0}
  template:
    metadata:
      labels:
        app: {0}
    spec:
      # Pin the GPU servesim planned for (the label is NVIDIA GPU feature discovery's):
      # nodeSelector:
      #   nvidia.com/gpu.product: <the {2} product name on your nodes>
      containers:
      - name: vllm
        image: vllm/vllm-openai:latest
        command: ["vllm", "serve"]
        args:
{3}        ports:
        - containerPort: 8000
        resources:
          limits:
            nvidia.com/gpu: {4}
        readinessProbe:
          httpGet:
            path: /health
            port: 8000
          initialDelaySeconds: 60
          periodSeconds: 10
        volumeMounts:
        - name: shm
          mountPath: /dev/shm
      volumes:
      - name: shm
        emptyDir:
          medium: Memory
          sizeLimit: 16Gi
---
apiVersion: v1
kind: Service
metadata:
  name: {0}
spec:
  selector:
    app: {0}
  ports:
  - port: 8000
    targetPort: 8000
)",
                   name, plan.replicas, detail::comment_safe(sc.gpu.name), args, gpus);
  return {{"deployment.yaml", y}};
}

}  // namespace servesim::deploy
