"""The wheel's SBOM (PEP 770, cmake/Sbom.cmake): what the binaries carry; info's line from it."""

import json
import re
from importlib import metadata
from typing import Any

import pytest

import sum_double
from sum_double import _C
from sum_double._info import _cuda_runtime_line

OURS = "sum_double.cdx.json"
# auditwheel repair (ci/repair-wheel.sh) writes its own beside ours when it grafts a library.
THEIRS = {"auditwheel.cdx.json"}
NVIDIA_EULA = {
    "name": "NVIDIA CUDA Toolkit End User License Agreement",
    "url": "https://docs.nvidia.com/cuda/eula/index.html",
}


@pytest.fixture(scope="module")
def sboms() -> dict[str, metadata.PackagePath]:
    """The installed distribution's <name>.dist-info/sboms/ files, by name."""
    try:
        files = metadata.distribution("sum-double").files
    except metadata.PackageNotFoundError:
        files = None
    if not files:
        pytest.skip("sum-double is not installed from a wheel (no dist-info): no SBOM to read")
    return {
        f.name: f
        for f in files
        if f.parent.name == "sboms" and f.parent.parent.name.endswith(".dist-info")
    }


@pytest.fixture(scope="module")
def sbom(sboms: dict[str, metadata.PackagePath]) -> dict[str, Any]:
    assert OURS in sboms, sorted(sboms)
    doc: dict[str, Any] = json.loads(sboms[OURS].read_text())
    return doc


def test_the_wheel_carries_our_sbom_and_no_stray_one(
    sboms: dict[str, metadata.PackagePath],
) -> None:
    assert set(sboms) - THEIRS == {OURS}, sorted(sboms)


def test_sbom_is_cyclonedx_about_this_package(sbom: dict[str, Any]) -> None:
    assert (sbom["bomFormat"], sbom["specVersion"]) == ("CycloneDX", "1.6")
    package = sbom["metadata"]["component"]
    assert (package["name"], package["version"]) == ("sum-double", sum_double.__version__)
    # Reproducible builds: nothing that changes from one build of a commit to the next.
    assert "serialNumber" not in sbom
    assert "timestamp" not in sbom["metadata"]


def test_sbom_names_the_cuda_runtime_linked_in(sbom: dict[str, Any]) -> None:
    cuda = [c for c in sbom["components"] if "cuda" in json.dumps(c).lower()]
    if _C.cpu_only:
        assert cuda == []
        return
    (cudart,) = cuda
    assert cudart["name"] == "cudart_static"
    # The runtime's own version (12.4.127), which is not nvcc's (12.4.131).
    assert re.fullmatch(r"\d+\.\d+\.\d+", cudart["version"]), cudart
    assert cudart["version"] == _C.cuda_runtime_version
    assert cudart["licenses"] == [{"license": NVIDIA_EULA}]


def test_info_prints_the_sbom_line(sbom: dict[str, Any], info: str) -> None:
    # info: conftest.py's one run of `python -m sum_double info`, as a user runs it.
    if _C.cpu_only:
        expected = "none (CPU-only build)"
    else:
        (cudart,) = (c for c in sbom["components"] if c["name"] == "cudart_static")
        expected = (
            f"cudart_static {cudart['version']}, linked statically; license: {NVIDIA_EULA['name']}"
        )
    assert f"\n  CUDA runtime  {expected}\n" in info, info


def test_info_without_a_wheel(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_distribution(name: str) -> metadata.Distribution:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "distribution", no_distribution)
    assert _cuda_runtime_line() == "not recorded (not installed from a wheel)"
