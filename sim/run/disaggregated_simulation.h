#pragma once
// Prefill/decode disaggregation (the scenario's `disaggregation:` section,
// scenario/disaggregation.h): the event loop of a prefill pool and a decode pool.
//
// A request's life, with the times a user sees:
//  1. it reaches a prefill instance frontend_latency after it arrives (the pool's
//     router picks the instance) and waits, is scheduled and prefilled there by the
//     vLLM-style engine exactly as in co-located serving, but as a request of one
//     output token: the prefill instance samples the first token (vLLM, SGLang and
//     Dynamo P/D all do) and frees its KV (the transfer is taken to read it out of
//     a staging copy; the prefill KV's holding time is not modelled);
//  2. a decode instance (the decode pool's router) grants it KV blocks for its
//     whole sequence (engine/decode_only_engine.h; it waits FCFS when they are
//     not free);
//  3. its prompt KV (prompt tokens x the model's KV bytes per token) moves over the
//     prefill instance's link: latency + bytes / bandwidth, one transfer at a time
//     per prefill instance (later ones wait in the link's queue, in grant order); with layer-wise
//     transfer, a transfer that starts the moment its prefill ended overlaps
//     (L-1)/L of that last prefill step with all but the last layer's share;
//  4. the first token reaches the user when the KV has arrived: SGLang's decode
//     server streams the token that came with the KV, and a user of any P/D system
//     sees the second token only after the transfer. So TTFT = queueing + prefill
//     + waiting for decode blocks + transfer (+ frontend latency); at zero load,
//     prefill step + transfer. The second token comes one decode step after the
//     request joins the decode batch (the next step that starts after its KV
//     arrived), and so on: TPOT and ITL are the decode pool's alone.
// With engine.prefix_caching, decode instances keep a prefix cache (engine/
// decode_prefix_cache.h): a request's transfer sends only the prompt tokens its decode
// instance has not cached when it grants the blocks, and the P/D decider
// (disaggregation.decider_threshold) compares the prompt less what the instance the
// decode pool's router picks has cached (that instance then takes the request, after
// the prefill pool or not).
// One-token requests finish at step 1 (no transfer). Energy, GPUs and cost are
// both pools'; RunSummary::disaggregation has each pool's utilisation and the
// transfers.
//
// Request classes (workload.classes) and the gateway: the gateway admits to the
// deployment (saturated when every instance of either pool is); the prefill pool's
// vLLM engines queue and preempt by priority; decode instances grant blocks in
// priority order with engine.scheduling_policy: priority. Users who give up
// (workload.patience) before the KV reaches the decode instance leave the prefill
// queue or prefill, the queue for decode blocks or the link's queue (the transfer
// withdrawn), or (KV on the wire) are reported at their deadline and their blocks
// freed when the transfer lands; counted abandoned.
// Not modelled, and refused with a reason: pipeline parallelism in a pool,
// parallel sampling / beam search, the static engine, pools with different KV
// cache precisions (and, as co-located, patience behind a gateway).
#include "run/simulation.h"

namespace servesim {

// Runs `source` through sc.disaggregation's pools (which must be set).
SimulationResult simulate_disaggregated(const Scenario& sc, RequestSource& source, const SimulationOptions& options);

}  // namespace servesim
