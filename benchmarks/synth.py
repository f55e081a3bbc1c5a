"""Make a gbsite project with a synthetic registry of N ids, for scaling measurements.

    python benchmarks/synth.py N OUT_DIR [--texts-per-id K] [--info-every M]

Texts are the real registry's, cycled and numbered, so pages look like real ones. Ids are
GB0000 to GB{N-1}: the id format (GB and four digits) allows at most 10,000. One id in M gets
an Additional Information block (a heading, prose, a table and two code blocks), as the most
edited real pages have.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from gbsite import config
from gbsite.docs import files as docs
from gbsite.docs import sync
from gbsite.registry import store as registry
from gbsite.registry.model import Entry, Registry, Revision, Source, Text

ROOT = Path(__file__).resolve().parent.parent

BLOCK = """
### Why this happens

Synthetic text for entry {gb_id}, long enough to look like a real contribution: Dynamo traces
the function and stops at the call it cannot trace.

| option | effect |
| --- | --- |
| `fullgraph=True` | error at the first break<br>one graph |

```python gb-repro
import torch

def fn(x):
    print("traced", x.shape)  # graph break
    return x + 1

fn(torch.randn(3))
```

```python gb-fix
import torch

def fn(x):
    return x + 1

fn(torch.randn(3))
```
"""


def make(count: int, out: Path, texts_per_id: int = 1, info_every: int = 17) -> Path:
    if count > 10_000:
        raise SystemExit("GB ids have four digits: at most 10,000 ids")
    real = registry.load(ROOT / "registry")
    samples = [r.text for e in real.entries.values() for r in e.history]
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    shutil.copy(ROOT / "gbsite.toml", out / "gbsite.toml")
    shutil.copytree(ROOT / "templates", out / "templates")
    (out / "registry").mkdir()
    shutil.copy(ROOT / "registry" / "categories.yaml", out / "registry" / "categories.yaml")
    entries = {}
    for i in range(count):
        gb_id = f"GB{i:04d}"
        history = []
        for k in range(texts_per_id):
            base = samples[(i * texts_per_id + k) % len(samples)]
            text = Text(
                f"{base.gb_type} (synthetic {i}.{k})", base.context, base.explanation, base.hints
            )
            history.append(Revision(text, "1.0.0" if k == 0 else None))
        entries[gb_id] = Entry(gb_id, "1.0.0", None, history)
    source = Source("1.0.0", "0" * 64, count, count * texts_per_id)
    reg = Registry([source], entries, real.categories)
    registry.save(reg, out / "registry")
    cfg = config.load(out)
    plan = sync.plan(cfg, registry.load(cfg.registry_dir))
    cfg.docs_dir.parent.mkdir(parents=True, exist_ok=True)  # sync stages beside docs/gb/
    sync.apply(cfg.docs_dir, plan)
    for i in range(0, count, info_every):
        path = cfg.docs_dir / f"gb{i:04d}.md"
        path.write_text(docs.with_block(path.read_text(), BLOCK.format(gb_id=f"GB{i:04d}")))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("--texts-per-id", type=int, default=1)
    parser.add_argument("--info-every", type=int, default=17)
    args = parser.parse_args()
    make(args.count, args.out, args.texts_per_id, args.info_every)
    print(f"synthetic project with {args.count} ids in {args.out}")


if __name__ == "__main__":
    main()
