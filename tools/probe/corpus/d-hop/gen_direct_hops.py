"""Writes one program per odd call of a higher-order op with its eager signature (as
direct_hops_signatures.py tries them all in one program): each argument in turn made odd, a
tensor where a list goes, an empty list, a zero-sized tensor, a keyword argument, a closure, a
non-constant flag. An op the running torch lacks is left out.

Usage: python gen_direct_hops.py OUTDIR.
"""

import sys
from pathlib import Path

from torch._ops import _higher_order_ops

# (op, label, the call inside fn(x, w))
CALLS = [
    ('associative_scan', 'as-zero', 'H.associative_scan(add, [zero], ())'),
    ('associative_scan', 'as-xs-tensor', 'H.associative_scan(add, x, ())'),
    ('associative_scan', 'as-add-tensor', 'H.associative_scan(add, [x], w)'),
    ('associative_scan', 'as-args', 'H.associative_scan(add, [x])'),
    ('associative_scan', 'as-kw', 'H.associative_scan(add, [x], (), dim=0)'),
    ('associative_scan', 'as-xs-int', 'H.associative_scan(add, [3], ())'),
    ('associative_scan', 'as-xs-empty', 'H.associative_scan(add, [], ())'),
    ('associative_scan', 'as-add-int', 'H.associative_scan(add, [x], (3,))'),
    ('associative_scan', 'as-closure', 'H.associative_scan(lambda a, b: a + b + w, [x], ())'),
    ('associative_scan', 'as-shape', 'H.associative_scan(lambda a, b: (a + b)[:1], [x], ())'),
    ('scan', 'scan-zero', 'H.scan(step, [x[0]], [zero], ())'),
    ('scan', 'scan-xs-tensor', 'H.scan(step, [x[0]], x, ())'),
    ('scan', 'scan-init-tensor', 'H.scan(step, x[0], [x], ())'),
    ('scan', 'scan-init-empty', 'H.scan(lambda c, v: (v,), [], [x], ())'),
    ('scan', 'scan-add-tensor', 'H.scan(step, [x[0]], [x], w)'),
    ('scan', 'scan-add-int', 'H.scan(step, [x[0]], [x], (3,))'),
    ('scan', 'scan-args', 'H.scan(step, [x[0]], [x])'),
    ('scan', 'scan-kw', 'H.scan(step, [x[0]], [x], (), dim=0)'),
    ('scan', 'scan-combine-not-tuple', 'H.scan(lambda c, v: c + v, [x[0]], [x], ())'),
    ('scan', 'scan-combine-list', 'H.scan(lambda c, v: [c + v, c], [x[0]], [x], ())'),
    ('scan', 'scan-combine-nested', 'H.scan(lambda c, v: ((c + v,), c), [x[0]], [x], ())'),
    ('scan', 'scan-combine-one', 'H.scan(lambda c, v: (c + v,), [x[0]], [x], ())'),
    ('scan', 'scan-combine-args', 'H.scan(lambda *a: (a[0], a[0]), [x[0]], [x], ())'),
    ('scan', 'scan-xs-empty', 'H.scan(step, [x[0]], [], ())'),
    ('scan', 'scan-closure', 'H.scan(lambda c, v: (c + v + w[0], c), [x[0]], [x], ())'),
    ('scan', 'scan-mismatch', 'H.scan(lambda c, v: (c[:1], v), [x[0]], [x], ())'),
    ('map_impl', 'map-xs-tensor', 'H.map_impl(lambda t: t + 1, x, [])'),
    ('map_impl', 'map-xs-empty', 'H.map_impl(lambda t: t + 1, [], [])'),
    ('map_impl', 'map-xs-int', 'H.map_impl(lambda t: t + 1, [3], [])'),
    ('map_impl', 'map-pos-tensor', 'H.map_impl(lambda t, v: t + v, [x], w)'),
    ('map_impl', 'map-zero', 'H.map_impl(lambda t: t + 1, [zero], [])'),
    ('map_impl', 'map-kw', 'H.map_impl(lambda t: t + 1, [x], [], w=w)'),
    ('map_impl', 'map-args', 'H.map_impl(lambda t: t + 1, [x])'),
    ('while_loop', 'while_loop-carried-list', 'H.while_loop(cond, body, [i0, x], ())'),
    ('while_loop_stack_output', 'while_loop_stack_output-carried-list', 'H.while_loop_stack_output(cond, body, [i0, x], ())'),
    ('while_loop', 'while_loop-carried-tensor', 'H.while_loop(lambda t: t.sum() > 1e9, lambda t: t, x, ())'),
    ('while_loop_stack_output', 'while_loop_stack_output-carried-tensor', 'H.while_loop_stack_output(lambda t: t.sum() > 1e9, lambda t: t, x, ())'),
    ('while_loop', 'while_loop-add-list', 'H.while_loop(cond, body, (i0, x), [w])'),
    ('while_loop_stack_output', 'while_loop_stack_output-add-list', 'H.while_loop_stack_output(cond, body, (i0, x), [w])'),
    ('while_loop', 'while_loop-add-tensor', 'H.while_loop(cond, body, (i0, x), w)'),
    ('while_loop_stack_output', 'while_loop_stack_output-add-tensor', 'H.while_loop_stack_output(cond, body, (i0, x), w)'),
    ('while_loop', 'while_loop-add-float', 'H.while_loop(cond, body, (i0, x), (1.5,))'),
    ('while_loop_stack_output', 'while_loop_stack_output-add-float', 'H.while_loop_stack_output(cond, body, (i0, x), (1.5,))'),
    ('while_loop', 'while_loop-kw', 'H.while_loop(cond, body, (i0, x), (), scale=1)'),
    ('while_loop_stack_output', 'while_loop_stack_output-kw', 'H.while_loop_stack_output(cond, body, (i0, x), (), scale=1)'),
    ('while_loop', 'while_loop-args', 'H.while_loop(cond, body, (i0, x))'),
    ('while_loop_stack_output', 'while_loop_stack_output-args', 'H.while_loop_stack_output(cond, body, (i0, x))'),
    ('while_loop', 'while_loop-carried-str', 'H.while_loop(lambda s: False, lambda s: (s,), ("a",), ())'),
    ('while_loop_stack_output', 'while_loop_stack_output-carried-str', 'H.while_loop_stack_output(lambda s: False, lambda s: (s,), ("a",), ())'),
    ('while_loop', 'while_loop-carried-empty', 'H.while_loop(lambda: False, lambda: (), (), ())'),
    ('while_loop_stack_output', 'while_loop_stack_output-carried-empty', 'H.while_loop_stack_output(lambda: False, lambda: (), (), ())'),
    ('while_loop', 'while_loop-carried-nested', 'H.while_loop(lambda t: False, lambda t: (t,), ((x,),), ())'),
    ('while_loop_stack_output', 'while_loop_stack_output-carried-nested', 'H.while_loop_stack_output(lambda t: False, lambda t: (t,), ((x,),), ())'),
    ('cond', 'cond-ops-tensor', 'H.cond(x.sum() > 0, lambda t: t + 1, lambda t: t - 1, x)'),
    ('cond', 'cond-ops-list', 'H.cond(x.sum() > 0, lambda t: t + 1, lambda t: t - 1, [x])'),
    ('cond', 'cond-kw', 'H.cond(x.sum() > 0, lambda t: t + 1, lambda t: t - 1, (x,), w=w)'),
    ('cond', 'cond-args', 'H.cond(x.sum() > 0, lambda t: t + 1, lambda t: t - 1)'),
    ('cond', 'cond-ops-int', 'H.cond(x.sum() > 0, lambda t: t + 1, lambda t: t - 1, (3,))'),
    ('cond', 'cond-ops-nested', 'H.cond(x.sum() > 0, lambda t: t[0] + 1, lambda t: t[0] - 1, ((x,),))'),
    ('cond', 'cond-pred-list', 'H.cond([True], lambda t: t + 1, lambda t: t - 1, (x,))'),
    ('cond', 'cond-const-out', 'H.cond(x.sum() > 0, lambda t: 1, lambda t: 2, (x,))'),
    ('wrap_with_set_grad_enabled', 'sg-tensor-flag', 'H.wrap_with_set_grad_enabled(x.sum() > 0, lambda t: t + 1, x)'),
    ('wrap_with_set_grad_enabled', 'sg-symbool-flag', 'H.wrap_with_set_grad_enabled(x.shape[0] > 2, lambda t: t + 1, x)'),
    ('wrap_with_set_grad_enabled', 'sg-closure', 'H.wrap_with_set_grad_enabled(False, lambda t: t + w, x)'),
    ('wrap_with_set_grad_enabled', 'sg-kw', 'H.wrap_with_set_grad_enabled(False, lambda t, s=1: t * s, x, s=2)'),
    ('wrap_with_set_grad_enabled', 'sg-args', 'H.wrap_with_set_grad_enabled(False)'),
    ('wrap_with_set_grad_enabled', 'sg-nonfn', 'H.wrap_with_set_grad_enabled(False, 3, x)'),
    ('wrap_with_autocast', 'ac-closure', 'H.wrap_with_autocast("cpu", torch.bfloat16, True, True, lambda t: t + w, x)'),
    ('wrap_with_autocast', 'ac-tensor-enabled', 'H.wrap_with_autocast("cpu", torch.bfloat16, x.sum() > 0, True, lambda t: t + 1, x)'),
    ('wrap_with_autocast', 'ac-tensor-device', 'H.wrap_with_autocast(x, torch.bfloat16, True, True, lambda t: t + 1, x)'),
    ('wrap_with_autocast', 'ac-kw', 'H.wrap_with_autocast("cpu", torch.bfloat16, True, True, lambda t, s=1: t * s, x, s=2)'),
    ('wrap_with_autocast', 'ac-args', 'H.wrap_with_autocast("cpu", torch.bfloat16)'),
    ('wrap_with_autocast', 'ac-dtype-tensor', 'H.wrap_with_autocast("cpu", x.dtype if x.sum() > 0 else None, True, True, lambda t: t + 1, x)'),
    ('wrap', 'wrap-kw', 'H.wrap(lambda t, s: t * s, x, s=w)'),
    ('wrap', 'wrap-kw-int', 'H.wrap(lambda t, s: t * s, x, s=2)'),
    ('wrap', 'wrap-nonfn', 'H.wrap(3, x)'),
    ('strict_mode', 'sm-kw', 'H.strict_mode(lambda t: t + 1, (x,), extra=1)'),
    ('strict_mode', 'sm-ops-tensor', 'H.strict_mode(lambda t: t + 1, x)'),
    ('strict_mode', 'sm-args', 'H.strict_mode(lambda t: t + 1)'),
    ('invoke_subgraph', 'is-kw', 'H.invoke_subgraph(lambda t: t + 1, "sub", x, scale=2)'),
    ('invoke_subgraph', 'is-fn', 'H.invoke_subgraph(lambda t: t + 1, "sub", x)'),
    ('invoke_subgraph', 'is-none-id', 'H.invoke_subgraph(lambda t: t + 1, None, x)'),
    ('invoke_subgraph', 'is-int-op', 'H.invoke_subgraph(lambda t, n: t * n, "sub", x, 3)'),
    ('switch', 'sw-empty', 'H.switch(0, (), (x,))'),
    ('switch', 'sw-branches-list', 'H.switch(0, [lambda t: t + 1], (x,))'),
    ('switch', 'sw-branches-fn', 'H.switch(0, lambda t: t + 1, (x,))'),
    ('switch', 'sw-branches-int', 'H.switch(0, (1, 2), (x,))'),
    ('switch', 'sw-ops-tensor', 'H.switch(0, (lambda t: t + 1,), x)'),
    ('switch', 'sw-ops-int', 'H.switch(0, (lambda t: t + 1,), (3,))'),
    ('switch', 'sw-ops-nested', 'H.switch(0, (lambda t: t,), ((x,),))'),
    ('switch', 'sw-ops-fn', 'H.switch(0, (lambda t, f: f(t),), (x, torch.sin))'),
    ('switch', 'sw-const', 'H.switch(0, (lambda t: 1, lambda t: 2), (x,))'),
    ('switch', 'sw-kw', 'H.switch(0, (lambda t: t + 1,), (x,), extra=1)'),
    ('switch', 'sw-args', 'H.switch(0, (lambda t: t + 1,))'),
    ('switch', 'sw-index-tensor', 'H.switch(x.sum().long() % 2, (lambda t: t + 1, lambda t: t - 1), (x,))'),
    ('switch', 'sw-mismatch', 'H.switch(0, (lambda t: t + 1, lambda t: t[:1]), (x,))'),
    ('switch', 'sw-none', 'H.switch(0, (lambda t: None, lambda t: None), (x,))'),
    ('flex_gemm', 'fg-kw', 'H.flex_gemm(torch.ops.aten.mm.default, lambda t: t, (x, w.t()), {}, {}, extra=1)'),
    ('hints_wrapper', 'hw-kw', 'H.hints_wrapper(lambda t: t + 1, (x,), {}, hints={"a": 1})'),
    ('hints_wrapper', 'hw-args-tensor', 'H.hints_wrapper(lambda t: t + 1, x, {}, {})'),
    ('scan', 'scanp-plain', 'H.scan(partial_step, [x[0]], [x], ())'),
    ('scan', 'scanp-xs-tensor', 'H.scan(partial_step, [x[0]], x, ())'),
    ('scan', 'scanp-xs-int', 'H.scan(partial_step, [x[0]], [3], ())'),
    ('scan', 'scanp-xs-empty', 'H.scan(partial_step, [x[0]], [], ())'),
    ('scan', 'scanp-init-tensor', 'H.scan(partial_step, x[0], [x], ())'),
    ('scan', 'scanp-init-int', 'H.scan(partial_step, [3], [x], ())'),
    ('scan', 'scanp-init-empty', 'H.scan(partial_step, [], [x], ())'),
    ('scan', 'scanp-add-tensor', 'H.scan(partial_step, [x[0]], [x], w)'),
    ('scan', 'scanp-add-int', 'H.scan(partial_step, [x[0]], [x], (3,))'),
    ('scan', 'scanp-zero', 'H.scan(partial_step, [x[0]], [zero], ())'),
    ('scan', 'scanp-kw', 'H.scan(partial_step, [x[0]], [x], (), dim=0)'),
    ('scan', 'scanp-closure', 'H.scan(functools.partial(unwrap, combine_fn=lambda c, v: (c + w[0], c)), [x[0]], [x], ())'),
    ('associative_scan', 'asp-plain', 'H.associative_scan(partial_add, [x], ())'),
    ('associative_scan', 'asp-xs-tensor', 'H.associative_scan(partial_add, x, ())'),
    ('associative_scan', 'asp-zero', 'H.associative_scan(partial_add, [zero], ())'),
    ('associative_scan', 'asp-add-tensor', 'H.associative_scan(partial_add, [x], w)'),
    ('associative_scan', 'asp-args', 'H.associative_scan(partial_add, [x])'),
]

# A plain int index sends switch down its constant path (it calls the chosen branch itself), which
# skips the argument checks; the same calls with a tensor index reach them.
CALLS += [
    (op, label + '-tidx', call.replace('H.switch(0, ', 'H.switch(i1, ', 1))
    for op, label, call in CALLS
    if call.startswith('H.switch(0, ')
]

PROGRAM = """# generated by gen_direct_hops.py: %(label)s
# aims: GB0303 GB0304 GB0305 GB0309 GB0315 GB0316 GB0317 GB0320 GB0321 GB0322 GB0323 GB0326
# aims: GB0329 GB0330 GB0331 GB0332 GB0334 GB0337 GB0338 GB0341 GB0342 GB0344 GB0349 GB4307
# aims: GB5884 GB7694 GB8165 GB8206 GB9760 GB8593
import functools

import torch

H = torch.ops.higher_order
add = lambda a, b: a + b  # noqa: E731
step = lambda c, v: (c + v, c * 1)  # noqa: E731
cond = lambda i, t: i < 3  # noqa: E731
body = lambda i, t: (i + 1, t * 2)  # noqa: E731
i0 = torch.tensor(0)
i1 = torch.tensor(1)
zero = torch.empty(0, 3)


def unwrap(*args, combine_fn):  # the shape of the partial torch's own scan API passes
    return combine_fn(*args)


partial_step = functools.partial(unwrap, combine_fn=step)
partial_add = functools.partial(unwrap, combine_fn=add)


@torch.compile(backend="eager", fullgraph=True)
def fn(x, w):
    return %(call)s


fn(torch.randn(4, 3), torch.randn(4, 3))
"""


def main(out):
    for op, label, call in CALLS:
        if op not in _higher_order_ops:
            continue
        text = PROGRAM % {"label": label, "call": call}
        (Path(out) / f"{label}.py").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
