"""tools/profile-gpu: kernel timings for servesim's operator calibration.

Pure modules (shapes, mini_yaml, plan, tables, provenance, profile, fake_timer, cli)
import without PyTorch; torch_backend and allreduce need it and are imported only
when measuring.
"""
