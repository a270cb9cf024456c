"""probe_rows.py LIB FN ROWSxCOLS [PATH] - a warm-up and one call of a Part III contract function, for ncu (profile_rows.sh).
DIRTY_L2=1: before each call, zero a buffer of twice L2's size, as rows_torch.py's timing does, so that L2 is full
of lines still to be written to memory (profile it with ncu --cache-control none to see what the call pays for them)."""
import ctypes, os, sys, torch
lib = ctypes.CDLL(sys.argv[1]); fn = sys.argv[2]
rows, cols = map(int, sys.argv[3].split("x")); path = int(sys.argv[4]) if len(sys.argv) > 4 else 0
dt = torch.float32 if fn in ("softmax_rows", "softmax_online") else torch.bfloat16 if "bf16" in fn else torch.float16
x = (torch.randint(-256, 256, (rows, cols), device="cuda").float() / 64).to(dt)
stats = "row_stats" in fn
y = torch.empty((2 * rows,) if stats else (rows, cols), dtype=torch.float32 if stats else dt, device="cuda")
w = torch.ones(cols, dtype=dt, device="cuda"); b = torch.zeros(cols, dtype=dt, device="cuda")
f = getattr(lib, fn); P = ctypes.c_void_p
dirty = torch.empty(torch.cuda.get_device_properties(0).L2_cache_size // 2, dtype=torch.float32, device="cuda") \
    if os.environ.get("DIRTY_L2") else None
for _ in range(2):
    if dirty is not None:
        dirty.zero_()
    if fn == "layernorm_rows_f16":
        f(P(x.data_ptr()), P(w.data_ptr()), P(b.data_ptr()), P(y.data_ptr()), rows, cols, ctypes.c_float(1e-5), path)
    elif fn == "rmsnorm_rows_bf16":
        f(P(x.data_ptr()), P(w.data_ptr()), P(y.data_ptr()), rows, cols, ctypes.c_float(1e-5), path)
    elif fn == "softmax_online":
        f(P(x.data_ptr()), P(y.data_ptr()), rows, cols)
    else:
        f(P(x.data_ptr()), P(y.data_ptr()), rows, cols, path)
torch.cuda.synchronize()
