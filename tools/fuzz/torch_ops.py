"""PyTorch's form of each step of a fuzz program (tools/fuzz/program.h), for torch_check.py."""

import torch
import torch.nn.functional as F

DTYPES = {
    "f32": torch.float32,
    "f16": torch.float16,
    "bf16": torch.bfloat16,
    "i32": torch.int32,
    "i64": torch.int64,
    "bool": torch.bool,
}

# Unary ops by lazyfuse's name: PyTorch's function of the same name, or these.
UNARY = {
    name: getattr(torch, name)
    for name in ("neg abs sign square relu floor ceil round trunc exp exp2 log log2 log1p expm1 "
                 "sqrt rsqrt sin cos tanh erf sigmoid reciprocal logical_not isnan isinf "
                 "tan asin acos atan sinh cosh asinh acosh atanh log10 isfinite").split()
}
UNARY.update({
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
    "softplus": F.softplus,
    "bitwise_not": torch.bitwise_not,
    "log_sigmoid": F.logsigmoid,
})
# The domain guards at the parameters of tools/fuzz/guard_rules.h.
UNARY.update({
    "logit": lambda x: torch.logit(x, 1e-3),
    "nan_to_num": torch.nan_to_num,
    "threshold": lambda x: F.threshold(x, 0.5, -2.0),
})
# The activations at their default parameters: torch.nn.functional's of the same name.
UNARY.update({
    name: getattr(F, name)
    for name in ("leaky_relu elu selu celu hardtanh relu6 hardsigmoid hardswish mish softsign "
                 "tanhshrink softshrink hardshrink").split()
})

# Binary ops PyTorch takes a Python number on either side of, through its operators.
OPERATORS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
    "floor_divide": lambda a, b: a // b,
    "remainder": lambda a, b: a % b,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "bitwise_and": lambda a, b: a & b,
    "bitwise_or": lambda a, b: a | b,
    "bitwise_xor": lambda a, b: a ^ b,
    "bitwise_left_shift": lambda a, b: a << b,
    "bitwise_right_shift": lambda a, b: a >> b,
}
# Binary ops PyTorch takes tensors only for; a number becomes a 0-d tensor of the promoted dtype.
TENSOR_ONLY = {
    name: getattr(torch, name)
    for name in ("maximum minimum fmod atan2 hypot logaddexp logical_and logical_or "
                 "logical_xor").split()
}
FLOATING_RESULT = {"atan2", "hypot", "logaddexp"}


def promoted_dtype(*values):
    """PyTorch's result type of tensors and numbers together (torch.result_type takes two)."""
    def category(dtype):
        return 2 if dtype.is_floating_point else 0 if dtype == torch.bool else 1

    tiers = [[], [], []]  # dimensioned tensors, 0-d tensors, numbers
    for v in values:
        if torch.is_tensor(v):
            tiers[0 if v.dim() else 1].append(v.dtype)
        else:
            tiers[2].append(torch.bool if isinstance(v, bool) else
                            torch.int64 if isinstance(v, int) else torch.float32)
    result = None
    for tier in tiers:
        if not tier:
            continue
        dtype = tier[0]
        for other in tier[1:]:
            dtype = torch.promote_types(dtype, other)
        if tier is tiers[2] and category(dtype) == 2:
            dtype = torch.float32
        if result is None or category(dtype) > category(result):
            result = dtype
    return result


def as_tensor(value, dtype, device):
    return value.to(dtype) if torch.is_tensor(value) else torch.tensor(value, dtype=dtype,
                                                                      device=device)


def number_of(arg):
    if arg["kind"] == "bool":
        return arg["number"] != 0
    if arg["kind"] == "int":
        return int(arg["number"])
    return float(arg["number"])


def reduce_dims(x, axes):
    """The dims a reduction folds: all of them when none are named; None for a 0-d tensor."""
    if x.dim() == 0:
        return None
    return list(range(x.dim())) if not axes else [a % x.dim() for a in axes]


def fold_each(fn, x, dims, keepdim):
    """Folds `dims` one at a time with a single-dim reduction (torch.prod takes one dim)."""
    if dims is None:
        return fn(x)
    for d in sorted(dims, reverse=True):
        x = fn(x, d, keepdim=True)
    return x if keepdim else x.squeeze(dims) if dims else x


def tiling(name, counts, axes, a):
    x = a[0]
    if name == "roll":
        return torch.roll(x, counts, axes) if axes else torch.roll(x, counts[0])
    if name == "repeat":
        return x.repeat(counts)
    if name == "tile":
        return torch.tile(x, counts)
    mode = name[len("pad_"):]
    if mode == "constant":
        return F.pad(x, counts, value=a[1])
    # PyTorch pads k trailing axes in these modes only below k + 1 or k + 2 axes: fold the others
    # into one batch axis, then unfold.
    padded = len(counts) // 2
    lead = x.shape[:x.dim() - padded]
    folded = x.reshape((-1,) + tuple(x.shape[x.dim() - padded:]))
    out = F.pad(folded, counts, mode=mode)
    return out.reshape(tuple(lead) + tuple(out.shape[1:]))


def order_statistic(step, x):
    """median, nanmedian, kthvalue, quantile, nanquantile or cdist, as Op::order_statistic names
    them (tools/fuzz/program.h)."""
    name, axis, keepdim = step["name"], step["axis"], step["keepdim"]
    if name == "cdist":
        return torch.cdist(x, x, p=step["q"], compute_mode="donot_use_mm_for_euclid_dist")
    op, _, rest = name.partition("_")
    if rest == "all":
        return getattr(torch, op)(x)
    if op in ("quantile", "nanquantile"):
        dim = None if step["no_axis"] else axis
        return getattr(torch, op)(x, step["q"], dim=dim, keepdim=keepdim, interpolation=rest)
    if op == "kthvalue":
        n = x.shape[axis] if x.dim() else 1
        picked = torch.kthvalue(x, min(step["k"], n), dim=axis, keepdim=keepdim)
    else:
        picked = getattr(torch, op)(x, dim=axis, keepdim=keepdim)
    return picked.indices if rest == "indices" else picked.values


def loss(step, args):
    """A loss step, "<loss>.<reduction>": torch.nn.functional's loss of that name, with the
    weight and pos_weight the step gives (its weight_arg and pos_weight_arg)."""
    fn, reduction = step["name"].split(".")
    x, target = args[0], args[1]
    weight = args[step["weight_arg"]] if step.get("weight_arg", -1) >= 0 else None
    if fn == "cross_entropy_probabilities":
        return F.cross_entropy(x, target, weight, reduction=reduction, label_smoothing=step["q"])
    if fn == "cross_entropy":  # PyTorch takes i64 class indices only
        return F.cross_entropy(x, target.long(), weight, reduction=reduction,
                               ignore_index=step["k"], label_smoothing=step["q"])
    if fn == "nll_loss":
        return F.nll_loss(x, target.long(), weight, reduction=reduction, ignore_index=step["k"])
    if fn == "kl_div_log_target":
        return F.kl_div(x, target, reduction=reduction, log_target=True)
    if fn == "binary_cross_entropy":
        return F.binary_cross_entropy(x, target, weight, reduction=reduction)
    if fn == "binary_cross_entropy_with_logits":
        pos_weight = args[step["pos_weight_arg"]] if step.get("pos_weight_arg", -1) >= 0 else None
        return F.binary_cross_entropy_with_logits(x, target, weight, reduction=reduction,
                                                  pos_weight=pos_weight)
    return getattr(F, fn)(x, target, reduction=reduction)


def strided_view(step, x):
    """flip, diagonal, narrow, or a piece of chunk, split or unbind."""
    name, axis = step["name"], step["axis"]
    if name == "flip":
        return torch.flip(x, step["axes"])
    if name == "diagonal":
        return torch.diagonal(x, step["k"], step["axes"][0], step["axes"][1])
    if name == "narrow":
        return torch.narrow(x, axis, step["start"], step["stop"])
    if name == "unbind":
        return torch.unbind(x, axis)[step["start"]]
    return getattr(torch, name)(x, step["k"], axis)[step["start"]]


def statistic(step, x):
    """nansum, nanmean, count_nonzero or vector_norm over the step's axes, or trace."""
    name, dims, keep = step["name"], reduce_dims(x, step["axes"]), step["keepdim"]
    if name == "trace":
        return torch.trace(x)
    if name == "count_nonzero":
        return torch.count_nonzero(x, dim=dims)
    if name == "vector_norm":
        return torch.linalg.vector_norm(x, step["q"], dim=dims, keepdim=keep)
    fn = torch.nansum if name == "nansum" else torch.nanmean
    return fn(x) if dims is None else fn(x, dim=dims, keepdim=keep)


def tiny_half_rows(step, inputs):
    """For normalize and cosine_similarity of f16: the rows (the axis kept as 1) of any operand
    whose norm is below f16's normal range. lazyfuse divides them by their f32 norm, where PyTorch
    rounds the norm to f16 (subnormal, or 0 with its eps, which f16 rounds to 0: 0 / 0 = NaN).
    None for other steps."""
    if step["op"] != "row_op" or step["name"] == "glu" or inputs[0].dtype != torch.float16:
        return None
    rows = [torch.linalg.vector_norm(v.float(), dim=step["axis"], keepdim=True) < 2.0**-14
            for v in inputs if torch.is_tensor(v)]
    return rows[0] if len(rows) == 1 else rows[0] | rows[1]


def run_step(step, inputs, device):
    """PyTorch's result of one step, given its tensor arguments' values (numbers as Python's)."""
    op, name = step["op"], step["name"]
    a = inputs
    dtype = DTYPES[step["dtype"]]
    if op == "full":
        shape = step["shape"]
        value = 0 if name == "zeros" else 1 if name == "ones" else a[0]
        return torch.full(shape, value, dtype=dtype, device=device)
    if op == "arange":
        n = step["shape"][0]
        return torch.arange(step["start"], step["start"] + step["step"] * n, step["step"],
                            dtype=dtype, device=device)
    if op == "unary":
        return UNARY[name](a[0])
    if op == "binary":
        x, y = a
        if name in OPERATORS:
            return OPERATORS[name](x, y)
        # lazyfuse takes numbers on either side, and integers for atan2, hypot and logaddexp
        # (f32 results): PyTorch's promotion, then its op on tensors of that dtype.
        promoted = promoted_dtype(x, y)
        if name in FLOATING_RESULT and not promoted.is_floating_point:
            promoted = torch.float32
        return TENSOR_ONLY[name](as_tensor(x, promoted, device), as_tensor(y, promoted, device))
    if op == "where":
        return torch.where(a[0], a[1], a[2])
    if op == "clamp":
        # PyTorch takes bounds both numbers or both tensors: a number beside a tensor becomes a 0-d
        # tensor of the promoted dtype, so that the gradient follows the tensor bounds' rule.
        x, lo, hi = a
        if torch.is_tensor(lo) != torch.is_tensor(hi):
            promoted = promoted_dtype(x, lo, hi)
            lo, hi = (v if torch.is_tensor(v) else as_tensor(v, promoted, device) for v in (lo, hi))
        return torch.clamp(x, lo, hi)
    if op == "lerp":
        # lazyfuse promotes mixed dtypes and takes a number as end; PyTorch takes one dtype.
        promoted = promoted_dtype(*a)
        weight = a[2] if not torch.is_tensor(a[2]) else a[2].to(promoted)
        return torch.lerp(as_tensor(a[0], promoted, device), as_tensor(a[1], promoted, device),
                          weight)
    if op == "cast":
        return a[0].to(dtype)
    if op == "reshape":
        if name == "flatten":
            return a[0].flatten(step["axes"][0], step["axes"][1])
        shape = list(step["shape"])
        if name == "reshape_infer":
            shape[step["axis"]] = -1
        return a[0].reshape(shape)
    if op == "permute":
        if name == "transpose":
            return a[0].transpose(step["axes"][0], step["axes"][1])
        return a[0].permute(step["axes"])
    if op == "expand":
        return a[0].expand(step["shape"]) if name == "expand" else torch.broadcast_to(
            a[0], step["shape"])
    if op == "slice":
        x, axis = a[0], step["axis"] % a[0].dim()
        bounds = slice(step["start"] if step["has_start"] else None,
                       step["stop"] if step["has_stop"] else None, step["step"])
        picks = list(range(*bounds.indices(x.shape[axis])))  # Python's rule, any step
        return x.index_select(axis, torch.tensor(picks, dtype=torch.int64, device=device))
    if op == "squeeze":
        return a[0].squeeze() if name == "squeeze_all" else a[0].squeeze(step["axis"])
    if op == "unsqueeze":
        return a[0].unsqueeze(step["axis"])
    if op == "contiguous":
        return a[0].detach() if name == "stop_gradient" else a[0].contiguous()
    if op == "reduce":
        x, dims, keep = a[0], reduce_dims(a[0], step["axes"]), step["keepdim"]
        if name == "prod":
            return fold_each(torch.prod, x, dims, keep)
        fn = {"sum": torch.sum, "mean": torch.mean, "max": torch.amax, "min": torch.amin,
              "logsumexp": torch.logsumexp, "any": torch.any, "all": torch.all}[name]
        if dims is None:
            return fn(x, dim=0) if name == "logsumexp" else fn(x)
        return fn(x, dim=dims, keepdim=keep)
    if op == "arg_reduce":
        fn = torch.argmax if name == "argmax" else torch.argmin
        x = a[0].to(torch.uint8) if a[0].dtype == torch.bool else a[0]  # lazyfuse takes bool
        return fn(x, dim=None if step["no_axis"] else step["axis"], keepdim=step["keepdim"])
    if op in ("var", "std_dev"):
        fn = torch.var if op == "var" else torch.std
        x, dims = a[0], reduce_dims(a[0], step["axes"])
        return fn(x, dim=dims, correction=step["correction"], keepdim=step["keepdim"])
    if op == "softmax":
        return torch.softmax(a[0], step["axis"])
    if op == "log_softmax":
        return torch.log_softmax(a[0], step["axis"])
    if op in ("layer_norm", "rms_norm"):
        x = a[0]
        n = [x.shape[-1]] if x.dim() else []
        if op == "rms_norm":
            return F.rms_norm(x, n, a[1], step["eps"])
        return F.layer_norm(x, n, a[1], a[2], step["eps"])
    if op == "join":
        return (torch.stack if name == "stack" else torch.cat)(list(a), step["axis"])
    if op == "gather":
        if name == "embedding":
            return F.embedding(a[1].long(), a[0])
        if name == "index_select":
            return torch.index_select(a[0], step["axis"], a[1])
        if name == "take_along_axis":
            return torch.take_along_dim(a[0], a[1].long(), dim=step["axis"])
        return torch.gather(a[0], step["axis"], a[1].long())
    if op == "scan":
        x, axis = a[0], step["axis"]
        if name in ("cumsum", "cumprod"):
            return (torch.cumsum if name == "cumsum" else torch.cumprod)(x, axis)
        values, indices = (torch.cummax if name.startswith("cummax") else torch.cummin)(x, axis)
        return indices if name.endswith("_indices") else values
    if op == "top_k":
        x, axis = a[0], step["axis"]
        if x.dtype == torch.bool:  # lazyfuse orders bools; PyTorch's topk refuses them
            picked = run_step(step, [x.to(torch.uint8)], device)
            return picked if name.endswith("_indices") else picked.to(torch.bool)
        if name.startswith("sort"):
            values, indices = torch.sort(x, dim=axis, descending=step["largest"], stable=True)
        else:
            n = x.shape[axis] if x.dim() else 1
            values, indices = torch.topk(x, min(step["k"], n), dim=axis, largest=step["largest"])
        return indices if name.endswith("_indices") else values
    if op == "scatter":
        # The result has x's dtype (src converted); PyTorch's scatters take only that.
        x, index, src = a[0], a[1].long(), a[2].to(a[0].dtype)
        if name == "index_add":
            return torch.index_add(x, step["axis"], a[1], src)
        fn = torch.scatter_add if name == "scatter_add" else torch.scatter
        return fn(x, step["axis"], index, src)
    if op == "product":
        if name == "matmul":
            return torch.matmul(a[0], a[1])
        if name == "bmm":
            return torch.bmm(a[0], a[1])
        if name == "linear":
            return F.linear(a[0], a[1], a[2] if len(a) > 2 else None)
        if name == "addmm":
            return torch.addmm(a[0], a[1], a[2], beta=a[3], alpha=a[4])
        if name == "einsum":
            return torch.einsum(step["equation"], *a)
    if op == "triangle":
        return (torch.tril if name == "tril" else torch.triu)(a[0], step["k"])
    if op == "masked_fill":
        return torch.masked_fill(a[0], a[1], a[2])
    if op == "tiling":
        return tiling(name, step["counts"], step["axes"], a)
    if op == "order_statistic":
        return order_statistic(step, a[0])
    if op == "loss":
        return loss(step, a)
    if op == "strided_view":
        return strided_view(step, a[0])
    if op == "statistic":
        return statistic(step, a[0])
    if op == "row_op":
        if name == "glu":
            return F.glu(a[0], step["axis"])
        if name == "normalize":
            return F.normalize(a[0], 2.0, step["axis"], 1e-12)
        return F.cosine_similarity(a[0], a[1], step["axis"], 1e-8)
    if op == "pair":
        if name == "outer":
            return torch.outer(a[0], a[1])
        if name == "isclose":
            return torch.isclose(a[0], a[1], step["q"], step["eps"], step["largest"])
        return F.pairwise_distance(a[0], a[1], step["q"], 1e-6, step["keepdim"])
    if op == "one_hot":
        return F.one_hot(a[0].long(), step["shape"][0]).to(dtype)
    raise ValueError(f"torch_check: no PyTorch form for {op} {name}")
