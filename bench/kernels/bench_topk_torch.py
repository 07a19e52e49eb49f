# Vendor baseline for bench_topk: times torch.topk(logits, k, dim=-1, sorted=False) on the same shapes (fp32 N(0,1)
# logits over full rows) with the same method (median over replays of a CUDA graph of L launches) and prints the
# same floor (compulsory bytes at 4214 GB/s) and ratio floor/measured. Prints R C topk us floor_us ratio.
import torch

L, REPS = 20, 21
COPY_GBS = 4214.0
CASES = [(1, 131072, 2048), (64, 65536, 2048), (128, 131072, 2048), (256, 32768, 2048),
         (64, 65536, 1024), (1024, 8192, 512), (4096, 4096, 512), (128, 16384, 2048)]

print("torch", torch.__version__, torch.cuda.get_device_name())
print("%6s %7s %5s %11s %11s %7s" % ("R", "C", "topk", "torch_us", "floor_us", "ratio"))
torch.manual_seed(11)
for r, c, k in CASES:
    x = torch.randn(r, c, device="cuda", dtype=torch.float32)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.topk(x, k, dim=-1, sorted=False)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=s):
            for _ in range(L):
                torch.topk(x, k, dim=-1, sorted=False)
        g.replay()
        torch.cuda.synchronize()
        ts = []
        for _ in range(REPS):
            e0 = torch.cuda.Event(enable_timing=True)
            e1 = torch.cuda.Event(enable_timing=True)
            e0.record(s)
            g.replay()
            e1.record(s)
            e1.synchronize()
            ts.append(e0.elapsed_time(e1) * 1000.0 / L)
    ts.sort()
    us = ts[len(ts) // 2]
    floor_us = r * (4.0 * c + 4.0 * k + 8.0) / (COPY_GBS * 1e3)
    print("%6d %7d %5d %11.2f %11.2f %7.3f" % (r, c, k, us, floor_us, floor_us / us), flush=True)
    del x, g
