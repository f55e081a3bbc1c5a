# aims: GB0303 GB0304 GB0305 GB0309 GB0315 GB0316 GB0317 GB0320 GB0321 GB0322 GB0323 GB0324 GB0326 GB0329 GB0330 GB0331 GB0332 GB0334 GB0337 GB0338 GB0341 GB0342 GB0344 GB0349 GB4307 GB5884 GB7694 GB8165 GB8206 GB9760 GB8593
# Higher-order ops called directly with their eager signature, one argument at a time made
# odd: a tensor where a list goes, an empty list, a zero-sized tensor, a keyword argument, a
# closure, a non-constant flag.
import torch

H = torch.ops.higher_order


def attempt(label, f):
    try:
        torch.compile(f, backend="eager", fullgraph=True)(torch.randn(4, 3), torch.randn(4, 3))
    except Exception as e:
        print(label, type(e).__name__, e)
    torch._dynamo.reset()


def has(name):
    try:
        getattr(H, name)
        return True
    except (AttributeError, RuntimeError):
        return False


add = lambda a, b: a + b  # noqa: E731
step = lambda c, v: (c + v, c * 1)  # noqa: E731
zero = torch.empty(0, 3)

if has("associative_scan"):
    attempt("as-zero", lambda x, w: H.associative_scan(add, [zero], ()))
    attempt("as-xs-tensor", lambda x, w: H.associative_scan(add, x, ()))
    attempt("as-add-tensor", lambda x, w: H.associative_scan(add, [x], w))
    attempt("as-args", lambda x, w: H.associative_scan(add, [x]))
    attempt("as-kw", lambda x, w: H.associative_scan(add, [x], (), dim=0))
    attempt("as-xs-int", lambda x, w: H.associative_scan(add, [3], ()))
    attempt("as-xs-empty", lambda x, w: H.associative_scan(add, [], ()))
    attempt("as-add-int", lambda x, w: H.associative_scan(add, [x], (3,)))
    attempt("as-closure", lambda x, w: H.associative_scan(lambda a, b: a + b + w, [x], ()))
    attempt("as-shape", lambda x, w: H.associative_scan(lambda a, b: (a + b)[:1], [x], ()))
if has("scan"):
    attempt("scan-zero", lambda x, w: H.scan(step, [x[0]], [zero], ()))
    attempt("scan-xs-tensor", lambda x, w: H.scan(step, [x[0]], x, ()))
    attempt("scan-init-tensor", lambda x, w: H.scan(step, x[0], [x], ()))
    attempt("scan-init-empty", lambda x, w: H.scan(lambda c, v: (v,), [], [x], ()))
    attempt("scan-add-tensor", lambda x, w: H.scan(step, [x[0]], [x], w))
    attempt("scan-add-int", lambda x, w: H.scan(step, [x[0]], [x], (3,)))
    attempt("scan-args", lambda x, w: H.scan(step, [x[0]], [x]))
    attempt("scan-kw", lambda x, w: H.scan(step, [x[0]], [x], (), dim=0))
    attempt("scan-combine-not-tuple", lambda x, w: H.scan(lambda c, v: c + v, [x[0]], [x], ()))
    attempt("scan-combine-list", lambda x, w: H.scan(lambda c, v: [c + v, c], [x[0]], [x], ()))
    attempt("scan-combine-nested", lambda x, w: H.scan(lambda c, v: ((c + v,), c), [x[0]], [x], ()))
    attempt("scan-combine-one", lambda x, w: H.scan(lambda c, v: (c + v,), [x[0]], [x], ()))
    attempt("scan-combine-args", lambda x, w: H.scan(lambda *a: (a[0], a[0]), [x[0]], [x], ()))
    attempt("scan-xs-empty", lambda x, w: H.scan(step, [x[0]], [], ()))
    attempt("scan-closure", lambda x, w: H.scan(lambda c, v: (c + v + w[0], c), [x[0]], [x], ()))
    attempt("scan-mismatch", lambda x, w: H.scan(lambda c, v: (c[:1], v), [x[0]], [x], ()))
if has("map_impl"):
    attempt("map-xs-tensor", lambda x, w: H.map_impl(lambda t: t + 1, x, []))
    attempt("map-xs-empty", lambda x, w: H.map_impl(lambda t: t + 1, [], []))
    attempt("map-xs-int", lambda x, w: H.map_impl(lambda t: t + 1, [3], []))
    attempt("map-pos-tensor", lambda x, w: H.map_impl(lambda t, v: t + v, [x], w))
    attempt("map-zero", lambda x, w: H.map_impl(lambda t: t + 1, [zero], []))
    attempt("map-kw", lambda x, w: H.map_impl(lambda t: t + 1, [x], [], w=w))
    attempt("map-args", lambda x, w: H.map_impl(lambda t: t + 1, [x]))
for name in ("while_loop", "while_loop_stack_output"):
    if has(name):
        op = getattr(H, name)
        cond = lambda i, t: i < 3  # noqa: E731
        body = lambda i, t: (i + 1, t * 2)  # noqa: E731
        i0 = torch.tensor(0)
        attempt(f"{name}-carried-list", lambda x, w, op=op: op(cond, body, [i0, x], ()))
        attempt(f"{name}-carried-tensor", lambda x, w, op=op: op(lambda t: t.sum() > 1e9, lambda t: t, x, ()))
        attempt(f"{name}-add-list", lambda x, w, op=op: op(cond, body, (i0, x), [w]))
        attempt(f"{name}-add-tensor", lambda x, w, op=op: op(cond, body, (i0, x), w))
        attempt(f"{name}-add-float", lambda x, w, op=op: op(cond, body, (i0, x), (1.5,)))
        attempt(f"{name}-kw", lambda x, w, op=op: op(cond, body, (i0, x), (), scale=1))
        attempt(f"{name}-args", lambda x, w, op=op: op(cond, body, (i0, x)))
        attempt(f"{name}-carried-str", lambda x, w, op=op: op(lambda s: False, lambda s: (s,), ("a",), ()))
        attempt(f"{name}-carried-empty", lambda x, w, op=op: op(lambda: False, lambda: (), (), ()))
        attempt(f"{name}-carried-nested", lambda x, w, op=op: op(lambda t: False, lambda t: (t,), ((x,),), ()))
if has("cond"):
    attempt("cond-ops-tensor", lambda x, w: H.cond(x.sum() > 0, lambda t: t + 1, lambda t: t - 1, x))
    attempt("cond-ops-list", lambda x, w: H.cond(x.sum() > 0, lambda t: t + 1, lambda t: t - 1, [x]))
    attempt("cond-kw", lambda x, w: H.cond(x.sum() > 0, lambda t: t + 1, lambda t: t - 1, (x,), w=w))
    attempt("cond-args", lambda x, w: H.cond(x.sum() > 0, lambda t: t + 1, lambda t: t - 1))
    attempt("cond-ops-int", lambda x, w: H.cond(x.sum() > 0, lambda t: t + 1, lambda t: t - 1, (3,)))
    attempt("cond-ops-nested", lambda x, w: H.cond(x.sum() > 0, lambda t: t[0] + 1, lambda t: t[0] - 1, ((x,),)))
    attempt("cond-pred-list", lambda x, w: H.cond([True], lambda t: t + 1, lambda t: t - 1, (x,)))
    attempt("cond-const-out", lambda x, w: H.cond(x.sum() > 0, lambda t: 1, lambda t: 2, (x,)))
if has("wrap_with_set_grad_enabled"):
    op = H.wrap_with_set_grad_enabled
    attempt("sg-tensor-flag", lambda x, w: op(x.sum() > 0, lambda t: t + 1, x))
    attempt("sg-symbool-flag", lambda x, w: op(x.shape[0] > 2, lambda t: t + 1, x))
    attempt("sg-closure", lambda x, w: op(False, lambda t: t + w, x))
    attempt("sg-kw", lambda x, w: op(False, lambda t, s=1: t * s, x, s=2))
    attempt("sg-args", lambda x, w: op(False))
    attempt("sg-nonfn", lambda x, w: op(False, 3, x))
if has("wrap_with_autocast"):
    op = H.wrap_with_autocast
    attempt("ac-closure", lambda x, w: op("cpu", torch.bfloat16, True, True, lambda t: t + w, x))
    attempt("ac-tensor-enabled", lambda x, w: op("cpu", torch.bfloat16, x.sum() > 0, True, lambda t: t + 1, x))
    attempt("ac-tensor-device", lambda x, w: op(x, torch.bfloat16, True, True, lambda t: t + 1, x))
    attempt("ac-kw", lambda x, w: op("cpu", torch.bfloat16, True, True, lambda t, s=1: t * s, x, s=2))
    attempt("ac-args", lambda x, w: op("cpu", torch.bfloat16))
    attempt("ac-dtype-tensor", lambda x, w: op("cpu", x.dtype if x.sum() > 0 else None, True, True, lambda t: t + 1, x))
if has("wrap"):
    attempt("wrap-kw", lambda x, w: H.wrap(lambda t, s: t * s, x, s=w))
    attempt("wrap-kw-int", lambda x, w: H.wrap(lambda t, s: t * s, x, s=2))
    attempt("wrap-nonfn", lambda x, w: H.wrap(3, x))
if has("strict_mode"):
    attempt("sm-kw", lambda x, w: H.strict_mode(lambda t: t + 1, (x,), extra=1))
    attempt("sm-ops-tensor", lambda x, w: H.strict_mode(lambda t: t + 1, x))
    attempt("sm-args", lambda x, w: H.strict_mode(lambda t: t + 1))
if has("invoke_subgraph"):
    attempt("is-kw", lambda x, w: H.invoke_subgraph(lambda t: t + 1, "sub", x, scale=2))
    attempt("is-fn", lambda x, w: H.invoke_subgraph(lambda t: t + 1, "sub", x))
    attempt("is-none-id", lambda x, w: H.invoke_subgraph(lambda t: t + 1, None, x))
    attempt("is-int-op", lambda x, w: H.invoke_subgraph(lambda t, n: t * n, "sub", x, 3))
if has("switch"):
    op = H.switch
    attempt("sw-empty", lambda x, w: op(0, (), (x,)))
    attempt("sw-branches-list", lambda x, w: op(0, [lambda t: t + 1], (x,)))
    attempt("sw-branches-fn", lambda x, w: op(0, lambda t: t + 1, (x,)))
    attempt("sw-branches-int", lambda x, w: op(0, (1, 2), (x,)))
    attempt("sw-ops-tensor", lambda x, w: op(0, (lambda t: t + 1,), x))
    attempt("sw-ops-int", lambda x, w: op(0, (lambda t: t + 1,), (3,)))
    attempt("sw-ops-nested", lambda x, w: op(0, (lambda t: t,), ((x,),)))
    attempt("sw-const", lambda x, w: op(0, (lambda t: 1, lambda t: 2), (x,)))
    attempt("sw-kw", lambda x, w: op(0, (lambda t: t + 1,), (x,), extra=1))
    attempt("sw-args", lambda x, w: op(0, (lambda t: t + 1,)))
    attempt("sw-index-tensor", lambda x, w: op(x.sum().long() % 2, (lambda t: t + 1, lambda t: t - 1), (x,)))
    attempt("sw-mismatch", lambda x, w: op(0, (lambda t: t + 1, lambda t: t[:1]), (x,)))
    attempt("sw-none", lambda x, w: op(0, (lambda t: None, lambda t: None), (x,)))
if has("flex_gemm"):
    attempt("fg-kw", lambda x, w: H.flex_gemm(torch.ops.aten.mm.default, lambda t: t, (x, w.t()), {}, {}, extra=1))
if has("hints_wrapper"):
    attempt("hw-kw", lambda x, w: H.hints_wrapper(lambda t: t + 1, (x,), {}, hints={"a": 1}))
    attempt("hw-args-tensor", lambda x, w: H.hints_wrapper(lambda t: t + 1, x, {}, {}))
