#pragma once
// How a ggml back end (llama.cpp, Ollama) runs a forward step's weight matrices, per
// device family (hardware/device_family.h): CUDA on NVIDIA GPUs, Metal on Apple GPUs,
// the CPU back end on CPU sockets. Two kernels matter:
//   mat-vec (decode, up to matvec_max_tokens tokens): CUDA's MMVQ quantizes the
//     activations to 8 bits and takes int8 dot products with the quantized weights,
//     Metal runs one mat-vec kernel per type, the CPU quantized vec_dot loops. They
//     stream the weights at matvec_memory of the memory bandwidth and spend
//     matvec_alu_per_weight FP32-operation equivalents per weight on unpacking, scaling
//     and multiplying, on the device's FP32 (vector) units, one after the other (a mat-vec
//     thread loads, then computes): time = bytes / (matvec_memory x bandwidth) + weights x
//     alu / FP32 peak. Fewer bits stream fewer bytes, so decode gets faster with fewer bits
//     on every device: dequantisation is never priced as tensor-core compute here.
//   mat-mat (prompt processing): CUDA's MMQ runs quantized weights on int8 tensor cores at a
//     rate bound by its tiles' data movement, fitted as FLOP per SM-cycle; F16 weights go to
//     cuBLAS at gemm_compute of the fp16 peak. Metal dequantizes into threadgroup memory and
//     multiplies with simdgroup matrices (the FP16 = FP32 rate) at gemm_compute x
//     dequant_compute; the CPU multiplies int8 dot products (VNNI, or AMX for the types
//     llama.cpp repacks for it: Q4_0, Q8_0) at gemm_compute of that peak.
// Every kernel of a step also costs kernel_time (launch, encoding and tail; CUDA graphs
// at batch 1, Metal command buffers), which replaces the GPU profile's kernel and
// elementwise overheads and its per-step overhead for these back ends.
// Where each default comes from: ggml_backend_kernels() (ggml_kernels.cpp).
#include <string>
#include <vector>

#include "hardware/gpu_spec.h"
#include "model/gguf.h"

namespace servesim {

enum class GgmlBackend { cuda, metal, cpu };
std::string ggml_backend_name(GgmlBackend b);
// The back end llama.cpp uses on a device: Metal on Apple GPUs, the CPU back end on CPU
// sockets, CUDA on every other GPU (AMD's ROCm build runs the same CUDA kernels via HIP).
GgmlBackend ggml_backend_for(const GpuSpec& gpu);

struct GgmlKernels {
  bool enabled = false;  // off: the roofline's tensor-core GEMM (every other framework)
  GgmlBackend backend = GgmlBackend::cuda;
  double matvec_max_tokens = 8;    // tokens up to which a GEMM runs as mat-vec
  double matvec_memory = 0.9;      // fraction of memory bandwidth mat-vec kernels stream weights at
  double matvec_alu_per_weight = 0;  // FP32-op equivalents per quantized weight per token (F16: 2, one FMA)
  double mmq_flops_per_sm_cycle = 0;  // CUDA MMQ rate per SM-cycle; 0: quantized mat-mat at the peaks below
  double gemm_compute = 0.7;       // mat-mat: fraction of the peak (fp16; CPU quantized: int8)
  double dequant_compute = 1.0;    // Metal/CPU quantized mat-mat: fraction of the F16 rate kept
  double kernel_time = 5e-6;       // seconds per kernel of a step
  // Provenance of the values (fits, their data and held-out errors), for `describe`-style output.
  std::string source;
};

// The fitted (or, where no data exists, assumed) kernels of a back end.
GgmlKernels ggml_backend_kernels(GgmlBackend b);

// What a GEMM op needs from the cost model to be timed by these kernels.
struct GgmlGemm {
  double tokens = 0;        // M
  double flops = 0;         // 2 x M x K x N x reps
  double bytes = 0;         // weights + activations
  bool quantized = false;   // the weights are a quantized ggml type (not F16)
  bool amx_type = false;    // the file's type is one llama.cpp repacks for AMX (q4_0, q8_0)
};
struct GgmlGemmTime {
  double compute = 0;   // mat-vec: its ALU time; mat-mat: its tensor/ALU time
  double memory = 0;
  double exposed = 0;   // mat-vec: the shorter of the two (they do not overlap)
};
GgmlGemmTime ggml_gemm_time(const GgmlKernels& k, const GpuSpec& gpu, const GgmlGemm& g);

// Whether a GGUF type is one llama.cpp repacks into its AMX buffer (ggml-org/llama.cpp
// issue #12003: Q4_0, Q4_1, Q8_0; K-quants stay on AVX-512 VNNI).
bool ggml_amx_type(GgufType t);

}  // namespace servesim
