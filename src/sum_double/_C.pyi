__version__: str
built_with_torch: str
stable_abi_target: str
cpu_only: bool
cuda_version: str | None
cuda_archs: tuple[str, ...]
