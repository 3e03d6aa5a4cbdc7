// The per-element arithmetic of the elementwise kernels Vidur's operator tables time
// (data/operator_timings/PROVENANCE.md: sarathi-serve's CUDA kernels, fp16, built with -O2 and
// without fast math; norm also times ATen's residual add), re-expressed to count the FP32
// instructions each issues per element: count_fp32.py builds this file for sm_80 (A100) and
// sm_90 (H100) and counts FFMA, FADD and FMUL in each kernel's machine code.
//
// What is reproduced, per element: the scalar type is c10::Half, whose every operator converts
// to float, computes, and rounds back; loads and stores are 16-bit, one element per thread per
// loop turn. Loops carry `unroll 1` so that one turn is one element (rope: one rotated pair);
// unrolling changes no arithmetic per element. Not a copy of those kernels: only the work.
#include <cuda_fp16.h>

#include <cstdint>

namespace {
__device__ __forceinline__ float wide(__half v) { return __half2float(v); }
__device__ __forceinline__ __half narrow(float v) { return __float2half(v); }
}  // namespace

// SiLU-and-mul: out = half(silu(x)) * y with silu(x) = x / (1 + expf(-x)) in FP32 (expf and the
// IEEE division, no fast math), the product a Half operator.
extern "C" __global__ void act_silu_and_mul(__half* __restrict__ out, const __half* __restrict__ in, int d) {
  const std::int64_t row = blockIdx.x;
#pragma unroll 1
  for (std::int64_t i = threadIdx.x; i < d; i += blockDim.x) {
    const float x = wide(__ldg(&in[row * 2 * d + i]));
    const __half y = __ldg(&in[row * 2 * d + d + i]);
    const __half s = narrow(x / (1.0f + expf(-x)));
    out[row * d + i] = narrow(wide(s) * wide(y));
  }
}

// RMSNorm, first pass: each thread sums the squares of its elements.
extern "C" __global__ void norm_sum_squares(const __half* __restrict__ in, float* __restrict__ partial, int n) {
  float acc = 0.f;
#pragma unroll 1
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const float x = wide(in[blockIdx.x * n + i]);
    acc += x * x;
  }
  partial[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// RMSNorm, the block reduction of the per-thread sums: warp shuffles, then the warps' sums
// shuffled again by every thread (once per thread, not per element).
__device__ float warp_total(float v) {
#pragma unroll
  for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1) v += __shfl_xor_sync(0xffffffffu, v, lane_mask);
  return v;
}
extern "C" __global__ void norm_block_reduce(float* partial) {
  __shared__ float per_warp[32];
  float v = warp_total(partial[threadIdx.x]);
  if ((threadIdx.x & 31) == 0) per_warp[threadIdx.x >> 5] = v;
  __syncthreads();
  v = threadIdx.x < blockDim.x / 32.f ? per_warp[threadIdx.x & 31] : 0.f;
  partial[threadIdx.x] = warp_total(v);
}

// RMSNorm, second pass: half(x * scale) * weight, the product a Half operator.
extern "C" __global__ void norm_scale(__half* __restrict__ out, const __half* __restrict__ in,
                                      const __half* __restrict__ weight, const float* scale, int n) {
  const float s = scale[blockIdx.x];
#pragma unroll 1
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const float x = wide(in[blockIdx.x * n + i]);
    out[blockIdx.x * n + i] = narrow(wide(narrow(x * s)) * wide(weight[i]));
  }
}

// Residual add (ATen's add with alpha, computed in float): a + alpha x b.
extern "C" __global__ void norm_residual_add(__half* __restrict__ out, const __half* __restrict__ a,
                                             const __half* __restrict__ b, float alpha, int n) {
#pragma unroll 1
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = narrow(wide(a[i]) + alpha * wide(b[i]));
}

// Rotary embedding (NeoX halves), one pair (x, y) per turn: x' = x cos - y sin, y' = y cos + x sin,
// each product and sum a Half operator.
extern "C" __global__ void rope_rotate(__half* __restrict__ q, const __half* __restrict__ cos_sin, int pairs,
                                       int half_dim, int head_size) {
  const __half* cs = cos_sin + blockIdx.x * 2 * half_dim;
#pragma unroll 1
  for (int i = threadIdx.x; i < pairs; i += blockDim.x) {
    const int head = i / half_dim, r = i % half_dim;
    __half* v = q + blockIdx.x * pairs * 2 + head * head_size;
    const float c = wide(cs[r]), s = wide(cs[half_dim + r]), x = wide(v[r]), y = wide(v[half_dim + r]);
    v[r] = narrow(wide(narrow(x * c)) - wide(narrow(y * s)));
    v[half_dim + r] = narrow(wide(narrow(y * c)) + wide(narrow(x * s)));
  }
}
