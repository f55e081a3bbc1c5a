"""Writes one program per odd call of a Python entry point of the higher-order ops that torch
ships (torch.cond, while_loop, scan, associative_scan, map, switch, strict_mode, checkpoint,
flex_attention, nested_compile_region): closures that mutate state, bodies that return
non-tensors or pytrees, mismatched branches, zero-sized, empty and non-tensor inputs, keyword
arguments. An entry point the running torch lacks is left out.

Usage: python gen_callers.py OUTDIR (under the torch being probed).
"""

import importlib
import sys
from pathlib import Path

# name -> (module, attribute) of the entry point, imported in the program as `api`
APIS = {
    "cond": ("torch", "cond"),
    "while_loop": ("torch._higher_order_ops", "while_loop"),
    "scan": ("torch._higher_order_ops", "scan"),
    "associative_scan": ("torch._higher_order_ops", "associative_scan"),
    "map": ("torch._higher_order_ops.map", "map"),
    "switch": ("torch._higher_order_ops.switch", "switch"),
    "strict_mode": ("torch._higher_order_ops", "strict_mode"),
    "checkpoint": ("torch.utils.checkpoint", "checkpoint"),
    "flex_attention": ("torch.nn.attention.flex_attention", "flex_attention"),
    "nested_compile_region": ("torch.compiler", "nested_compile_region"),
}

# (api, variant) -> call; names: x, w (4x4 tensors), lin, the body functions of the template
CALLS = {
    "cond": {
        "kw_operands": "api(x.sum() > 0, add1, sub1, operands=(x,))",
        "extra_kw": "api(x.sum() > 0, add1, sub1, (x,), mode=1)",
        "operands_not_tuple": "api(x.sum() > 0, add1, sub1, x)",
        "operands_int": "api(x.sum() > 0, add1, sub1, (3,))",
        "operands_nested": "api(x.sum() > 0, first_leaf, first_leaf, ((x, [w]),))",
        "branches_mismatch_shape": "api(x.sum() > 0, add1, shrink, (x,))",
        "branches_mismatch_dtype": "api(x.sum() > 0, add1, to_int, (x,))",
        "branches_mismatch_count": "api(x.sum() > 0, add1, pair, (x,))",
        "branch_const": "api(x.sum() > 0, const3, const3, (x,))",
        "branch_none": "api(x.sum() > 0, ret_none, ret_none, (x,))",
        "branch_mutates_list": "api(x.sum() > 0, mut, mut, (x,))",
        "branch_mutates_module": "api(x.sum() > 0, set_attr, set_attr, (x,))",
        "branch_calls_module": "api(x.sum() > 0, use_lin, use_lin, (x,))",
        "branch_closure": "api(x.sum() > 0, lambda t: t + w, lambda t: t - w, (x,))",
        "branch_inplace_input": "api(x.sum() > 0, inplace, inplace, (x,))",
        "branch_print": "api(x.sum() > 0, prints, prints, (x,))",
        "branch_pytree_out": "api(x.sum() > 0, tree_out, tree_out, (x,))",
        "pred_shape": "api(x > 0, add1, sub1, (x,))",
        "pred_int": "api(1, add1, sub1, (x,))",
        "pred_str": "api('yes', add1, sub1, (x,))",
        "pred_zero": "api(torch.empty(0).sum() > 0, add1, sub1, (torch.empty(0, 4),))",
        "not_callable": "api(x.sum() > 0, 1, 2, (x,))",
        "branch_is_module": "api(x.sum() > 0, lin, lin, (x,))",
        "branch_grad": "api(x.sum() > 0, with_grad, with_grad, (x,))",
        "branch_nondiff": "api(x.sum() > 0, argmax, argmax, (x,))",
    },
    "while_loop": {
        # every loop ends: its carry grows from positive values (or the condition is false)
        "plain": "api(lambda i, t: i < 3, lambda i, t: (i + 1, t * 2), (torch.tensor(0), x))",
        "kw": "api(lambda i, t: i < 3, lambda i, t: (i + 1, t * 2), (torch.tensor(0), x), extra=1)",
        "additional_kw": "api(lambda i, t: i < 3, lambda i, t: (i + 1, t * 2), (torch.tensor(0), x), additional_inputs=(w,))",
        "inputs_not_tuple": "api(lambda t: t.sum() < 30, lambda t: t * 2, x.abs() + 1)",
        "inputs_int": "api(lambda i: i < 3, lambda i: i + 1, (0,))",
        "inputs_empty": "api(lambda: False, lambda: (), ())",
        "cond_not_bool": "api(lambda t: t, lambda t: (t * 2,), (x.abs() + 1,))",
        "cond_python_bool": "api(lambda t: False, lambda t: (t * 2,), (x,))",
        "body_mismatch": "api(lambda t: t.sum() < 30, lambda t: (t[:2] * 2,), (x.abs() + 1,))",
        "body_count": "api(lambda t: t.sum() < 30, lambda t: (t * 2, t), (x.abs() + 1,))",
        "body_const": "api(lambda t: t.sum() < 30, lambda t: 3, (x.abs() + 1,))",
        "body_mutates": "api(lambda t: t.sum() < 30, mut, (x.abs() + 1,))",
        "body_closure": "api(lambda t: t.sum() < 30, lambda t: (t + w.abs() + 1,), (x.abs() + 1,))",
        "body_module": "api(lambda t: t.sum() < 30, lambda t: (lin(t).abs() + t,), (x.abs() + 1,))",
        "nested_carry": "api(lambda t: t[0].sum() < 30, lambda t: ((t[0] * 2, t[1]),), ((x.abs() + 1, w),))",
        "zero_size": "api(lambda t: t.numel() > 0, lambda t: (t + 1,), (torch.empty(0, 4),))",
    },
    "scan": {
        "plain": "api(lambda c, v: (c + v, c * 1), x[0], x)",
        "xs_empty": "api(lambda c, v: (c, c), x[0], [])",
        "xs_int": "api(lambda c, v: (c, c), x[0], 3)",
        "xs_zero": "api(lambda c, v: (c + v, c), x[0], torch.empty(0, 4))",
        "xs_scalar": "api(lambda c, v: (c + v, c), x[0], torch.tensor(1.0))",
        "init_empty": "api(lambda c, v: (c, v), (), x)",
        "init_int": "api(lambda c, v: (c, v), 3, x)",
        "init_none": "api(lambda c, v: (c, v), None, x)",
        "init_list_empty": "api(lambda c, v: (c, v), [], x)",
        "combine_not_tuple": "api(lambda c, v: c + v, x[0], x)",
        "combine_one": "api(lambda c, v: (c + v,), x[0], x)",
        "combine_three": "api(lambda c, v: (c + v, c, v), x[0], x)",
        "combine_shape": "api(lambda c, v: (c[:2], v), x[0], x)",
        "combine_dtype": "api(lambda c, v: (c.long(), v), x[0], x)",
        "combine_alias": "api(lambda c, v: (c, c), x[0], x)",
        "combine_const": "api(lambda c, v: (3, 4), x[0], x)",
        "combine_closure": "api(lambda c, v: (c + v + w[0], c), x[0], x)",
        "combine_mutates": "api(mut2, x[0], x)",
        "combine_module": "api(lambda c, v: (lin(c + v), c), x[0], x)",
        "additional_kw": "api(lambda c, v: (c + v, c), x[0], x, additional_inputs=(w,))",
        "dim_kw": "api(lambda c, v: (c + v, c), x[:, 0], x, dim=1)",
        "dim_out_of_range": "api(lambda c, v: (c + v, c), x[0], x, dim=5)",
        "reverse_tensor": "api(lambda c, v: (c + v, c), x[0], x, reverse=x.sum() > 0)",
        "xs_tree": "api(lambda c, v: (c + v[0], c), x[0], (x, w))",
        "xs_mismatch": "api(lambda c, v: (c + v[0], c), x[0], (x, w[:2]))",
    },
    "associative_scan": {
        "plain": "api(lambda a, b: a + b, x, 0)",
        "xs_empty": "api(lambda a, b: a + b, [], 0)",
        "xs_int": "api(lambda a, b: a + b, 3, 0)",
        "xs_zero": "api(lambda a, b: a + b, torch.empty(0, 4), 0)",
        "xs_scalar": "api(lambda a, b: a + b, torch.tensor(1.0), 0)",
        "xs_tree": "api(lambda a, b: (a[0] + b[0], a[1] * b[1]), (x, w), 0)",
        "xs_mismatch": "api(lambda a, b: (a[0] + b[0], a[1]), (x, w[:2]), 0)",
        "combine_shape": "api(lambda a, b: (a + b)[:1], x, 0)",
        "combine_tuple": "api(lambda a, b: (a + b, a), x, 0)",
        "combine_const": "api(lambda a, b: 3, x, 0)",
        "combine_closure": "api(lambda a, b: a + b + w[0], x, 0)",
        "combine_module": "api(lambda a, b: lin(a + b), x, 0)",
        "combine_mutates": "api(lambda a, b: mut(a + b), x, 0)",
        "generic_mode": "api(lambda a, b: a + b, x, 0, combine_mode='generic')",
        "bad_mode": "api(lambda a, b: a + b, x, 0, combine_mode='other')",
        "additional_kw": "api(lambda a, b: a + b, x, 0, additional_inputs=(w,))",
        "dim_tensor": "api(lambda a, b: a + b, x, x.sum().long() % 2)",
        "dim_out_of_range": "api(lambda a, b: a + b, x, 5)",
        "kw": "api(lambda a, b: a + b, x, 0, scale=2)",
    },
    "map": {
        "plain": "api(add1, x)",
        "args": "api(lambda t, v: t + v, x, w[0])",
        "xs_list": "api(add1, [x])",
        "xs_tree": "api(lambda t: t[0] + t[1], (x, w))",
        "xs_mismatch": "api(lambda t: t[0], (x, w[:2]))",
        "xs_zero": "api(add1, torch.empty(0, 4))",
        "xs_scalar": "api(add1, torch.tensor(1.0))",
        "xs_int": "api(add1, 3)",
        "xs_empty": "api(add1, [])",
        "args_int": "api(lambda t, n: t * n, x, 3)",
        "args_kw": "api(lambda t, v: t + v, x, v=w)",
        "body_const": "api(const3, x)",
        "body_none": "api(ret_none, x)",
        "body_tree": "api(tree_out, x)",
        "body_shape": "api(lambda t: t[: int(t.sum() > 0) + 1], x)",
        "body_closure": "api(lambda t: t + w[0], x)",
        "body_module": "api(use_lin, x)",
        "body_mutates": "api(mut, x)",
        "body_print": "api(prints, x)",
        "body_inplace": "api(inplace, x)",
    },
    "switch": {
        "plain": "api(x.sum().long() % 2, (add1, sub1), (x,))",
        "empty": "api(0, (), (x,))",
        "branches_not_tuple": "api(0, add1, (x,))",
        "branches_not_callable": "api(0, (1, 2), (x,))",
        "operands_not_tuple": "api(0, (add1, sub1), x)",
        "operands_int": "api(0, (add1, sub1), (3,))",
        "operands_nested": "api(0, (first_leaf, first_leaf), ((x, [w]),))",
        "const_branch": "api(0, (const3, const3), (x,))",
        "none_branch": "api(0, (ret_none, ret_none), (x,))",
        "mismatch": "api(0, (add1, shrink), (x,))",
        "index_float": "api(0.5, (add1, sub1), (x,))",
        "index_tensor_float": "api(x.sum(), (add1, sub1), (x,))",
        "index_str": "api('a', (add1, sub1), (x,))",
        "kw": "api(0, (add1, sub1), (x,), extra=1)",
        "kw_operands": "api(0, (add1, sub1), operands=(x,))",
        "mutates": "api(0, (mut, mut), (x,))",
        "closure": "api(0, (lambda t: t + w, lambda t: t - w), (x,))",
        "module": "api(0, (use_lin, use_lin), (x,))",
        "set_attr": "api(0, (set_attr, set_attr), (x,))",
        "tree_out": "api(0, (tree_out, tree_out), (x,))",
        "one_branch": "api(0, (add1,), (x,))",
    },
    "strict_mode": {
        "plain": "api(add1, (x,))",
        "kw": "api(add1, (x,), extra=1)",
        "operands_tensor": "api(add1, x)",
        "operands_int": "api(add1, (3,))",
        "body_const": "api(const3, (x,))",
        "body_module": "api(use_lin, (x,))",
        "body_mutates": "api(mut, (x,))",
        "body_print": "api(prints, (x,))",
        "body_closure": "api(lambda t: t + w, (x,))",
    },
    "checkpoint": {
        "plain": "api(add1, x, use_reentrant=False)",
        "reentrant": "api(add1, x, use_reentrant=True)",
        "kw_through": "api(lambda t, scale: t * scale, x, scale=2.0, use_reentrant=False)",
        "const": "api(const3, x, use_reentrant=False)",
        "none": "api(ret_none, x, use_reentrant=False)",
        "tree": "api(tree_out, x, use_reentrant=False)",
        "mutates": "api(mut, x, use_reentrant=False)",
        "module": "api(lin, x, use_reentrant=False)",
        "set_attr": "api(set_attr, x, use_reentrant=False)",
        "print": "api(prints, x, use_reentrant=False)",
        "closure": "api(lambda t: t + w, x, use_reentrant=False)",
        "context_fn": "api(add1, x, use_reentrant=False, context_fn=ctx_pair)",
        "determinism": "api(add1, x, use_reentrant=False, determinism_check='none')",
        "debug": "api(add1, x, use_reentrant=False, debug=True)",
        "non_tensor_arg": "api(lambda t, n: t * n, x, 3, use_reentrant=False)",
        "grad_inside": "api(with_grad, x, use_reentrant=False)",
        "nondiff": "api(argmax, x, use_reentrant=False)",
        "inplace": "api(inplace, x.clone(), use_reentrant=False)",
    },
    "flex_attention": {
        "plain": "api(q, q, q)",
        "score_mod": "api(q, q, q, score_mod=lambda s, b, h, i, j: s + (i - j))",
        "score_mod_closure": "api(q, q, q, score_mod=lambda s, b, h, i, j: s + w[0, 0])",
        "score_mod_const": "api(q, q, q, score_mod=lambda s, b, h, i, j: 3)",
        "score_mod_mutates": "api(q, q, q, score_mod=score_mut)",
        "score_mod_module": "api(q, q, q, score_mod=lambda s, b, h, i, j: s * lin.weight[0, 0])",
        "score_mod_print": "api(q, q, q, score_mod=score_print)",
        "score_mod_index": "api(q, q, q, score_mod=lambda s, b, h, i, j: s + w[i % 4, j % 4])",
        "score_mod_grad": "api(qg, qg, qg, score_mod=lambda s, b, h, i, j: s * w[0, 0])",
        "lse": "api(q, q, q, return_lse=True)",
        "scale_tensor": "api(q, q, q, scale=w[0, 0])",
        "kernel_options": "api(q, q, q, kernel_options={'BLOCK_M': 16})",
        "gqa": "api(q, q[:, :1], q[:, :1], enable_gqa=True)",
        "mismatch": "api(q, q[..., :4], q)",
        "int_tensors": "api(q.long(), q.long(), q.long())",
    },
    "nested_compile_region": {
        "plain": "api(add1)(x)",
        "kw_call": "api(lambda t, scale=1.0: t * scale)(x, scale=2.0)",
        "tensor_kw_call": "api(lambda t, other=None: t + other)(x, other=w)",
        "const": "api(const3)(x)",
        "none": "api(ret_none)(x)",
        "tree": "api(tree_out)(x)",
        "mutates": "api(mut)(x)",
        "module": "api(use_lin)(x)",
        "set_attr": "api(set_attr)(x)",
        "print": "api(prints)(x)",
        "closure": "api(lambda t: t + w)(x)",
        "module_object": "api(lin)(x)",
        "int_arg": "api(lambda t, n: t * n)(x, 3)",
        "nested": "api(lambda t: api(add1)(t) + 1)(x)",
        "twice": "api(add1)(x) + api(add1)(w)",
        "grad": "api(with_grad)(x)",
    },
}

TEMPLATE = '''# generated by gen_callers.py: {module}.{attr}: {call}
import contextlib

import torch
from {module} import {attr} as api

lin = torch.nn.Linear(4, 4)
state = []


def add1(t):
    return t + 1


def sub1(t):
    return t - 1


def shrink(t):
    return t[:2] + 1


def to_int(t):
    return t.long()


def pair(t):
    return t + 1, t - 1


def const3(*args):
    return 3


def ret_none(*args):
    return None


def first_leaf(tree):
    return tree[0] + tree[1][0]


def mut(t):
    state.append(t)
    return t + 1


def mut2(c, v):
    state.append(v)
    return c + v, c


def set_attr(t):
    lin.flag = True
    return t + 1


def use_lin(t):
    return lin(t)


def inplace(t):
    return t.add_(1)


def prints(t):
    print("inside")
    return t + 1


def tree_out(t):
    return {{"a": t + 1, "b": [t * 2, (t - 1,)]}}


def with_grad(t):
    with torch.enable_grad():
        return t * 2


def argmax(t):
    return t.argmax(-1).float()


def score_mut(s, b, h, i, j):
    state.append(i)
    return s


def score_print(s, b, h, i, j):
    print("score")
    return s


def ctx_pair():
    return contextlib.nullcontext(), contextlib.nullcontext()


q = torch.randn(1, 2, 8, 8)
qg = torch.randn(1, 2, 8, 8, requires_grad=True)


@torch.compile(backend="eager", fullgraph={fullgraph})
def fn(x, w):
    return {call}


fn(torch.randn(4, 4), torch.randn(4, 4))
'''


def main(out):
    out = Path(out)
    for api, variants in CALLS.items():
        module, attr = APIS[api]
        try:
            getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError):
            continue
        for variant, call in variants.items():
            text = TEMPLATE.format(module=module, attr=attr, call=call, fullgraph=True)
            (out / f"{api}__{variant}.py").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
