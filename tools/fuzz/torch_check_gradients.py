"""Each step's gradient, as lazyfuse computed it alone (tools/fuzz/step_gradients.h), against
PyTorch's autograd on the same inputs and cotangent.

Both are compared with PyTorch's gradient computed in float64 on those inputs. lazyfuse may be off
by four times PyTorch's own largest error in the tensor, plus eight roundings of the element in the
gradient's dtype; for a unary op or glu, plus |x| * 2^-24 of it (argument_scale); for an op that
sums, plus eight roundings of the tensor's largest element; plus 2^-126, below which the GPU flushes
f32 results to 0. Where PyTorch's gradient is NaN or infinite,
lazyfuse's must be the same, unless it is finite and within that slack of the float64 one. A
convention at a kink or a tie (which side gets a gradient, how ties share it) shows as a difference
of the element's size.
"""

import math

import torch

from torch_ops import tiny_half_rows

SIGNIFICAND_BITS = {torch.float32: 24, torch.float16: 11, torch.bfloat16: 8, torch.float64: 53}


def torch_gradients(run_step, step, inputs, wrt, cotangent, device, in_double):
    """PyTorch's gradient of the step with respect to the arguments `wrt` (step ids)."""
    leaves = {}
    args = []
    for arg, value in zip(step["args"], inputs):
        if "step" in arg and arg["step"] in wrt:
            if arg["step"] not in leaves:
                leaf = value.detach().clone()
                leaves[arg["step"]] = (leaf.double() if in_double else leaf).requires_grad_(True)
            value = leaves[arg["step"]]
        args.append(value)
    out = run_step(step, args, device)
    ordered = [leaves[s] for s in wrt]
    if not out.requires_grad:
        return [torch.zeros_like(leaf) for leaf in ordered]
    found = torch.autograd.grad(out, ordered, grad_outputs=cotangent.to(out.dtype),
                                allow_unused=True)
    return [torch.zeros_like(leaf) if g is None else g for leaf, g in zip(ordered, found)]


def excused(step, inputs, position):
    """Whether docs/semantics.md says the gradient for argument `position` differs from PyTorch's
    on these inputs: the whole of it is skipped then."""
    op, name = step["op"], step["name"]
    if op == "binary" and name in ("hypot", "atan2"):
        # 0 at the origin, and where x^2 + y^2 underflows (PyTorch: NaN or inf).
        x, y = (v.float() if torch.is_tensor(v) else torch.tensor(float(v)) for v in inputs)
        return bool((x.to(y.device) ** 2 + y ** 2 == 0).any())
    x = inputs[0]
    if op == "statistic" and name in ("nansum", "nanmean") and bool(torch.isnan(x).any()):
        # 0 at every NaN, where PyTorch's is NaN beside a row of only NaN (its inf times 0).
        return True
    if op == "statistic" and name == "vector_norm" and math.isinf(step["q"]) and bool(
            torch.isnan(x).any()):
        # NaN over a row holding NaN (PyTorch: 0, its sgn(NaN) being 0).
        return True
    tiny = tiny_half_rows(step, inputs)
    if tiny is not None and bool(tiny.any()):
        return True
    if op == "order_statistic" and name == "cdist" and step["q"] == float("inf"):
        # Coordinates tied for the largest difference share its gradient (PyTorch: each gets
        # all of it).
        return True
    if op == "scan" and name in ("cummax", "cummin"):
        # After a NaN lazyfuse keeps picking it where PyTorch moves to each later NaN.
        return bool(torch.isnan(x).any())
    if name in ("prod", "cumprod") and not bool(torch.isfinite(x).all()):
        # A product of one element passes the gradient through, where PyTorch divides the product
        # by the element: NaN at an infinite or NaN one.
        axes = [step["axis"]] if name == "cumprod" else step["axes"] or range(x.dim())
        return x.dim() > 0 and all(x.shape[a] == 1 for a in axes)
    if op == "statistic" and name == "trace":
        # PyTorch 2.11 fills every (columns + 1)-th element, past the diagonal of a matrix with
        # more than one row more than columns (pytorch/pytorch#171704).
        return x.shape[0] > x.shape[1] + 1
    if op == "scatter" and name == "scatter" and position == 2:
        # Of src elements sent to one place, only the last gets the gradient.
        index = inputs[1].long()
        hits = torch.zeros(inputs[0].shape, dtype=torch.int64, device=index.device)
        hits.scatter_add_(step["axis"], index, torch.ones_like(index))
        return bool((hits > 1).any())
    return False


def ordered_within_ties(step, inputs, gradient):
    """A top-k's (or an order statistic's) gradient with the values at tied elements of its input
    put in order: PyTorch's topk, kthvalue and CUDA median may pick any of equal elements, and so
    send a cotangent to another of them."""
    x = inputs[0]
    picks = step["op"] == "top_k" or (step["op"] == "order_statistic" and step["name"] != "cdist")
    if not picks or x.dim() == 0:
        return gradient
    if step["op"] == "order_statistic" and (step["no_axis"] or step["name"].endswith("_all")):
        flat = dict(step, axis=0, no_axis=False, name="")
        return ordered_within_ties(flat, [x.flatten()], gradient.flatten()).reshape(gradient.shape)
    axis = step["axis"] % x.dim()
    by_value = torch.sort(gradient, dim=axis, stable=True).indices
    by_input = torch.sort(torch.take_along_dim(x, by_value, dim=axis), dim=axis, stable=True).indices
    return torch.take_along_dim(torch.take_along_dim(gradient, by_value, dim=axis), by_input,
                                dim=axis)


def argument_scale(step, inputs):
    """How far lazyfuse's transcendental functions may be off, relative, in f32 units: a unary
    op's hardware exponent (sigmoid, as Inductor's, also glu's gate) is within |x| * 2^-24 of the
    exact one. (torch_check seed 18103: glu's gradient at a gate of -73.25, 1.7e-6 off.)"""
    uses_exponent = step["op"] == "unary" or (step["op"] == "row_op" and step["name"] == "glu")
    if not uses_exponent or not inputs[0].is_floating_point():
        return 0.0
    finite = inputs[0][torch.isfinite(inputs[0])]
    return min(128.0, float(finite.abs().max())) if finite.numel() else 0.0


# Ops whose gradient sums over many elements (a row, the inner size): their elements may be off
# by a few roundings of the largest one, where terms cancel.
SUMMING = {"softmax", "log_softmax", "layer_norm", "rms_norm", "var", "std_dev", "reduce",
           "product", "scan", "scatter"}


def unit_vector_terms(step, inputs, cotangent):
    """normalize's and cosine_similarity's gradients subtract terms of |g| / |x| over each row,
    which cancel (a row of one element has gradient 0): their size, a rounding per row element,
    for each element of x; None for other ops."""
    if step["op"] != "row_op" or step["name"] == "glu" or cotangent.numel() == 0:
        return None
    axis = step["axis"]
    g = cotangent.double().abs()
    g = g.unsqueeze(axis) if step["name"] == "cosine_similarity" else g.amax(axis, keepdim=True)
    norms = [torch.linalg.vector_norm(v.double(), dim=axis, keepdim=True).clamp_min(1e-30)
             for v in inputs if torch.is_tensor(v)]
    least = norms[0] if len(norms) == 1 else torch.minimum(norms[0], norms[1])
    return (inputs[0].shape[axis] + 8) * g / least


def compare_gradient(ours, native, double, scale, summing, terms=None):
    """The first element of lazyfuse's gradient that differs, described; None when all agree."""
    if ours.dtype != native.dtype:
        return f"gradient dtype: lazyfuse {ours.dtype}, PyTorch {native.dtype}"
    if list(ours.shape) != list(native.shape):
        return f"gradient shape: lazyfuse {list(ours.shape)}, PyTorch {list(native.shape)}"
    if ours.numel() == 0:
        return None
    r, t, d = ours.double().flatten(), native.double().flatten(), double.double().flatten()
    u = 2.0**-SIGNIFICAND_BITS[ours.dtype]
    finite = torch.isfinite(t) & torch.isfinite(d)
    own_error = float((t - d)[finite].abs().max()) if bool(finite.any()) else 0.0
    # Plus f32's least normal value: the GPU flushes results below it to 0 (docs/semantics.md).
    slack = 4 * own_error + (8 * u + 2 * scale * 2.0**-24) * d.abs() + 2.0**-126
    if summing and bool(finite.any()):
        slack = slack + 8 * u * float(d[finite].abs().max())
    if terms is not None:
        slack = slack + 4 * u * terms.expand(ours.shape).flatten()
    close = torch.isfinite(r) & torch.isfinite(d) & ((r - d).abs() <= slack)
    same_special = (torch.isnan(r) & torch.isnan(t)) | (torch.isinf(r) & (r == t))
    bad = ~(close | same_special)
    if not bool(bad.any()):
        return None
    k = int(bad.nonzero()[0])
    return (f"{int(bad.sum())} of {r.numel()} gradient elements differ; element {k}: lazyfuse "
            f"{float(r[k])!r}, PyTorch {float(t[k])!r} (float64 {float(d[k])!r}, tolerance "
            f"{float(slack[k]):.3g})")


def gradient_problem(run_step, load_values, step, inputs, values, device):
    """What differs between lazyfuse's gradient of a step and PyTorch's, or None; "refused: ..."
    when PyTorch has none, "lazyfuse refused: ..." when lazyfuse has none."""
    grad = step["grad"]
    result = step["result"]
    if "refused" in grad:
        return "lazyfuse refused: " + grad["refused"].split("\n")[0][:120]
    cotangent = load_values(values, dict(result, offset=grad["cotangent"]), device)
    wrt = [w["step"] for w in grad["wrt"]]
    ours = [load_values(values, w, device) for w in grad["wrt"]]
    if all(g.numel() == 0 for g in ours):
        # Nothing to compare; PyTorch's CUDA embedding backward even faults on a weight of no
        # columns (pytorch/pytorch#189668, seed 17983 program 19).
        return None
    try:
        native = torch_gradients(run_step, step, inputs, wrt, cotangent, device, False)
        double = torch_gradients(run_step, step, inputs, wrt, cotangent, device, True)
    except torch.AcceleratorError:
        raise  # a fault in PyTorch's kernel, not a refusal: torch_check names the step
    except (RuntimeError, TypeError, IndexError, ValueError, NotImplementedError) as e:
        return "refused: " + str(e).split("\n")[0][:90]
    positions = {}
    for k, arg in enumerate(step["args"]):
        if "step" in arg:
            positions.setdefault(arg["step"], k)
    for s, mine, theirs, exact in zip(wrt, ours, native, double):
        if excused(step, inputs, positions[s]):
            continue
        mine, theirs, exact = (ordered_within_ties(step, inputs, g) for g in (mine, theirs, exact))
        problem = compare_gradient(mine, theirs, exact, argument_scale(step, inputs),
                                   step["op"] in SUMMING,
                                   unit_vector_terms(step, inputs, cotangent))
        if problem:
            return f"d/d t{s}: {problem}"
    return None


def check(program, i, step, inputs, values, device, tally, run_step, load_values):
    """Compares the step's gradient (exported with --gradients) with PyTorch's autograd."""
    label = step["name"] or step["op"]
    problem = gradient_problem(run_step, load_values, step, inputs, values, device)
    if problem and device != "cpu" and not problem.startswith("lazyfuse refused"):
        on_cpu = [v.cpu() if torch.is_tensor(v) else v for v in inputs]
        if gradient_problem(run_step, load_values, step, on_cpu, values, "cpu") is None:
            tally.cpu_only["grad " + label] += 1
            problem = None
    if problem and problem.startswith("refused: "):
        key = ("grad " + label, problem[len("refused: "):])
        tally.refused[key] += 1
        tally.refused_example.setdefault(key, (program["index"], i))
        return
    if problem and problem.startswith("lazyfuse refused: "):
        tally.no_gradient[label] += 1
        return
    tally.gradients_compared[label] += 1
    if problem:
        tally.differences.append((program["seed"], program["index"], i, "grad " + label, problem))
