__version__: str
built_with_torch: str
stable_abi_target: str

def torch_reason_in_errors() -> bool: ...

cpu_only: bool
cuda_version: str | None
cuda_archs: tuple[str, ...]
