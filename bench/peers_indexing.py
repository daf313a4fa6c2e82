"""Issue 14's workloads (indexing, joining, scans, ordering, scatters) in PyTorch, for peers.py.

Same shapes, dtypes and formulas as bench/bench_fusion.cpp.
"""

import torch
import torch.nn.functional as F

import peers

# Shapes from issue 14 (the same constants as bench_fusion.cpp).
CAT_PARTS, CAT_ROWS, CAT_COLS = 4, 4096, 4096
STENCIL_SIZE = 4096  # the grid of the stencil step: one side
EMBEDDING_ROWS, EMBEDDING_DIM = 131072, 4096
EMBEDDING_BATCH, EMBEDDING_SEQ = 8, 4096
CROSS_ENTROPY_ROWS, CROSS_ENTROPY_COLS = 8192, 32768  # tokens, vocabulary
CUMSUM_ROWS, CUMSUM_COLS = 16384, 4096
TOPK_ROWS, TOPK_COLS, TOPK_K = 4096, 131072, 50
INDEX_ADD_ROWS, INDEX_ADD_DIM, INDEX_ADD_IDS = 65536, 1024, 32768
SORT_ROWS, SORT_COLS = 2048, 65536
SORT_ONE_ROW = 1 << 27  # sort_row: every element of a tensor
DIFF_ELEMENTS = 1 << 26  # diff: differences of neighbours in a signal of one more

WORKLOAD_NAMES = ["cat4", "cat4_last", "stencil", "diff", "embedding", "cross_entropy", "cumsum",
                  "topk", "index_add", "sort", "sort_row"]


def cat4(inputs, dim):
    return torch.cat([x * 1.5 + 0.5 for x in inputs], dim)


def stencil(u):
    return u + 0.1 * (torch.roll(u, 1, 0) + torch.roll(u, -1, 0) + torch.roll(u, 1, 1) +
                      torch.roll(u, -1, 1) - 4 * u)


def diff(x):
    return x[1:] - x[:-1]


def embedding(table, positions, ids, scale):
    return F.embedding(ids, table) * scale + positions


def cross_entropy(logits, labels):
    return F.cross_entropy(logits, labels)


def cumsum(x):
    return torch.cumsum(x, -1)


def topk(x):
    return torch.topk(x, TOPK_K, -1)


def index_add(x, ids, src):
    return x.index_add(0, ids, src)


def sort(x):
    return torch.sort(x, dim=-1, stable=True)


def cat4_workload(dim):
    """Four tensors, each produced by pointwise work, joined along the rows or the columns."""
    dtype = torch.float32
    n = CAT_PARTS * CAT_ROWS * CAT_COLS

    def make_steps():
        inputs = [peers.randn((CAT_ROWS, CAT_COLS), 21 + k, dtype) for k in range(CAT_PARTS)]
        fused = peers.compiled(cat4)
        return {"torch_eager": lambda: cat4(inputs, dim),
                "torch_compile": lambda: fused(inputs, dim)}

    return peers.Workload("cat4" if dim == 0 else "cat4_last", dtype, 2 * n * peers.itemsize(dtype),
                          make_steps)


def stencil_workload():
    """A heat-equation step on a periodic grid: four rolls of u, read once, written once."""
    dtype = torch.float32
    n = STENCIL_SIZE * STENCIL_SIZE

    def make_steps():
        u = peers.randn((STENCIL_SIZE, STENCIL_SIZE), 36, dtype)
        fused = peers.compiled(stencil)
        return {"torch_eager": lambda: stencil(u), "torch_compile": lambda: fused(u)}

    return peers.Workload("stencil", dtype, 2 * n * peers.itemsize(dtype), make_steps)


def embedding_workload():
    """Token embeddings scaled by sqrt(dim) plus a position embedding shared by the batch."""
    dtype = torch.bfloat16
    tokens = EMBEDDING_BATCH * EMBEDDING_SEQ
    nbytes = (2 * tokens * EMBEDDING_DIM + EMBEDDING_SEQ * EMBEDDING_DIM) * peers.itemsize(dtype) + \
        tokens * 8

    def make_steps():
        table = peers.randn((EMBEDDING_ROWS, EMBEDDING_DIM), 25, dtype)
        positions = peers.randn((EMBEDDING_SEQ, EMBEDDING_DIM), 26, dtype)
        generator = torch.Generator(device=peers.DEVICE).manual_seed(27)
        ids = torch.randint(0, EMBEDDING_ROWS, (EMBEDDING_BATCH, EMBEDDING_SEQ),
                            generator=generator, device=peers.DEVICE)
        scale = float(EMBEDDING_DIM) ** 0.5
        fused = peers.compiled(embedding)
        return {"torch_eager": lambda: embedding(table, positions, ids, scale),
                "torch_compile": lambda: fused(table, positions, ids, scale)}

    return peers.Workload("embedding", dtype, nbytes, make_steps)


def cross_entropy_workload():
    """Cross-entropy from f32 logits and i64 labels (F.cross_entropy, mean reduction)."""
    dtype = torch.float32
    nbytes = CROSS_ENTROPY_ROWS * CROSS_ENTROPY_COLS * peers.itemsize(dtype) + \
        CROSS_ENTROPY_ROWS * 8 + 4

    def make_steps():
        logits = peers.randn((CROSS_ENTROPY_ROWS, CROSS_ENTROPY_COLS), 28, dtype)
        generator = torch.Generator(device=peers.DEVICE).manual_seed(29)
        labels = torch.randint(0, CROSS_ENTROPY_COLS, (CROSS_ENTROPY_ROWS,), generator=generator,
                               device=peers.DEVICE)
        fused = peers.compiled(cross_entropy)
        return {"torch_eager": lambda: cross_entropy(logits, labels),
                "torch_compile": lambda: fused(logits, labels)}

    return peers.Workload("cross_entropy", dtype, nbytes, make_steps)


def one_input_workload(name, fn, shape, seed, nbytes):
    """A workload whose step is fn of one f32 input of `shape`."""
    dtype = torch.float32

    def make_steps():
        x = peers.randn(shape, seed, dtype)
        fused = peers.compiled(fn)
        return {"torch_eager": lambda: fn(x), "torch_compile": lambda: fused(x)}

    return peers.Workload(name, dtype, nbytes, make_steps)


def diff_workload():
    """Differences of neighbours in a signal of 2^26 + 1 f32: read once, written once."""
    return one_input_workload("diff", diff, (DIFF_ELEMENTS + 1,), 37, 2 * DIFF_ELEMENTS * 4)


def cumsum_workload():
    """A running sum along the rows of [16384, 4096] f32."""
    return one_input_workload("cumsum", cumsum, (CUMSUM_ROWS, CUMSUM_COLS), 30,
                              2 * CUMSUM_ROWS * CUMSUM_COLS * 4)


def topk_workload():
    """The 50 largest of each row of [4096, 131072] f32 logits, with their positions."""
    return one_input_workload("topk", topk, (TOPK_ROWS, TOPK_COLS), 31,
                              TOPK_ROWS * TOPK_COLS * 4 + TOPK_ROWS * TOPK_K * (4 + 8))


def index_add_workload():
    """32768 rows of f32 gradients added into a [65536, 1024] table at random ids (repeats)."""
    dtype = torch.float32
    nbytes = (2 * INDEX_ADD_ROWS + INDEX_ADD_IDS) * INDEX_ADD_DIM * peers.itemsize(dtype) + \
        INDEX_ADD_IDS * 8

    def make_steps():
        x = peers.randn((INDEX_ADD_ROWS, INDEX_ADD_DIM), 32, dtype)
        src = peers.randn((INDEX_ADD_IDS, INDEX_ADD_DIM), 33, dtype)
        generator = torch.Generator(device=peers.DEVICE).manual_seed(34)
        ids = torch.randint(0, INDEX_ADD_ROWS, (INDEX_ADD_IDS,), generator=generator,
                            device=peers.DEVICE)
        fused = peers.compiled(index_add)
        return {"torch_eager": lambda: index_add(x, ids, src),
                "torch_compile": lambda: fused(x, ids, src)}

    return peers.Workload("index_add", dtype, nbytes, make_steps)


def sort_workload(name, rows, cols):
    """Each row of [rows, cols] f32 sorted (stable), with the positions."""
    return one_input_workload(name, sort, (rows, cols), 35, rows * cols * (2 * 4 + 8))


def workloads():
    return [cat4_workload(0), cat4_workload(1), stencil_workload(), diff_workload(),
            embedding_workload(),
            cross_entropy_workload(), cumsum_workload(), topk_workload(), index_add_workload(),
            sort_workload("sort", SORT_ROWS, SORT_COLS), sort_workload("sort_row", 1, SORT_ONE_ROW)]
